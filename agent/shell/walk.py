"""From a command line to every simple command that would run, each with its effects.

`analyze(text)` lexes the text, expands the variables it can know (`a=rm; $a`, `${unset:-rm}`), unwraps
every simple command (`sudo`, `env`, `xargs`, ...), works out what feeds its stdin (a download, a decoder,
an echo, a heredoc), computes its effects, and follows everything those effects run: command and process
substitutions, `sh -c` strings, heredocs fed to a shell, `echo ... | sh`, decoded base64, `eval`, `find
-exec`, programs named by options or environment variables, and the shell commands, argument lists, deletes
and writes found in inline interpreter code (the last two become synthetic `rm` / `>` commands, so every
consumer sees them like any other). `cd` is followed so relative paths are known relative to the start.
"""

from __future__ import annotations

import base64
import binascii
import functools
import posixpath
import re

from agent.core.collector import burst
from agent.shell.code import scan_code
from agent.shell.effects import effects_of
from agent.shell.lexer import (
    MAX_DEPTH,
    Redirect,
    SimpleCommand,
    Word,
    literal_output,
    parse,
    substitution_output,
)
from agent.shell.model import Analysis, Command, Run, Script, Source
from agent.shell.runs import DOWNLOADERS, is_decoder
from agent.shell.wrappers import PRIVILEGED, is_assignment, unwrap

MAX_SEGMENTS = 500
_DECLARE = frozenset({"export", "declare", "local", "readonly", "typeset"})
# always set in a real shell: `${HOME:-/tmp}` is $HOME, not /tmp
_ALWAYS_SET = frozenset({"HOME", "PWD", "USER", "LOGNAME", "SHELL", "PATH", "HERMES_HOME", "TMPDIR"})
_VAR_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=+?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_CD_PREFIXES = ("/", "~", "$HOME", "${HOME}", "$HERMES_HOME", "${HERMES_HOME}")


@functools.lru_cache(maxsize=512)
def output_kinds(text: str, depth: int = 0) -> frozenset[str]:
    """What a command's output is: {"download"} if it fetches from the network, {"decode"} if it decodes."""
    if depth > MAX_DEPTH:
        return frozenset()
    kinds: set[str] = set()
    try:
        pipes = parse(text, depth)
    except RecursionError:
        return frozenset()
    for pipe in pipes:
        for simple in pipe.commands:
            cmd = Command(unwrap(simple.words, depth).argv)
            if cmd.name in DOWNLOADERS:
                kinds.add("download")
            elif cmd.argv and is_decoder(cmd):
                kinds.add("decode")
            for w in simple.words:
                for inner in w.subs + w.procs:
                    kinds |= output_kinds(inner, depth + 1)
    return frozenset(kinds)


# `${name/pat/rep}`, `${name#pat}`, `${name%pat}`, `${name:off:len}`, `${name^^}`: an expansion that
# transforms a value, also of a special parameter (`${0/x/r}`). When the value is unknown the result is
# taken to be what the text spells: the replacement of a substitution, nothing for the others
# (`${0/x/r}m` -> `rm`, `${PATH:0:0}rm` -> `rm`), so an expansion cannot hide a command name.
_PARAM_OP_RE = re.compile(
    r"\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])"
    r"(?P<op>//?|##?|%%?|:(?=[0-9 ])|\^\^?|,,?)(?P<rest>[^}]*)\}"
)


def _transform(value: str | None, op: str, rest: str) -> str:
    if op.startswith("/"):
        pattern, _, replacement = rest.partition("/")
        if value is None:
            return replacement
        return value.replace(pattern, replacement, -1 if op == "//" else 1) if pattern else value
    if value is None:
        return ""
    if op.startswith("#"):
        return value.removeprefix(rest)
    if op.startswith("%"):
        return value.removesuffix(rest)
    if op.startswith("^"):
        return value.upper() if op == "^^" else value[:1].upper() + value[1:]
    if op.startswith(","):
        return value.lower() if op == ",," else value[:1].lower() + value[1:]
    try:
        bounds = [int(b) for b in rest.split(":")]
    except ValueError:
        return ""
    start = bounds[0]
    return value[start : start + bounds[1]] if len(bounds) > 1 else value[start:]


def _param_ops(text: str, variables: dict[str, str], keep_unknown: bool) -> str:
    """`keep_unknown`: the word is a quoted argument, maybe in single quotes (code for `sh -c`, whose own
    shell expands it): an unknown value is left for that shell."""

    def repl(m: re.Match[str]) -> str:
        value = variables.get(m.group("name"))
        if value is None and keep_unknown:
            return m.group(0)
        return _transform(value, m.group("op"), m.group("rest"))

    return _PARAM_OP_RE.sub(repl, text)


_BRACE_RE = re.compile(r"^([^{}$]*)\{([^{}]*,[^{}]*)\}([^{}]*)$")


def _braces(words: list[Word]) -> list[Word]:
    """`{rm,-rf,x}` and `f.{txt,bak}`: the shell expands an unquoted brace list into several words."""
    out: list[Word] = []
    for w in words:
        m = None if w.quoted else _BRACE_RE.match(w.text)
        if m is None:
            out.append(w)
            continue
        pieces = [m.group(1) + p + m.group(3) for p in m.group(2).split(",")]
        pieces = [p for p in pieces if p] or [""]
        out.append(Word(pieces[0], w.subs, w.procs))
        out.extend(Word(p) for p in pieces[1:])
    return out


def expand(words: list[Word], variables: dict[str, str]) -> list[Word]:
    """Known variables substituted, `${x:-default}` resolved, brace lists expanded; an unquoted result
    splits into words."""
    out: list[Word] = []
    for w in _braces(words):
        if "$" not in w.text:
            out.append(w)
            continue

        def repl(m: re.Match[str]) -> str:
            name = m.group(1) or m.group(4)
            op, default = m.group(2), m.group(3) or ""
            if name in variables or name in _ALWAYS_SET:
                value = variables.get(name, "${" + name + "}" if op else m.group(0))
                return default if op in (":+", "+") else value
            if op in (":-", "-", ":=", "=", ":+", "+"):  # unset: the default (also for `+`: conservative)
                return default
            return m.group(0)

        text = _VAR_RE.sub(repl, _param_ops(w.text, variables, w.quoted))
        if text != w.text and not w.quoted and len(text.split()) > 1:
            pieces = text.split()
            out.append(Word(pieces[0], w.subs, w.procs, False))
            out.extend(Word(p) for p in pieces[1:])
        else:
            out.append(Word(text, w.subs, w.procs, w.quoted))
    return out


def _cd(cur: str | None, args: list[str]) -> str | None:
    ops = [a for a in args if a == "-" or not a.startswith("-")]
    target = ops[0] if ops else "~"
    if target.startswith(_CD_PREFIXES):
        return None if "`" in target or "$(" in target else target
    if target == "-" or "$" in target or cur is None:
        return None
    return posixpath.normpath(posixpath.join(cur, target)) if cur else posixpath.normpath(target)


class _Upstream:
    """What the earlier commands of a pipeline feed the next one."""

    def __init__(self) -> None:
        self.download = False
        self.decode = False
        self.base64 = False
        self.first: Command | None = None
        self.prev: Command | None = None
        self.bodies: list[str] = []
        self.count = 0

    def feed(self, cmd: Command) -> None:
        if cmd.name in DOWNLOADERS:
            self.download = True
        elif cmd.argv and is_decoder(cmd):
            self.decode = True
            self.base64 = self.base64 or cmd.name == "base64"
        self.prev = cmd
        if self.count == 0:
            self.first = cmd
        self.bodies += [r.body for r in cmd.redirects if r.op in ("<<", "<<-", "<<<") and r.body is not None]
        self.count += 1

    @staticmethod
    def _literal(cmd: Command | None) -> str | None:
        return literal_output(cmd.argv) if cmd is not None and cmd.argv else None

    def sources(self) -> list[Source]:
        if self.download:
            return [Source("download")]
        if self.decode:
            decoded = None
            first = self._literal(self.first)
            if self.base64 and first:
                try:
                    raw = base64.b64decode(first.strip() + "===", validate=False)
                    decoded = raw.decode("utf-8", "replace") or None
                except (binascii.Error, ValueError):
                    decoded = None
            return [Source("decode", decoded)]
        prev = self._literal(self.prev)
        out = [Source("literal", prev)] if prev else []
        out += [Source("heredoc", b) for b in self.bodies]
        return out or [Source("other")]


def _redirect_sources(redirects: list[Redirect]) -> list[Source]:
    out: list[Source] = []
    for r in redirects:
        if r.op in ("<<", "<<-", "<<<") and r.body is not None:
            out.append(Source("heredoc", r.body))
        elif r.op == "<" and r.target is not None:
            if not r.target.procs:
                out.append(Source("file", r.target.text))
            for inner in r.target.procs:
                kinds = output_kinds(inner)
                if "download" in kinds:
                    out.append(Source("download"))
                elif "decode" in kinds:
                    out.append(Source("decode"))
                else:
                    lit = substitution_output(inner, 1)
                    out.append(Source("literal", lit) if lit else Source("other"))
    return out


class _Walker:
    def __init__(self) -> None:
        self.out = Analysis()
        self._seen: set[str] = set()

    def segment(self, text: str) -> None:
        if text and len(self.out.segments) < MAX_SEGMENTS and text not in self._seen:
            self._seen.add(text)
            self.out.segments.append(text)

    def shell(
        self,
        text: str,
        *,
        depth: int,
        cwd: str | None,
        variables: dict[str, str] | None = None,
        privileged: bool = False,
        via: str = "",
        origin: str = "literal",
    ) -> None:
        if depth > MAX_DEPTH or not text or not text.strip():
            return
        index = len(self.out.scripts)
        self.out.scripts.append(Script("sh", text, origin))
        variables = dict(variables or {})
        dirs: list[str | None] = [cwd]
        for pipe in parse(text, depth):
            del dirs[pipe.subshell + 1 :]
            while len(dirs) <= pipe.subshell:
                dirs.append(dirs[-1])
            upstream = _Upstream()
            for simple in pipe.commands:
                here = dirs[pipe.subshell]
                sources = upstream.sources() if upstream.count else []
                cmd = self._simple(simple, depth, here, variables, privileged, via, index, sources)
                if cmd.name in ("cd", "pushd"):
                    dirs[pipe.subshell] = _cd(here, cmd.args)
                upstream.feed(cmd)

    def _simple(
        self,
        simple: SimpleCommand,
        depth: int,
        cwd: str | None,
        variables: dict[str, str],
        privileged: bool,
        via: str,
        index: int,
        sources: list[Source],
    ) -> Command:
        words = expand(simple.words, variables)
        for w in words + [r.target for r in simple.redirects if r.target is not None]:
            for inner in w.subs + w.procs:
                self.shell(inner, depth=depth + 1, cwd=cwd, variables=variables, privileged=privileged)
        words = [w for w in words if w.text or w.quoted]
        self.segment(" ".join(w.text for w in words))
        assigns = words[1:] if words and words[0].text in _DECLARE else words
        if assigns and all(is_assignment(w.text) for w in assigns):
            for w in assigns:
                key, value = w.text.split("=", 1)
                key = key.rstrip("+")
                if key != "IFS" and "[" not in key and (key in variables or len(variables) < 64):
                    variables[key] = value
        u = unwrap(words, depth)
        if u.argv and "${" in u.argv[0].text:
            # The command word is never code for another shell: its expansions are spelled out even when
            # quoted (`sudo "${0/x/r}m" -rf /`).
            head = u.argv[0]
            u.argv[0] = Word(_param_ops(head.text, variables, False), head.subs, head.procs, head.quoted)
        cmd = Command(
            u.argv,
            list(simple.redirects),
            privileged=privileged or u.privileged,
            sudo_stdin=u.sudo_stdin,
            via=u.via or via,
            stdin=sources + _redirect_sources(simple.redirects),
            env=u.env,
            cwd=cwd,
            script=index,
            depth=depth,
        )
        self.segment(cmd.text)
        self._finish(cmd, u.code)
        return cmd

    def _finish(self, cmd: Command, code: list[Word] | None = None) -> None:
        cmd.privileged = cmd.privileged or cmd.name in PRIVILEGED
        cmd.effects = effects_of(cmd, output_kinds)
        for w in code or []:  # flock -c, watch
            origin = "download" if any("download" in output_kinds(s) for s in w.subs + w.procs) else "literal"
            cmd.effects.runs.append(Run("sh", w.text, origin=origin, via="c"))
        self.out.commands.append(cmd)
        for run in cmd.effects.runs:
            self._run(run, cmd)

    def _run(self, run: Run, parent: Command) -> None:
        depth = parent.depth + 1
        if depth > MAX_DEPTH:
            return
        via = run.via if run.via in ("option", "env") else ""
        if run.language == "sh" and run.text:
            self.shell(run.text, depth=depth, cwd=parent.cwd, privileged=parent.privileged, via=via,
                       origin=run.origin)  # fmt: skip
        elif run.language == "argv" and run.argv:
            self._argv(list(run.argv), parent, via=run.via, roots=run.roots)
        elif run.language == "sql" and run.text:
            self.out.scripts.append(Script("sql", run.text, run.origin))
        elif run.text and run.language not in ("sh", "argv", "sql"):
            self._code(run.text, run.language, parent, run.origin)

    def _argv(self, words: list[Word], parent: Command, *, via: str, roots: tuple[str, ...] = ()) -> None:
        u = unwrap(words, parent.depth + 1)
        cmd = Command(
            u.argv,
            privileged=parent.privileged or u.privileged,
            sudo_stdin=u.sudo_stdin,
            via=u.via or via,
            roots=roots,
            env=u.env,
            cwd=parent.cwd,
            script=parent.script,
            depth=parent.depth + 1,
        )
        self.segment(cmd.text)
        self._finish(cmd, u.code)

    def _code(self, text: str, language: str, parent: Command, origin: str) -> None:
        self.out.scripts.append(Script(language, text, origin))
        scan = scan_code(text, language)
        depth = parent.depth + 1
        for s in scan.shell:
            self.shell(s, depth=depth, cwd=parent.cwd, privileged=parent.privileged)
        for argv in scan.argvs:
            self._argv([Word(a) for a in argv], parent, via="")
        for path, recursive in scan.deletes:
            argv = ["rm", *(["-r"] if recursive else []), *(["--", path] if path else [])]
            self._argv([Word(a) for a in argv], parent, via="code")
        for path in scan.writes:
            cmd = Command([], [Redirect(">", Word(path))], privileged=parent.privileged, via="code",
                          cwd=parent.cwd, script=parent.script, depth=depth)  # fmt: skip
            self._finish(cmd)


def analyze(text: str) -> Analysis:
    """Every simple command `text` would run, with its effects. Pure; raises only on analyser bugs.

    A collector burst (`agent.core.collector`): a long script makes hundreds of thousands of small objects
    that live exactly as long as the analysis and form no cycles, and the collector's full passes midway
    cost a third of the time; its owner may hold it off meanwhile."""
    walker = _Walker()
    with burst():
        walker.shell(text, depth=0, cwd="")
    return walker.out

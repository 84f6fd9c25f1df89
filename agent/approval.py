"""Dangerous-command detection and the approval gate.

Two parts:

* `detect(command)` parses a shell command (tolerantly: it never raises on bad quoting) and reports which
  risky patterns it contains. Each `Match` has a stable `key` (what session approvals remember) and a
  human-readable `reason`. Some patterns are *hard* (wiping `/` or home, mkfs, writing raw block devices,
  fork bombs, `kill -1`, shutdown/reboot): they are refused even in yolo mode.
* `ApprovalGate` decides whether a tool call may run: hard block, user deny rules, yolo/off, permanent
  allowlist, session approvals, and otherwise a (serialized) prompt through `AgentUI.ask_approval`.

How detection sees a command. It is lexed like a shell would: comments dropped, quotes and backslash escapes
removed inside words (`r'm'`, `"rm"`, `r\\m` are all `rm`), `$'\\x72m'` decoded, `${IFS}` treated as a
space, split on `;` `&&` `||` `|` `&` newlines and parentheses. Command substitutions (`$(...)`, backticks)
and process substitutions (`<(...)`) are analysed as commands of their own; a substitution that only echoes
a literal (`$(echo rm)`) is replaced by that literal. Wrappers are peeled off the front (`sudo`, `env X=1`,
`command`, `exec`, `nohup`, `time`, `nice`, `timeout`, `xargs`, `busybox`, shell keywords, variable
assignments), `/bin/rm` becomes `rm`, `sh -c '...'` / `eval ...` / `su -c` strings, heredocs fed to a
shell and `echo ... | sh` literals are analysed recursively, and simple variable indirection (`a=rm; $a -rf
x`) is followed.

Documented edge decisions:

* Text that is only *printed* is not flagged: `echo "rm -rf /"`, `grep -r "DROP TABLE" .` and
  `git commit -m "rm -rf /"` pass, because the parser knows it is an argument, not a command. Anything that
  feeds such text to an interpreter (`echo "rm -rf /" | sh`, `eval`, `sh -c`, heredoc to a shell) is
  analysed as code.
* `kill -1` alone and any `-1` pid (`kill -9 -1`, `kill -- -1`) are hard-blocked; `kill -1 1234` (SIGHUP to a
  pid) passes.
* `rm -f file` needs approval (force delete), `rm file` does not. `rm -rf` of `/`, `/*`, a top-level system
  directory (or its `/*`), `/home`, a home directory (`~`, `$HOME`, `/home/<user>`, `/root`) is hard-blocked;
  `rm -rf` of a *sub*directory of those (`/etc/nginx`, `~/project`) needs approval.
* `chmod +w` / `chmod =rw` without a `who` are not flagged (the umask keeps them from reaching "other").
* SQL is checked where SQL runs: the arguments of SQL clients (`psql`, `mysql`, `sqlite3`, ... also after
  `docker exec`), text piped or heredoc'd into one, inline interpreter code, and a command that *is* SQL
  (`DROP TABLE x`).
* `cp .env .env.bak` needs approval (the destination is a `.env*` file); `.env.example/.sample/.template/
  .dist` are exempt. Reading a `.env` is never flagged.
* `dd` always needs approval (even `dd --version`); `dd of=/dev/<disk>` is hard-blocked.
* If the analyser itself fails (a bug, not bad input), the command needs approval (`unparsed`): fail closed.

Gate decisions (`Verdict.decision`): allowed = safe | yolo | allowlist | session | once | always; refused =
blocked | denied_by_rule | deny | timeout | interrupted. Allowlist rules match the exact command text, or as
fnmatch globs but only for non-compound commands (no `; & | < > \\` $(` or newline), so a glob can never let a
chain through. "always" saves the exact command as the rule. `review_write` asks about the text
`write <resolved path>`, which is also the rule "always" saves for it. User deny globs are matched against
the whole command and against every simple command found in it (also inside `sh -c` and `$(...)`).
"""

from __future__ import annotations

import base64
import binascii
import fnmatch
import functools
import logging
import os
import posixpath
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from agent.fileio import atomic_write_text
from agent.ui import AgentUI, ApprovalDecision, ApprovalRequest

log = logging.getLogger(__name__)

__all__ = [
    "HARD_KEYS",
    "REASONS",
    "ApprovalGate",
    "Detection",
    "Match",
    "Verdict",
    "detect",
    "is_compound",
    "load_allowlist",
    "save_allowlist_rule",
]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --------------------------------------------------------------------------------------------------------
# Pattern keys and their reasons
# --------------------------------------------------------------------------------------------------------

REASONS: dict[str, str] = {
    # hard-blocked: refused even in yolo mode
    "delete_root": "deletes the root filesystem",
    "delete_system_dir": "deletes a system directory",
    "delete_home": "deletes the home directory",
    "mkfs": "formats a filesystem (mkfs)",
    "dd_device": "writes raw data onto a block device (dd)",
    "device_write": "writes directly to a block device",
    "fork_bomb": "is a fork bomb",
    "kill_all_processes": "kills every process (kill -1)",
    "shutdown": "shuts down or reboots the machine",
    # need approval
    "recursive_delete": "deletes files recursively",
    "force_delete": "force-deletes files",
    "find_delete": "deletes the files find matches (find -delete)",
    "find_exec_rm": "runs rm on the files find matches (find -exec rm)",
    "xargs_rm": "deletes the files listed on its input (xargs rm)",
    "shred": "destroys file contents (shred)",
    "world_writable": "makes files world-writable",
    "chown_root": "recursively gives files to root (chown -R root)",
    "sql_drop": "drops a database or table (SQL DROP)",
    "sql_truncate": "empties a table (SQL TRUNCATE)",
    "sql_delete_all": "deletes every row of a table (DELETE without WHERE)",
    "kill_force": "force-kills processes (SIGKILL)",
    "kill_by_name": "kills processes by name (killall/pkill)",
    "remote_exec": "runs code downloaded from the network in a shell",
    "decoded_exec": "runs decoded or obfuscated data in a shell",
    "heredoc_exec": "feeds a script to a shell through a heredoc",
    "git_reset_hard": "discards uncommitted changes (git reset --hard)",
    "git_force_push": "force-pushes over remote history",
    "git_clean": "deletes untracked files (git clean -f)",
    "git_branch_delete": "force-deletes a git branch (git branch -D)",
    "env_file_write": "writes a .env file (secrets)",
    "ssh_write": "writes SSH keys or SSH configuration",
    "shell_rc_write": "modifies a shell startup file",
    "credentials_write": "writes a credentials file",
    "hermes_config_write": "writes Hermes configuration",
    "system_config_write": "writes system configuration under /etc",
    "sudo": "runs a command with root privileges (sudo)",
    "service_stop": "stops, restarts or disables a system service",
    "dd": "copies raw data with dd",
    "chmod_exec": "makes a file executable and runs it at once",
    "write_outside_cwd": "writes outside the working directory",
    "unparsed": "could not be analysed safely",
}

HARD_KEYS: frozenset[str] = _words(
    """
    delete_root delete_system_dir delete_home mkfs dd_device device_write fork_bomb kill_all_processes
    shutdown
    """
)


@dataclass(frozen=True)
class Match:
    key: str
    reason: str
    hard: bool = False


@dataclass(frozen=True)
class Detection:
    hard_blocked: bool
    matches: list[Match]
    # The de-quoted text of every simple command seen (including ones inside `sh -c`, `$(...)`): what user
    # deny rules are matched against, besides the full command.
    segments: tuple[str, ...] = ()

    @property
    def keys(self) -> list[str]:
        return [m.key for m in self.matches]

    @property
    def reasons(self) -> list[str]:
        return [m.reason for m in self.matches]

    @property
    def needs_approval(self) -> bool:
        return bool(self.matches) and not self.hard_blocked


class _Collector:
    def __init__(self) -> None:
        self.matches: dict[str, Match] = {}
        self.segments: list[str] = []
        self._seen: set[str] = set()

    def add(self, key: str) -> None:
        if key not in self.matches:
            self.matches[key] = Match(key, REASONS[key], key in HARD_KEYS)

    def segment(self, text: str) -> None:
        if text and len(self.segments) < 500 and text not in self._seen:
            self._seen.add(text)
            self.segments.append(text)


# --------------------------------------------------------------------------------------------------------
# Tolerant shell lexer
# --------------------------------------------------------------------------------------------------------

_MAX_DEPTH = 8
_SPLIT = "\x00"  # marks a word break produced by an unquoted, resolved substitution


@dataclass
class _Word:
    text: str
    subs: list[str] = field(default_factory=list)  # $(...) and `...` contents
    procs: list[str] = field(default_factory=list)  # <(...) and >(...) contents
    quoted: bool = False


@dataclass
class _Op:
    op: str


@dataclass
class _Redir:
    op: str
    target: _Word | None = None
    body: str | None = None  # heredoc body or here-string


@dataclass
class _Simple:
    words: list[_Word] = field(default_factory=list)
    redirects: list[_Redir] = field(default_factory=list)


_ESCAPE_RE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|.)", re.S)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b"}
_SIMPLE_ESCAPES |= {"f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def _decode_escapes(text: str) -> str:
    """Backslash escapes as `$'...'` and printf decode them."""

    def repl(m: re.Match[str]) -> str:
        esc = m.group(1)
        try:
            if esc[0] == "x" and len(esc) > 1:
                return chr(int(esc[1:], 16))
            if esc[0] in "uU" and len(esc) > 1:
                return chr(int(esc[1:], 16))
            if esc[0] in "01234567":
                return chr(int(esc, 8))
        except (ValueError, OverflowError):
            return m.group(0)
        return _SIMPLE_ESCAPES.get(esc, "\\" + esc)

    return _ESCAPE_RE.sub(repl, text)


def _read_balanced(s: str, start: int) -> tuple[str, int]:
    """From just inside an opening paren: (inner text, index after the matching close). Tolerant."""
    n = len(s)
    depth = 1
    i = start
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            j = s.find("'", i + 1)
            i = n if j == -1 else j + 1
            continue
        if c == '"':
            i += 1
            while i < n and s[i] != '"':
                i += 2 if s[i] == "\\" else 1
            i += 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return s[start:i], i + 1
        i += 1
    return s[start:], n


def _read_backtick(s: str, start: int) -> tuple[str, int]:
    n = len(s)
    i = start
    buf: list[str] = []
    while i < n:
        c = s[i]
        if c == "\\" and i + 1 < n:
            buf.append(s[i + 1] if s[i + 1] in "`\\$" else s[i : i + 2])
            i += 2
            continue
        if c == "`":
            return "".join(buf), i + 1
        buf.append(c)
        i += 1
    return "".join(buf), n


_REDIR_OPS = ("<<<", "<<-", "<<", "<>", "<&", "<", ">>", ">|", ">&", ">")


class _Lexer:
    def __init__(self, text: str, depth: int = 0) -> None:
        self.s = text
        self.n = len(text)
        self.i = 0
        self.depth = depth
        self.out: list[_Word | _Op | _Redir] = []
        self.expect_delim: tuple[_Redir, bool] | None = None
        self.heredocs: list[tuple[_Redir, str, bool]] = []
        self._reset()

    def _reset(self) -> None:
        self.parts: list[str] = []
        self.subs: list[str] = []
        self.procs: list[str] = []
        self.quoted = False
        self.active = False

    def _add(self, text: str, quoted: bool = False) -> None:
        self.active = True
        self.parts.append(text)
        if quoted:
            self.quoted = True

    def _flush(self) -> None:
        if not self.active:
            return
        text = "".join(self.parts)
        pieces = [p for p in text.split(_SPLIT) if p] if _SPLIT in text else [text]
        if not pieces:
            pieces = [""]
        words = [_Word(p, quoted=self.quoted) for p in pieces]
        words[0].subs = self.subs
        words[0].procs = self.procs
        if self.expect_delim is not None:
            redir, strip = self.expect_delim
            self.heredocs.append((redir, words[0].text, strip))
            self.expect_delim = None
        self.out.extend(words)
        self._reset()

    def _op(self, op: str) -> None:
        self._flush()
        self.out.append(_Op(op))

    def _read_heredocs(self) -> None:
        s, n = self.s, self.n
        for redir, delim, strip in self.heredocs:
            lines: list[str] = []
            while self.i < n:
                j = s.find("\n", self.i)
                if j == -1:
                    j = n
                line = s[self.i : j]
                self.i = j + 1 if j < n else n
                check = line.lstrip("\t") if strip else line
                if check.strip() == delim.strip():
                    break
                lines.append(line)
            redir.body = "\n".join(lines)
        self.heredocs = []

    def _add_sub(self, inner: str, quoted: bool) -> None:
        self.active = True
        self.subs.append(inner)
        lit = _substitution_literal(inner, self.depth + 1)
        if lit is None:
            self.parts.append("$(" + inner + ")")
        elif quoted:
            self.parts.append(lit)
        else:
            words = lit.split()
            text = _SPLIT.join(words)
            if lit[:1].isspace():
                text = _SPLIT + text
            if lit[-1:].isspace():
                text = text + _SPLIT
            self.parts.append(text)

    def _read_dollar(self, quoted: bool) -> None:
        s, n, i = self.s, self.n, self.i
        nxt = s[i + 1] if i + 1 < n else ""
        if nxt == "'" and not quoted:  # $'...' ANSI-C quoting
            j = i + 2
            while j < n and s[j] != "'":
                j += 2 if s[j] == "\\" else 1
            self._add(_decode_escapes(s[i + 2 : min(j, n)]), quoted=True)
            self.i = j + 1
        elif nxt == "(":
            inner, end = _read_balanced(s, i + 2)
            self._add_sub(inner, quoted)
            self.i = end
        elif nxt == "{":
            j = s.find("}", i + 2)
            j = n - 1 if j == -1 else j
            name = s[i + 2 : j]
            if name.startswith("IFS"):
                if quoted:
                    self._add(" ")
                else:
                    self._flush()
            else:
                self._add(s[i : j + 1])
            self.i = j + 1
        elif s.startswith("IFS", i + 1) and not (i + 4 < n and (s[i + 4].isalnum() or s[i + 4] == "_")):
            if quoted:
                self._add(" ")
            else:
                self._flush()
            self.i = i + 4
        else:
            self._add("$")
            self.i = i + 1

    def _read_dquote(self) -> None:
        s, n = self.s, self.n
        self.active = True
        self.quoted = True
        i = self.i + 1
        buf: list[str] = []
        while i < n:
            c = s[i]
            if c == '"':
                i += 1
                break
            if c == "\\" and i + 1 < n:
                nxt = s[i + 1]
                if nxt in '$`"\\':
                    buf.append(nxt)
                    i += 2
                    continue
                if nxt == "\n":
                    i += 2
                    continue
                buf.append("\\")
                i += 1
                continue
            if c == "$":
                self.parts.append("".join(buf))
                buf = []
                self.i = i
                self._read_dollar(quoted=True)
                i = self.i
                continue
            if c == "`":
                self.parts.append("".join(buf))
                buf = []
                inner, i = _read_backtick(s, i + 1)
                self._add_sub(inner, quoted=True)
                continue
            buf.append(c)
            i += 1
        self.parts.append("".join(buf))
        self.i = i

    def _read_redirect(self) -> None:
        s = self.s
        fd_prefix = self.active and not self.quoted and "".join(self.parts).isdigit()
        if fd_prefix:
            self._reset()
        else:
            self._flush()
        for op in _REDIR_OPS:
            if s.startswith(op, self.i):
                break
        self.i += len(op)
        redir = _Redir(op)
        self.out.append(redir)
        if op in ("<<", "<<-"):
            self.expect_delim = (redir, op == "<<-")

    def run(self) -> list[_Word | _Op | _Redir]:
        s, n = self.s, self.n
        while self.i < n:
            c = s[self.i]
            if c in " \t\r\f\v":
                self._flush()
                self.i += 1
            elif c == "\n":
                self._op(";")
                self.i += 1
                if self.heredocs:
                    self._read_heredocs()
            elif c == "#" and not self.active:
                j = s.find("\n", self.i)
                self.i = n if j == -1 else j
            elif c == "\\":
                if self.i + 1 < n:
                    if s[self.i + 1] != "\n":
                        self._add(s[self.i + 1], quoted=True)
                    self.i += 2
                else:
                    self.i += 1
            elif c == "'":
                j = s.find("'", self.i + 1)
                j = n if j == -1 else j
                self._add(s[self.i + 1 : j], quoted=True)
                self.i = j + 1
            elif c == '"':
                self._read_dquote()
            elif c == "`":
                inner, self.i = _read_backtick(s, self.i + 1)
                self._add_sub(inner, quoted=False)
            elif c == "$":
                self._read_dollar(quoted=False)
            elif c in "<>" and self.i + 1 < n and s[self.i + 1] == "(":
                inner, self.i = _read_balanced(s, self.i + 2)
                self.active = True
                self.procs.append(inner)
                self.parts.append("/dev/fd/63")
            elif c in "<>":
                self._read_redirect()
            elif c == "&":
                if s.startswith("&&", self.i):
                    self._op("&&")
                    self.i += 2
                elif s.startswith("&>", self.i):
                    self._flush()
                    op = "&>>" if s.startswith("&>>", self.i) else "&>"
                    self.out.append(_Redir(op))
                    self.i += len(op)
                else:
                    self._op("&")
                    self.i += 1
            elif c == "|":
                self._op("||" if s.startswith("||", self.i) else "|")
                self.i += 2 if s.startswith(("||", "|&"), self.i) else 1
            elif c == ";":
                self._op(";")
                self.i += 3 if s.startswith(";;&", self.i) else 2 if s.startswith((";;", ";&"), self.i) else 1
            elif c in "()":
                self._op(c)
                self.i += 1
            else:
                self._add(c)
                self.i += 1
        self._flush()
        return self.out


def _parse(tokens: list[_Word | _Op | _Redir]) -> list[list[_Simple]]:
    """Tokens -> pipelines -> simple commands."""
    pipelines: list[list[_Simple]] = []
    pipe: list[_Simple] = []
    cur = _Simple()
    pending: _Redir | None = None
    for tok in tokens:
        if isinstance(tok, _Word):
            if pending is not None:
                pending.target = tok
                if pending.op == "<<<":
                    pending.body = tok.text
                pending = None
            else:
                cur.words.append(tok)
        elif isinstance(tok, _Redir):
            cur.redirects.append(tok)
            pending = tok
        else:
            pending = None
            if cur.words or cur.redirects:
                pipe.append(cur)
            cur = _Simple()
            if tok.op != "|" and pipe:
                pipelines.append(pipe)
                pipe = []
    if cur.words or cur.redirects:
        pipe.append(cur)
    if pipe:
        pipelines.append(pipe)
    return pipelines


def _lex_parse(text: str, depth: int = 0) -> list[list[_Simple]]:
    return _parse(_Lexer(text, depth).run())


def _printf_literal(args: list[str]) -> str | None:
    if not args:
        return None
    fmt, rest = args[0], list(args[1:])
    out = _decode_escapes(fmt).replace("%%", "\x01")

    def repl(_m: re.Match[str]) -> str:
        return rest.pop(0) if rest else ""

    out = re.sub(r"%[-+ #0-9.]*[sbdiqc]", repl, out).replace("\x01", "%")
    return out


def _echo_literal(args: list[str]) -> str:
    i = 0
    escapes = False
    while i < len(args) and re.fullmatch(r"-[neE]+", args[i]):
        escapes = escapes or "e" in args[i]
        i += 1
    text = " ".join(args[i:])
    return _decode_escapes(text) if escapes else text


def _is_literal(word: _Word) -> bool:
    """No process substitution and no command substitution left unresolved in the word."""
    return not word.procs and not (word.subs and "$(" in word.text)


def _substitution_literal(inner: str, depth: int) -> str | None:
    """The output of `$(inner)` when it is knowable without running anything: echo/printf of literal text,
    or `which X` / `command -v X` (-> X). Long inner texts are not worth resolving (and would be re-lexed
    at every nesting level)."""
    if depth > _MAX_DEPTH or len(inner) > 4096:
        return None
    try:
        pipes = _lex_parse(inner, depth)
    except RecursionError:
        return None
    if len(pipes) != 1 or len(pipes[0]) != 1:
        return None
    simple = pipes[0][0]
    if simple.redirects or not simple.words or not all(_is_literal(w) for w in simple.words):
        return None
    texts = [w.text for w in simple.words]
    name = posixpath.basename(texts[0])
    if name == "echo":
        return _echo_literal(texts[1:])
    if name == "printf":
        return _printf_literal(texts[1:])
    if (
        name in ("which", "type", "command")
        and texts[-1:]
        and not texts[-1].startswith("-")
        and len(texts) > 1
    ):
        return texts[-1]
    return None


# --------------------------------------------------------------------------------------------------------
# Unwrapping: from the words of a simple command to the command that really runs
# --------------------------------------------------------------------------------------------------------


_ASSIGN_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_KEYWORDS = frozenset(
    {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "fi", "done", "esac"}
)
# wrapper -> (short options taking an argument, long options taking an argument)
_WRAPPERS: dict[str, tuple[str, frozenset[str]]] = {
    "command": ("", frozenset()),
    "builtin": ("", frozenset()),
    "exec": ("a", frozenset()),
    "nohup": ("", frozenset()),
    "time": ("fo", frozenset({"--format", "--output"})),
    "nice": ("n", frozenset({"--adjustment"})),
    "ionice": ("cnp", frozenset({"--class", "--classdata", "--pid"})),
    "setsid": ("", frozenset()),
    "stdbuf": ("ioe", frozenset({"--input", "--output", "--error"})),
    "timeout": ("sk", frozenset({"--signal", "--kill-after"})),
    "env": ("uC", frozenset({"--unset", "--chdir"})),
    "sudo": (
        "ugpCDrtTUhR",
        _words(
            """
            --user --group --host --prompt --close-from --chdir --role --type --command-timeout --other-user
            --chroot
            """
        ),
    ),
    "doas": ("uC", frozenset()),
    "pkexec": ("", frozenset({"--user"})),
    "xargs": (
        "IadELnPs",
        _words(
            """
            --arg-file --delimiter --max-args --max-procs --max-chars --max-lines --process-slot-var
            --replace --eof
            """
        ),
    ),
    "busybox": ("", frozenset()),
    "watch": ("n", frozenset({"--interval"})),
    "unbuffer": ("", frozenset()),
    "chronic": ("", frozenset()),
    "ltrace": ("o", frozenset()),
    "strace": ("oeps", frozenset()),
}
_PRIV = frozenset({"sudo", "doas", "pkexec"})

# command names worth resolving a globbed command word (`/bin/r?`) to
_DANGEROUS_NAMES = sorted(
    _words(
        "rm dd mkfs shred shutdown reboot poweroff halt kill killall pkill chmod chown sudo bash sh find git"
    )
)


def _skip_opts(words: list[_Word], i: int, with_arg: str, long_with_arg: frozenset[str]) -> int:
    while i < len(words):
        t = words[i].text
        if t == "--":
            return i + 1
        if t.startswith("--"):
            i += 2 if ("=" not in t and t in long_with_arg) else 1
            continue
        if t.startswith("-") and len(t) > 1:
            consumed = 1
            for k, ch in enumerate(t[1:]):
                if ch in with_arg:
                    if k == len(t) - 2:
                        consumed = 2
                    break
            i += consumed
            continue
        return i
    return i


@dataclass
class _Cmd:
    argv: list[_Word]
    redirects: list[_Redir]
    sudo: bool = False
    xargs: bool = False

    @property
    def path(self) -> str:
        return self.argv[0].text if self.argv else ""

    @property
    def name(self) -> str:
        return posixpath.basename(self.path.rstrip("/")) if self.argv else ""

    @property
    def args(self) -> list[str]:
        return [w.text for w in self.argv[1:]]

    @property
    def bodies(self) -> list[str]:
        return [r.body for r in self.redirects if r.op in ("<<", "<<-", "<<<") and r.body is not None]


def _brace_expand_head(words: list[_Word]) -> list[_Word]:
    if words and not words[0].quoted:
        m = re.fullmatch(r"\{([^{}]*,[^{}]*)\}", words[0].text)
        if m:
            head = [_Word(p) for p in m.group(1).split(",") if p]
            if head:
                head[0].subs, head[0].procs = words[0].subs, words[0].procs
                return head + words[1:]
    return words


def _unwrap(words: list[_Word], redirects: list[_Redir], depth: int) -> _Cmd:
    words = _brace_expand_head(list(words))
    cmd = _Cmd([], redirects)
    for _ in range(32):
        while words and _ASSIGN_RE.match(words[0].text):
            words = words[1:]
        if not words:
            break
        name = posixpath.basename(words[0].text)
        if words[0].text in _KEYWORDS:
            words = words[1:]
            continue
        if name not in _WRAPPERS:
            break
        with_arg, long_with_arg = _WRAPPERS[name]
        if name in _PRIV:
            cmd.sudo = True
        if name == "xargs":
            cmd.xargs = True
        rest = words[1:]
        if name == "env":
            # env -S 'cmd args' splits its argument into words
            out: list[_Word] = []
            i = 0
            while i < len(rest):
                t = rest[i].text
                if t in ("-S", "--split-string") and i + 1 < len(rest):
                    out.extend(_words_of(rest[i + 1].text, depth))
                    i += 2
                    continue
                if t.startswith("-S") and len(t) > 2:
                    out.extend(_words_of(t[2:], depth))
                    i += 1
                    continue
                if t.startswith("--split-string="):
                    out.extend(_words_of(t.split("=", 1)[1], depth))
                    i += 1
                    continue
                out.append(rest[i])
                i += 1
            rest = out
            rest = [w for w in rest if w.text != "-"]
        i = _skip_opts(rest, 0, with_arg, long_with_arg)
        if name == "timeout" and i < len(rest):
            i += 1  # the duration
        words = rest[i:]
    if words:
        head = words[0].text
        base = posixpath.basename(head)
        if any(ch in base for ch in "*?[") and not words[0].quoted:
            for cand in _DANGEROUS_NAMES:
                if fnmatch.fnmatchcase(cand, base):
                    words = [_Word(cand, words[0].subs, words[0].procs), *words[1:]]
                    break
    cmd.argv = words
    return cmd


def _words_of(text: str, depth: int) -> list[_Word]:
    pipes = _lex_parse(text, depth + 1)
    return list(pipes[0][0].words) if pipes and pipes[0] else []


# --------------------------------------------------------------------------------------------------------
# Path classification
# --------------------------------------------------------------------------------------------------------

_HOME = "/home/\x02home"  # stands for ~ / $HOME, so `~/..` normalizes to /home
_SYSTEM_DIRS = _words(
    """
    /etc /usr /bin /sbin /lib /boot /var /sys /proc /dev /opt /root /home /srv /run /snap /usr/bin /usr/sbin
    /usr/lib /usr/local /usr/share /usr/include /var/lib /System /Library /Applications /Users /private
    /private/etc /private/var
    """
)
_SAFE_DEVICES = re.compile(
    r"^/dev/(null|zero|full|u?random|stdin|stdout|stderr|tty\w*|pts(/.*)?|fd(/.*)?|shm(/.*)?|ptmx|console|"
    r"tcp/.*|udp/.*|log|kmsg)$"
)
_ENV_EXEMPT = frozenset({"example", "sample", "template", "dist", "tmpl", "defaults", "default", "schema"})
_SHELL_RC = _words(
    """
    .bashrc .bash_profile .bash_login .bash_logout .profile .zshrc .zprofile .zshenv .zlogin .zlogout .kshrc
    .cshrc .tcshrc .inputrc config.fish
    """
)
_SSH_KEY_RE = re.compile(r"^id_(rsa|dsa|ecdsa|ed25519)(_sk)?([._-].*)?$")


def _expand_home(p: str) -> str:
    for prefix in ("${HOME}", "$HOME"):
        if p == prefix or p.startswith(prefix + "/"):
            return _HOME + p[len(prefix) :]
    if p == "~" or p.startswith("~/"):
        return _HOME + p[1:]
    m = re.match(r"^~([A-Za-z0-9_.-]+)(/.*)?$", p)
    if m:
        return ("/root" if m.group(1) == "root" else "/home/" + m.group(1)) + (m.group(2) or "")
    return p


def _norm_abs(p: str) -> str | None:
    p = _expand_home(p.strip())
    if not p.startswith("/"):
        return None
    p = re.sub(r"/+", "/", p)
    return posixpath.normpath(p)


def _real_home() -> str:
    try:
        home = os.path.realpath(os.path.expanduser("~"))
    except Exception:
        return ""
    return home if home not in ("/", "") else ""


def _delete_target_key(p: str) -> str | None:
    """The hard-block key for deleting path `p` recursively, if it is /, a system dir, or a home dir."""
    norm = _norm_abs(p)
    if norm is None:
        return None
    while norm.endswith(("/*", "/.*")) or norm in ("/*", "/.*"):
        norm = norm.rsplit("/", 1)[0] or "/"
    if norm == "/":
        return "delete_root"
    if (
        norm == _HOME
        or norm == "/root"
        or re.fullmatch(r"/home/[^/]+", norm)
        or re.fullmatch(r"/Users/[^/]+", norm)
        or (norm == _real_home())
    ):
        return "delete_home"
    if norm in _SYSTEM_DIRS or re.fullmatch(r"/lib[^/]*", norm):
        return "delete_system_dir"
    return None


def _is_block_device(p: str) -> bool:
    norm = _norm_abs(p)
    return norm is not None and norm.startswith("/dev/") and not _SAFE_DEVICES.match(norm)


def _sensitive_write_key(p: str) -> str | None:
    """The pattern key for writing to path `p`, if it is a sensitive file."""
    if not p:
        return None
    raw = _expand_home(p.strip())
    parts = [x for x in re.split(r"/+", raw) if x]
    if not parts:
        return None
    base = parts[-1]
    if base == ".env" or (base.startswith(".env.") and not (_ENV_EXEMPT & set(base.lower().split(".")[2:]))):
        return "env_file_write"
    if ".ssh" in parts or base in ("authorized_keys", "authorized_keys2") or _SSH_KEY_RE.match(base):
        return "ssh_write"
    if base in _SHELL_RC:
        return "shell_rc_write"
    if (
        base in (".netrc", ".git-credentials", ".pgpass", ".pypirc", ".npmrc")
        or (".aws" in parts and base in ("credentials", "config"))
        or (".kube" in parts and base == "config")
        or (".docker" in parts and base == "config.json")
        or (".gnupg" in parts)
    ):
        return "credentials_write"
    if ".hermes" in parts:
        return "hermes_config_write"
    norm = _norm_abs(raw)
    if norm and (norm == "/etc" or norm.startswith(("/etc/", "/private/etc/"))):
        return "system_config_write"
    return None


def _classify_write(target: str, col: _Collector, *, dd: bool = False) -> None:
    if not target or target.isdigit() or target == "-":
        return
    if _is_block_device(target):
        col.add("dd_device" if dd else "device_write")
        return
    norm = _norm_abs(target)
    if norm == "/proc/sysrq-trigger":
        col.add("shutdown")
        return
    key = _sensitive_write_key(target)
    if key:
        col.add(key)


# --------------------------------------------------------------------------------------------------------
# Analysis
# --------------------------------------------------------------------------------------------------------

_SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "rbash", "yash"}
)
_INTERP_RE = re.compile(
    r"^(python[0-9.]*|pypy[0-9.]*|perl[0-9.]*|ruby[0-9.]*|node|nodejs|php[0-9.]*|lua[0-9.]*)$"
)
_DOWNLOADERS = frozenset(
    {"curl", "wget", "fetch", "http", "https", "httpie", "xh", "aria2c", "lwp-request", "GET", "nc", "ncat"}
)
_SQL_CLIENTS = _words(
    """
    psql mysql mariadb sqlite3 sqlite duckdb clickhouse-client sqlcmd pgcli mycli litecli usql cockroach
    snowsql
    """
)
_SERVICE_STOP_VERBS = _words(
    """
    stop disable mask restart kill isolate try-restart reload-or-restart force-reload
    """
)
_FORKBOMB_BODY = re.compile(r"\(\)\{([^{}]*)\}")
_FORKBOMB_NAME = re.compile(r"([\w:.]{1,64})$")
_FORKBOMB_MISC = re.compile(
    r"%0\|%0|fork\s*while\s*fork|while\s*\(?\s*(true|1)\s*\)?\s*:?\s*(os\.)?fork\(\)|"
    r"for\s*\(\s*;\s*;\s*\)\s*fork\(\)",
    re.I,
)
_CODE_EXEC_RE = re.compile(
    r"\b(os\.system|os\.popen|os\.exec\w*|subprocess|popen|system|exec|execSync|spawnSync|spawn|execFile|"
    r"shell_exec|passthru|proc_open|Popen|check_call|check_output|getoutput|getstatusoutput)\s*\(|`|%x\{|\bqx"
)
_CODE_RMTREE_RE = re.compile(r"\b(rmtree|rm_rf|rm_r|remove_dir_all|rmSync|rimraf|remove_tree)\b")
_CODE_RMTREE_PATH_RE = re.compile(r"\b(?:rmtree|rm_rf|remove_tree)\s*\(\s*['\"]([^'\"]+)['\"]")
_STRING_LIT_RE = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"", re.S)
_LIST_LIT_RE = re.compile(r"\[([^\[\]]*)\]")


def _check_fork_bomb(text: str, col: _Collector) -> None:
    compact = re.sub(r"\s+", "", text)
    for m in _FORKBOMB_BODY.finditer(compact):
        head = _FORKBOMB_NAME.search(compact, max(0, m.start() - 64), m.start())
        if head is None:
            continue
        name, body = head.group(1).removeprefix("function"), m.group(1)
        if not name:
            continue
        calls = len(re.findall(r"(?<![\w:.])" + re.escape(name) + r"(?![\w:.])", body))
        if calls >= 2 and ("&" in body or "|" in body):
            col.add("fork_bomb")
            return
    if _FORKBOMB_MISC.search(text):
        col.add("fork_bomb")


def _check_sql(text: str, col: _Collector) -> None:
    for stmt in text.split(";"):
        if re.search(r"\bdrop\s+(table|database|schema)\b", stmt, re.I):
            col.add("sql_drop")
        if re.search(r"\btruncate\s+(table\s+)?[`\"\[\w]", stmt, re.I):
            col.add("sql_truncate")
        m = re.search(r"\bdelete\s+from\s+\S+", stmt, re.I)
        if m and not re.search(r"\bwhere\b", stmt[m.end() :], re.I):
            col.add("sql_delete_all")


def _is_decoder(cmd: _Cmd) -> bool:
    name, args = cmd.name, cmd.args
    flags = " ".join(args)
    if name == "base64" or name == "base32" or name == "basenc":
        return any(a in ("-d", "--decode", "-D") or re.fullmatch(r"-[a-zA-Z]*d[a-zA-Z]*", a) for a in args)
    if name == "xxd":
        return any(re.fullmatch(r"-[a-z]*r[a-z]*", a) for a in args) or "-revert" in args
    if name == "openssl":
        return bool(args) and (args[0] in ("base64", "enc") and "-d" in args)
    if name in ("uudecode", "gunzip", "zcat", "bzcat", "xzcat", "rev", "tr", "unzstd", "zstdcat"):
        return True
    if name in ("gzip", "bzip2", "xz", "zstd"):
        return bool(re.search(r"(^|\s)(-[a-z]*d[a-z]*|--decompress)\b", flags))
    return False


@functools.lru_cache(maxsize=512)
def _inner_kinds(inner: str, depth: int = 0) -> frozenset[str]:
    """What an (inner) command produces: 'download' if it fetches from the network, 'decode' if it decodes."""
    kinds: set[str] = set()
    if depth > _MAX_DEPTH:
        return frozenset()
    try:
        pipes = _lex_parse(inner, depth)
    except RecursionError:
        return frozenset()
    for pipe in pipes:
        for simple in pipe:
            cmd = _unwrap(simple.words, simple.redirects, depth)
            if cmd.name in _DOWNLOADERS:
                kinds.add("download")
            elif cmd.argv and _is_decoder(cmd):
                kinds.add("decode")
            for w in simple.words:
                for sub in w.subs + w.procs:
                    kinds |= _inner_kinds(sub, depth + 1)
    return frozenset(kinds)


def _flag_exec_of(words: list[_Word], col: _Collector) -> None:
    """`words` are executed as code: flag substitutions in them that download or decode."""
    for w in words:
        for sub in w.subs + w.procs:
            kinds = _inner_kinds(sub)
            if "download" in kinds:
                col.add("remote_exec")
            elif "decode" in kinds:
                col.add("decoded_exec")


def _shell_mode(cmd: _Cmd) -> tuple[str, _Word | None]:
    """('c', command-string word) | ('script', script word) | ('stdin', None)."""
    args = cmd.argv[1:]
    has_c = has_s = False
    i = 0
    while i < len(args):
        t = args[i].text
        if t == "--":
            i += 1
            break
        if t == "-":
            return ("stdin", None)
        if t in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if t.startswith("--"):
            i += 1
            continue
        if t[:1] in "-+" and len(t) > 1:
            if t[0] == "-" and "c" in t[1:]:
                has_c = True
            if t[0] == "-" and "s" in t[1:]:
                has_s = True
            i += 1
            continue
        break
    rest = args[i:]
    if has_c:
        return ("c", rest[0] if rest else None)
    if has_s or not rest:
        return ("stdin", None)
    return ("script", rest[0])


def _interp_mode(cmd: _Cmd) -> tuple[str, _Word | None, bool, list[str]]:
    """(mode, word, in_place, files) for python/perl/ruby/node/php: mode 'code' (-c/-e), 'script', 'module',
    'stdin'. in_place/files: perl/ruby -i and the files they edit."""
    name = cmd.name
    args = cmd.argv[1:]
    perlish = name.startswith(("perl", "ruby"))
    code_flags = (
        {"-c"} if name.startswith(("python", "pypy")) else {"-e", "-E", "-r", "-p", "--eval", "--print"}
    )
    in_place = False
    code: _Word | None = None
    i = 0
    while i < len(args):
        t = args[i].text
        if t == "--":
            i += 1
            break
        if t == "-":
            return ("stdin", None, in_place, [])
        if t in code_flags:
            code = args[i + 1] if i + 1 < len(args) else None
            i += 2
            continue
        if name.startswith(("python", "pypy")) and t == "-m":
            return ("module", args[i + 1] if i + 1 < len(args) else None, False, [])
        if name.startswith(("python", "pypy")) and t in ("-W", "-X", "-Q"):
            i += 2
            continue
        if t.startswith("-") and len(t) > 1:
            if perlish and not t.startswith("--"):
                body = t[1:]
                for k, ch in enumerate(body):
                    if ch == "i":
                        in_place = True
                        break
                    if ch in "eE":
                        if k == len(body) - 1 and i + 1 < len(args):
                            code = args[i + 1]
                            i += 1
                        break
                    if ch in "IMmxl0C":
                        break
            elif name.startswith(("python", "pypy")) and t.startswith("-c") and len(t) > 2:
                code = _Word(t[2:])
            i += 1
            continue
        if code is None:
            return ("script", args[i], in_place, [w.text for w in args[i + 1 :]])
        break
    files = [w.text for w in args[i:]]
    if code is not None:
        return ("code", code, in_place, files)
    return ("stdin", None, in_place, files)


def _check_code(code: str, col: _Collector, depth: int) -> None:
    """Inline interpreter code (python -c, perl -e, node -e, heredoc'd script)."""
    if depth > _MAX_DEPTH:
        return
    _check_sql(code, col)
    if _CODE_RMTREE_RE.search(code):
        hard = [_delete_target_key(p) for p in _CODE_RMTREE_PATH_RE.findall(code)]
        hard_keys = [k for k in hard if k]
        if hard_keys:
            col.add(hard_keys[0])
        else:
            col.add("recursive_delete")
    if re.search(r"\bos\.fork\(\)|\bfork\b", code) and re.search(r"\bwhile\b|\bfor\b", code):
        _check_fork_bomb(code, col)
    if _CODE_EXEC_RE.search(code):
        lits = [a or b for a, b in _STRING_LIT_RE.findall(code)]
        for lit in lits:
            if lit.strip():
                _analyze(lit, col, depth + 1, {})
        for m in _LIST_LIT_RE.finditer(code):
            items = [a or b for a, b in _STRING_LIT_RE.findall(m.group(1))]
            if len(items) > 1:
                _analyze(" ".join(items), col, depth + 1, {})
        for m in re.finditer(r"`([^`]*)`", code):
            _analyze(m.group(1), col, depth + 1, {})


def _is_stdin_exec(cmd: _Cmd) -> str | None:
    """'shell' or 'interp' when cmd reads its script from stdin."""
    if cmd.name in _SHELLS and _shell_mode(cmd)[0] == "stdin":
        return "shell"
    if _INTERP_RE.match(cmd.name) and _interp_mode(cmd)[0] == "stdin":
        return "interp"
    return None


# ---- per-command checks ----------------------------------------------------------------------------------


def _long_is(opt: str, full: str) -> bool:
    """GNU long options accept unambiguous prefixes: --recur == --recursive."""
    name = opt[2:].split("=", 1)[0]
    return len(name) >= 3 and full.startswith(name)


def _check_rm(cmd: _Cmd, col: _Collector) -> None:
    recursive = force = False
    operands: list[str] = []
    end = False
    for a in cmd.args:
        if not end and a == "--":
            end = True
        elif not end and a.startswith("--"):
            recursive = recursive or _long_is(a, "recursive")
            force = force or _long_is(a, "force")
        elif not end and a.startswith("-") and len(a) > 1:
            recursive = recursive or "r" in a or "R" in a
            force = force or "f" in a[1:]
        else:
            operands.append(a)
    if recursive:
        for op in operands:
            key = _delete_target_key(op)
            if key:
                col.add(key)
                return
        col.add("recursive_delete")
    elif force:
        col.add("force_delete")
    if cmd.xargs:
        col.add("xargs_rm")


def _check_windows_delete(cmd: _Cmd, col: _Collector) -> None:
    lowered = [a.lower() for a in cmd.args]
    if any(a == "/s" or a.startswith("-rec") for a in lowered):
        col.add("recursive_delete")


def _check_find(cmd: _Cmd, col: _Collector, depth: int) -> None:
    args = cmd.args
    i = 0
    while i < len(args) and args[i] in ("-H", "-L", "-P"):
        i += 1
    starts: list[str] = []
    while i < len(args) and not args[i].startswith(("-", "(", "!")):
        starts.append(args[i])
        i += 1
    hard = next((k for k in (_delete_target_key(s) for s in starts) if k), None)
    if "-delete" in args:
        col.add(hard or "find_delete")
    for j, a in enumerate(args):
        if a in ("-exec", "-execdir", "-ok", "-okdir"):
            sub: list[str] = []
            for b in args[j + 1 :]:
                if b in (";", "+"):
                    break
                sub.append(b)
            if not sub:
                continue
            if posixpath.basename(sub[0]) in ("rm", "shred", "unlink"):
                col.add(hard or "find_exec_rm")
            inner = _unwrap([_Word(x) for x in sub], [], depth)
            _check_cmd(inner, col, depth + 1, set())


def _chmod_world_writable(mode: str) -> bool:
    if re.fullmatch(r"[0-7]{1,5}", mode):
        return bool(int(mode[-1]) & 2)
    for clause in mode.split(","):
        m = re.match(r"^([ugoa]*)(.*)$", clause)
        if not m:
            continue
        who, rest = m.group(1), m.group(2)
        for op, perms in re.findall(r"([-+=])([rwxXstugo]*)", rest):
            if op in "+=" and "w" in perms and ("o" in who or "a" in who):
                return True
    return False


def _chmod_adds_exec(mode: str) -> bool:
    if re.fullmatch(r"[0-7]{1,5}", mode):
        return any(int(d) & 1 for d in mode[-3:])
    return bool(re.search(r"[+=][rwXst]*x", mode))


def _check_chmod(cmd: _Cmd, col: _Collector, chmod_x: set[str]) -> None:
    mode: str | None = None
    files: list[str] = []
    for a in cmd.args:
        if a.startswith("--"):
            continue
        if mode is None and a.startswith("-") and len(a) > 1 and set(a[1:]) <= set("cfvR"):
            continue
        if mode is None:
            mode = a
        else:
            files.append(a)
    if mode is None:
        return
    if _chmod_world_writable(mode):
        col.add("world_writable")
    if _chmod_adds_exec(mode):
        chmod_x.update(_exec_norm(f) for f in files)


def _exec_norm(p: str) -> str:
    p = _expand_home(p)
    return posixpath.normpath(p) if p else p


def _check_chown(cmd: _Cmd, col: _Collector) -> None:
    recursive = False
    owner: str | None = None
    for a in cmd.args:
        if a.startswith("--"):
            recursive = recursive or _long_is(a, "recursive")
        elif a.startswith("-") and len(a) > 1:
            recursive = recursive or "R" in a
        elif owner is None:
            owner = a
    if recursive and owner and re.match(r"^(root|0)([:.]|$)", owner):
        col.add("chown_root")


def _check_kill(cmd: _Cmd, col: _Collector) -> None:
    args = cmd.args
    sig: str | None = None
    pids: list[str] = []
    end = False
    i = 0
    while i < len(args):
        a = args[i]
        if end:
            pids.append(a)
        elif a == "--":
            end = True
        elif a in ("-s", "--signal", "-n"):
            sig = args[i + 1] if i + 1 < len(args) else sig
            i += 1
        elif a.startswith("--signal="):
            sig = a.split("=", 1)[1]
        elif a in ("-l", "-L", "--list", "--table"):
            return
        elif a.startswith("-") and len(a) > 1 and sig is None and not pids:
            sig = a[1:]
        else:
            pids.append(a)
        i += 1
    if "-1" in pids or (sig == "1" and not pids):
        col.add("kill_all_processes")
        return
    if sig is not None:
        s = sig.upper()
        s = s.removeprefix("SIG")
        if s in ("9", "KILL"):
            col.add("kill_force")


def _check_git(cmd: _Cmd, col: _Collector) -> None:
    args = cmd.args
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"):
            i += 2
            continue
        if a.startswith("-"):
            i += 1
            continue
        break
    if i >= len(args):
        return
    sub, rest = args[i], args[i + 1 :]
    shorts = "".join(a[1:] for a in rest if a.startswith("-") and not a.startswith("--"))
    if sub == "reset" and "--hard" in rest:
        col.add("git_reset_hard")
    elif sub == "push":
        if (
            any(a in ("--force", "--force-if-includes") or a.startswith("--force-with-lease") for a in rest)
            or "f" in shorts
            or any(a.startswith("+") and len(a) > 1 for a in rest)
            or "--mirror" in rest
        ):
            col.add("git_force_push")
    elif sub == "clean":
        dry = "n" in shorts or "--dry-run" in rest
        if not dry and ("f" in shorts or "--force" in rest):
            col.add("git_clean")
    elif sub == "branch" and (
        "D" in shorts or (("d" in shorts or "--delete" in rest) and ("f" in shorts or "--force" in rest))
    ):
        col.add("git_branch_delete")


def _check_dd(cmd: _Cmd, col: _Collector) -> None:
    before = set(col.matches)
    for a in cmd.args:
        if a.startswith("of="):
            _classify_write(a[3:], col, dd=True)
    if "dd_device" not in col.matches or "dd_device" in before:
        col.add("dd")


def _check_systemctl(cmd: _Cmd, col: _Collector) -> None:
    args = cmd.args
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-H", "-M", "--host", "--machine", "-s", "--signal", "-t", "--type") else 1
    if i >= len(args):
        return
    verb = args[i]
    if verb in ("poweroff", "reboot", "halt", "kexec", "emergency", "rescue", "soft-reboot"):
        col.add("shutdown")
    elif verb in _SERVICE_STOP_VERBS:
        col.add("service_stop")


def _check_sed(cmd: _Cmd, col: _Collector) -> None:
    args = cmd.args
    in_place = script_given = False
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            operands += args[i + 1 :]
            break
        if a.startswith("--"):
            if a.startswith("--in-place"):
                in_place = True
            elif a in ("--expression", "--file"):
                script_given = True
                i += 1
            elif a.startswith(("--expression=", "--file=")):
                script_given = True
            i += 1
            continue
        if a.startswith("-") and len(a) > 1:
            body = a[1:]
            for k, ch in enumerate(body):
                if ch == "i":
                    in_place = True
                    break
                if ch in "ef":
                    script_given = True
                    if k == len(body) - 1:
                        i += 1
                    break
                if ch == "l":
                    break
            i += 1
            continue
        operands.append(a)
        i += 1
    if in_place:
        for f in operands if script_given else operands[1:]:
            _classify_write(f, col)


def _copy_dest(args: list[str], with_arg: str) -> str | None:
    operands: list[str] = []
    i = 0
    end = False
    while i < len(args):
        a = args[i]
        if not end and a == "--":
            end = True
        elif not end and a.startswith("--target-directory="):
            return a.split("=", 1)[1]
        elif not end and a == "--target-directory":
            return args[i + 1] if i + 1 < len(args) else None
        elif not end and a.startswith("--"):
            pass
        elif not end and a.startswith("-") and len(a) > 1:
            body = a[1:]
            for k, ch in enumerate(body):
                if ch == "t":
                    return body[k + 1 :] or (args[i + 1] if i + 1 < len(args) else None)
                if ch in with_arg:
                    if k == len(body) - 1:
                        i += 1
                    break
        else:
            operands.append(a)
        i += 1
    return operands[-1] if len(operands) >= 2 else None


def _write_targets(cmd: _Cmd) -> list[str]:
    """Files this command writes: redirects, tee, cp/mv/install/ln targets, truncate, curl -o, wget -O."""
    out: list[str] = []
    for r in cmd.redirects:
        if r.target is None:
            continue
        t = r.target.text
        if r.op in (">", ">>", ">|", "&>", "&>>", "<>") or (r.op == ">&" and not (t.isdigit() or t == "-")):
            out.append(t)
    name, args = cmd.name, cmd.args
    if name == "tee":
        out += [a for a in args if not a.startswith("-")]
    elif name in ("cp", "mv", "install", "ln", "rsync"):
        dest = _copy_dest(args, "SmogT" if name == "install" else "S" if name != "rsync" else "ef")
        if dest and not (name == "rsync" and ":" in dest):
            into_home = _norm_abs(dest) == _HOME
            if name in ("cp", "mv", "install", "ln") and (
                dest.endswith("/") or dest in (".", "..") or into_home
            ):
                # into a directory, the files keep their names: `cp x/.env .` writes ./.env,
                # `cp -r dots/.ssh ~` writes ~/.ssh (but `cp -r ~/.ssh backup/` only makes a copy)
                srcs = [a for a in args if not a.startswith("-") and a != dest]
                for src in srcs:
                    combined = dest.rstrip("/") + "/" + posixpath.basename(src.rstrip("/"))
                    if into_home or _sensitive_write_key(combined) == "env_file_write":
                        out.append(combined)
            out.append(dest)
    elif name == "truncate":
        skip = False
        for a in args:
            if skip:
                skip = False
            elif a in ("-s", "-r", "--size", "--reference"):
                skip = True
            elif not a.startswith("-"):
                out.append(a)
    elif name == "curl":
        for i, a in enumerate(args):
            if a == "--output" or re.fullmatch(r"-[a-zA-Z]*o", a):
                out.append(args[i + 1] if i + 1 < len(args) else "")
            elif a.startswith("--output="):
                out.append(a.split("=", 1)[1])
    elif name == "wget":
        for i, a in enumerate(args):
            if a == "--output-document" or re.fullmatch(r"-[a-zA-Z]*O", a):
                out.append(args[i + 1] if i + 1 < len(args) else "")
            elif a.startswith("--output-document="):
                out.append(a.split("=", 1)[1])
            elif re.fullmatch(r"-[a-zA-Z]*O.+", a):
                out.append(a.split("O", 1)[1])
    return out


def _check_cmd(cmd: _Cmd, col: _Collector, depth: int, chmod_x: set[str]) -> None:
    if cmd.sudo:
        col.add("sudo")
    for target in _write_targets(cmd):
        _classify_write(target, col)
    if not cmd.argv:
        return
    _flag_exec_of(cmd.argv[:1], col)  # `$(curl ...)` as the command itself
    name, args = cmd.name, cmd.args
    lname = name.lower()

    if name == "rm":
        _check_rm(cmd, col)
        _check_windows_delete(cmd, col)
    elif lname in ("remove-item", "ri", "del", "erase", "rd", "rmdir"):
        _check_windows_delete(cmd, col)
    elif name == "shred":
        col.add("shred")
        if cmd.xargs:
            col.add("xargs_rm")
    elif name == "unlink" and cmd.xargs:
        col.add("xargs_rm")
    elif name == "find":
        _check_find(cmd, col, depth)
    elif name == "chmod":
        _check_chmod(cmd, col, chmod_x)
    elif name == "chown":
        _check_chown(cmd, col)
    elif name == "kill":
        _check_kill(cmd, col)
    elif name in ("killall", "pkill"):
        col.add("kill_by_name")
    elif name == "killall5":
        col.add("kill_all_processes")
    elif name == "git":
        _check_git(cmd, col)
    elif name == "dd":
        _check_dd(cmd, col)
    elif name.startswith("mkfs") or name in ("mke2fs", "newfs"):
        col.add("mkfs")
    elif (
        name in ("shutdown", "reboot", "halt", "poweroff")
        or (name in ("init", "telinit") and args[:1] in (["0"], ["6"]))
        or (name == "loginctl" and any(a in ("poweroff", "reboot", "halt") for a in args))
    ):
        col.add("shutdown")
    elif name == "systemctl":
        _check_systemctl(cmd, col)
    elif name == "service":
        if any(a in ("stop", "restart", "force-reload", "force-stop") for a in args[1:2]):
            col.add("service_stop")
    elif (
        name == "launchctl"
        and args[:1]
        and args[0] in ("unload", "bootout", "stop", "remove", "disable", "kill")
    ) or (cmd.path.startswith("/etc/init.d/") and args[:1] and args[0] in ("stop", "restart", "force-stop")):
        col.add("service_stop")
    elif name == "sed":
        _check_sed(cmd, col)
    elif name in _SHELLS:
        mode, word = _shell_mode(cmd)
        if mode == "c" and word is not None:
            _flag_exec_of([word], col)
            _analyze(word.text, col, depth + 1, {})
        elif mode == "script" and word is not None:
            _flag_exec_of([word], col)
        elif mode == "stdin":
            for body in cmd.bodies:
                col.add("heredoc_exec")
                _analyze(body, col, depth + 1, {})
    elif name == "eval":
        _flag_exec_of(cmd.argv[1:], col)
        _analyze(" ".join(args), col, depth + 1, {})
    elif name in ("source", "."):
        _flag_exec_of(cmd.argv[1:2], col)
    elif name == "su":
        col.add("sudo")
        for i, a in enumerate(args):
            if a in ("-c", "--command") and i + 1 < len(args):
                _flag_exec_of(cmd.argv[i + 2 : i + 3], col)
                _analyze(args[i + 1], col, depth + 1, {})
            elif a.startswith("--command="):
                _analyze(a.split("=", 1)[1], col, depth + 1, {})
    elif lname in ("powershell", "pwsh", "powershell.exe", "pwsh.exe"):
        lowered = [a.lower() for a in args]
        if any(a in ("-e", "-ec", "-enc", "-encodedcommand") for a in lowered):
            col.add("decoded_exec")
        for i, a in enumerate(lowered):
            if a in ("-c", "-command") and i + 1 < len(args):
                _analyze(" ".join(args[i + 1 :]), col, depth + 1, {})
                break
    elif _INTERP_RE.match(name):
        mode, word, in_place, files = _interp_mode(cmd)
        if mode == "code" and word is not None:
            _flag_exec_of([word], col)
            _check_code(word.text, col, depth)
        elif mode == "script" and word is not None:
            _flag_exec_of([word], col)
        elif mode == "stdin":
            for body in cmd.bodies:
                _check_code(body, col, depth)
        if in_place and name.startswith(("perl", "ruby")):
            for f in files:
                _classify_write(f, col)
    elif lname in ("drop", "truncate", "delete") and (
        lname != "truncate" or not any(a.startswith("-") for a in args)
    ):
        _check_sql(" ".join(w.text for w in cmd.argv), col)

    # SQL run through a client, also behind `docker exec db psql ...`
    texts = [w.text for w in cmd.argv]
    for i, t in enumerate(texts):
        if posixpath.basename(t) in _SQL_CLIENTS:
            _check_sql(" ".join(texts[i + 1 :]), col)
            for body in cmd.bodies:
                _check_sql(body, col)
            break

    if chmod_x and name != "chmod":
        target = _exec_norm(cmd.path)
        if ("/" in cmd.path or cmd.path in chmod_x) and target in chmod_x:
            col.add("chmod_exec")


def _literal_output(cmd: _Cmd) -> str | None:
    """The text an echo/printf of literal words prints."""
    if not all(_is_literal(w) for w in cmd.argv):
        return None
    if cmd.name == "echo":
        return _echo_literal(cmd.args)
    if cmd.name == "printf":
        return _printf_literal(cmd.args)
    return None


def _check_pipeline(cmds: list[_Cmd], col: _Collector, depth: int) -> None:
    for i, cmd in enumerate(cmds):
        if i == 0 or not cmd.argv:
            continue
        prev = [c for c in cmds[:i] if c.argv]
        kind = _is_stdin_exec(cmd)
        if kind:
            if any(c.name in _DOWNLOADERS for c in prev):
                col.add("remote_exec")
            elif any(_is_decoder(c) for c in prev):
                col.add("decoded_exec")
                # echo <base64> | base64 -d | sh: look at what it decodes to
                lit = _literal_output(prev[0]) if prev else None
                if lit and any(c.name == "base64" for c in prev):
                    try:
                        decoded = base64.b64decode(lit.strip() + "===", validate=False).decode(
                            "utf-8", "replace"
                        )
                    except (binascii.Error, ValueError):
                        decoded = ""
                    if decoded and kind == "shell":
                        _analyze(decoded, col, depth + 1, {})
                    elif decoded:
                        _check_code(decoded, col, depth + 1)
            else:
                lit = _literal_output(cmds[i - 1]) if cmds[i - 1].argv else None
                if lit:
                    if kind == "shell":
                        _analyze(lit, col, depth + 1, {})
                    else:
                        _check_code(lit, col, depth + 1)
                for c in prev:
                    for body in c.bodies:
                        if kind == "shell":
                            col.add("heredoc_exec")
                            _analyze(body, col, depth + 1, {})
                        else:
                            _check_code(body, col, depth + 1)
        if any(posixpath.basename(w.text) in _SQL_CLIENTS for w in cmd.argv):
            for c in prev:
                lit = _literal_output(c)
                if lit:
                    _check_sql(lit, col)
                for body in c.bodies:
                    _check_sql(body, col)


def _substitute_vars(words: list[_Word], variables: dict[str, str]) -> list[_Word]:
    if not variables:
        return words
    pattern = re.compile(
        r"\$\{("
        + "|".join(map(re.escape, variables))
        + r")\}|\$("
        + "|".join(map(re.escape, variables))
        + r")\b"
    )
    out: list[_Word] = []
    for w in words:
        if "$" not in w.text:
            out.append(w)
            continue
        text = pattern.sub(lambda m: variables[m.group(1) or m.group(2)], w.text)
        if text != w.text and not w.quoted and len(text.split()) > 1:
            pieces = text.split()
            out.append(_Word(pieces[0], w.subs, w.procs, False))
            out.extend(_Word(p) for p in pieces[1:])
        else:
            out.append(_Word(text, w.subs, w.procs, w.quoted))
    return out


def _analyze(text: str, col: _Collector, depth: int, variables: dict[str, str]) -> None:
    if depth > _MAX_DEPTH or not text or not text.strip():
        return
    _check_fork_bomb(text, col)
    pipelines = _lex_parse(text, depth)
    variables = dict(variables)
    chmod_x: set[str] = set()
    for pipe in pipelines:
        cmds: list[_Cmd] = []
        for simple in pipe:
            words = _substitute_vars(simple.words, variables)
            for w in words + [r.target for r in simple.redirects if r.target is not None]:
                for inner in w.subs + w.procs:
                    _analyze(inner, col, depth + 1, variables)
            words = [w for w in words if w.text or w.quoted]
            col.segment(" ".join(w.text for w in words))
            # plain assignments (a=rm; export b=-rf): remember them for later $a
            assigns = (
                words[1:]
                if words and words[0].text in ("export", "declare", "local", "readonly", "typeset")
                else words
            )
            if assigns and all(_ASSIGN_RE.match(w.text) for w in assigns):
                for w in assigns:
                    k, v = w.text.split("=", 1)
                    k = k.rstrip("+")
                    if k != "IFS" and "[" not in k and (k in variables or len(variables) < 64):
                        variables[k] = v
            cmd = _unwrap(words, simple.redirects, depth)
            if cmd.argv:
                col.segment(" ".join(w.text for w in cmd.argv))
            cmds.append(cmd)
        for cmd in cmds:
            _check_cmd(cmd, col, depth, chmod_x)
        if len(cmds) > 1:
            _check_pipeline(cmds, col, depth)


def detect(command: str) -> Detection:
    """Which risky patterns `command` contains. Never raises."""
    if not command or not command.strip():
        return Detection(False, [])
    col = _Collector()
    try:
        _analyze(command, col, 0, {})
    except Exception:  # a bug in the analyser must not open the gate
        log.exception("approval: could not analyse command %r", command[:200])
        col.add("unparsed")
    hard = [m for m in col.matches.values() if m.hard]
    soft = [m for m in col.matches.values() if not m.hard]
    return Detection(bool(hard), hard + soft, tuple(col.segments))


_COMPOUND_RE = re.compile(r"[\n;&|<>`]|\$\(")


def is_compound(command: str) -> bool:
    """Chains, pipes, redirects and substitutions: such commands never match an allowlist glob."""
    return bool(_COMPOUND_RE.search(command))


# --------------------------------------------------------------------------------------------------------
# Allowlist persistence
# --------------------------------------------------------------------------------------------------------

_FILE_LOCK = threading.Lock()
ALLOWLIST_KEY = "command_allowlist"


def load_allowlist(config_path: Path | str | None) -> list[str]:
    """The `command_allowlist` rules saved in a YAML config file ([] when missing or unreadable)."""
    if config_path is None:
        return []
    path = Path(config_path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
        log.warning("approval: cannot read %s: %s", path, exc)
        return []
    if not isinstance(data, dict):
        return []
    rules = data.get(ALLOWLIST_KEY) or []
    if not isinstance(rules, list):
        return []
    return [r for r in rules if isinstance(r, str) and r.strip()]


def save_allowlist_rule(config_path: Path | str, rule: str) -> bool:
    """Append `rule` to `command_allowlist` in the YAML file: read-modify-write, other keys kept, atomic
    replace, mode 0600. Returns False (and leaves the file alone) if the file exists but is not a mapping."""
    path = Path(config_path)
    with _FILE_LOCK:
        data: dict[str, Any] = {}
        if path.exists():
            try:
                loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
            except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
                log.warning("approval: not saving the allow rule, cannot read %s: %s", path, exc)
                return False
            if loaded is None:
                loaded = {}
            if not isinstance(loaded, dict):
                log.warning("approval: not saving the allow rule, %s is not a mapping", path)
                return False
            data = loaded
        rules = data.get(ALLOWLIST_KEY)
        rules = [r for r in rules if isinstance(r, str)] if isinstance(rules, list) else []
        if rule not in rules:
            rules.append(rule)
        data[ALLOWLIST_KEY] = rules
        atomic_write_text(
            path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=False)
        )
        return True


# --------------------------------------------------------------------------------------------------------
# The gate
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    # safe | yolo | allowlist | session | once | always  (allowed)
    # blocked | denied_by_rule | deny | timeout | interrupted  (refused)
    decision: str
    reasons: list[str]
    message: str  # the text for the model when refused; "" when allowed


def _normalize_mode(mode: Any) -> str:
    if mode is False:
        return "off"
    m = str(mode or "manual").strip().lower()
    return "off" if m in ("off", "false", "no", "0") else "manual"


class ApprovalGate:
    """Decides whether a command or file write may run; asks the user (one prompt at a time) when needed."""

    def __init__(
        self,
        *,
        ui: AgentUI,
        session_id: str,
        mode: str = "manual",
        allowlist: list[str] | None = None,
        deny: list[str] | None = None,
        config_path: Path | None = None,
        store: Any = None,
        timeout: float = 300.0,
        interrupt: threading.Event | None = None,
    ) -> None:
        self.ui = ui
        self.session_id = session_id
        self.mode = _normalize_mode(mode)
        self.config_path = Path(config_path) if config_path is not None else None
        # allowlist=None with a config file: start from the rules saved there
        self.allowlist: list[str] = (
            list(allowlist) if allowlist is not None else load_allowlist(self.config_path)
        )
        self.deny: list[str] = list(deny or [])
        self.store = store
        self.timeout = timeout
        self.interrupt = interrupt
        self.yolo = False
        self._session_keys: set[str] = set()
        self._state_lock = threading.Lock()
        self._prompt_lock = threading.Lock()

    # ---- public ------------------------------------------------------------------------------------------

    def review_command(self, command: str, *, tool_name: str = "terminal") -> Verdict:
        det = detect(command)
        return self._review(
            command,
            det,
            tool_name=tool_name,
            compound=is_compound(command),
            deny_texts=[command.strip(), *det.segments],
            noun="command",
        )

    def review_write(self, path: Path, cwd: Path, *, tool_name: str) -> Verdict:
        raw = Path(os.path.expanduser(str(path)))
        base = Path(cwd)
        full = raw if raw.is_absolute() else base / raw
        resolved = _resolve(full)
        cwd_resolved = _resolve(base)
        col = _Collector()
        _classify_write(str(resolved), col)
        _classify_write(str(path), col)
        if not (resolved == cwd_resolved or resolved.is_relative_to(cwd_resolved)):
            col.add("write_outside_cwd")
        hard = [m for m in col.matches.values() if m.hard]
        soft = [m for m in col.matches.values() if not m.hard]
        det = Detection(bool(hard), hard + soft, (str(resolved),))
        command = f"write {resolved}"
        return self._review(
            command, det, tool_name=tool_name, compound=False, deny_texts=[command], noun="file write"
        )

    def approve_session(self, keys: list[str] | tuple[str, ...]) -> None:
        with self._state_lock:
            self._session_keys.update(keys)

    @property
    def session_keys(self) -> frozenset[str]:
        with self._state_lock:
            return frozenset(self._session_keys)

    # ---- internals ---------------------------------------------------------------------------------------

    def _record(self, command: str, reasons: list[str], decision: str) -> None:
        if self.store is None:
            return
        try:
            self.store.record_approval(self.session_id, command, list(reasons), decision)
        except Exception:
            log.exception("approval: could not record the decision")

    def _allowlisted(self, command: str, compound: bool) -> bool:
        text = command.strip()
        with self._state_lock:
            rules = list(self.allowlist)
        for rule in rules:
            if text == rule.strip():
                return True
            if not compound and fnmatch.fnmatchcase(text, rule.strip()):
                return True
        return False

    def _session_covers(self, keys: list[str]) -> bool:
        with self._state_lock:
            return bool(keys) and all(k in self._session_keys for k in keys)

    def _deny_rule(self, texts: list[str]) -> str | None:
        for rule in self.deny:
            for t in texts:
                if t and (t == rule or fnmatch.fnmatchcase(t, rule)):
                    return rule
        return None

    def _interrupted(self) -> bool:
        return self.interrupt is not None and self.interrupt.is_set()

    def _review(
        self,
        command: str,
        det: Detection,
        *,
        tool_name: str,
        compound: bool,
        deny_texts: list[str],
        noun: str,
    ) -> Verdict:
        reasons = det.reasons
        keys = det.keys
        what = "; ".join(reasons)

        if det.hard_blocked:
            hard = [m.reason for m in det.matches if m.hard]
            msg = (
                f"BLOCKED: This {noun} is blocked by policy ({'; '.join(hard)}). It must never be run, "
                "not even with the user's approval: do NOT retry it, rephrase it, or try to achieve the same "
                "result another way. Tell the user what you wanted to do instead."
            )
            return self._refuse(command, hard, "blocked", msg)

        rule = self._deny_rule(deny_texts)
        if rule is not None:
            why = [*reasons, f"matches the user's deny rule '{rule}'"]
            msg = (
                f"BLOCKED: This {noun} matches the user's deny rule '{rule}'. Do NOT retry it or try to "
                "achieve the same result another way; ask the user what they want instead."
            )
            return self._refuse(command, why, "denied_by_rule", msg)

        if self.yolo or self.mode == "off":
            if det.matches:
                self._record(command, reasons, "yolo")
            return Verdict(True, "yolo", reasons, "")

        if not det.matches:
            return Verdict(True, "safe", [], "")

        if self._allowlisted(command, compound):
            return self._allow(command, reasons, "allowlist")
        if self._session_covers(keys):
            return self._allow(command, reasons, "session")
        if self._interrupted():
            return self._refuse(command, reasons, "interrupted", _interrupted_message(noun, what))

        # one prompt at a time; wait in slices so an interrupt is noticed while another prompt is open
        while not self._prompt_lock.acquire(timeout=0.05):
            if self._interrupted():
                return self._refuse(command, reasons, "interrupted", _interrupted_message(noun, what))
        try:
            # the previous prompt may have approved this ("this session" / "always")
            if self._allowlisted(command, compound):
                return self._allow(command, reasons, "allowlist")
            if self._session_covers(keys):
                return self._allow(command, reasons, "session")
            if self._interrupted():
                return self._refuse(command, reasons, "interrupted", _interrupted_message(noun, what))
            request = ApprovalRequest(
                command=command,
                reasons=tuple(reasons),
                pattern_keys=tuple(keys),
                timeout=self.timeout,
                tool_name=tool_name,
                rule=command.strip(),
                allow_permanent=True,
                cancel=self.interrupt if self.interrupt is not None else threading.Event(),
            )
            decision = self._ask(request)
            if self._interrupted():
                return self._refuse(command, reasons, "interrupted", _interrupted_message(noun, what))
            if decision is ApprovalDecision.ONCE:
                return self._allow(command, reasons, "once")
            if decision is ApprovalDecision.SESSION:
                self.approve_session(keys)
                return self._allow(command, reasons, "session")
            if decision is ApprovalDecision.ALWAYS:
                self.approve_session(keys)
                rule_text = command.strip()
                with self._state_lock:
                    if rule_text not in self.allowlist:
                        self.allowlist.append(rule_text)
                if self.config_path is not None:
                    try:
                        save_allowlist_rule(self.config_path, rule_text)
                    except Exception:
                        log.exception("approval: could not save the allow rule to %s", self.config_path)
                return self._allow(command, reasons, "always")
            if decision is ApprovalDecision.TIMEOUT:
                msg = (
                    f"BLOCKED: The user did not respond to the approval request for this {noun} within "
                    f"{self.timeout:g} s ({what}). Silence is not consent: do NOT retry it, do NOT rephrase "
                    "it, and do NOT attempt the same outcome another way."
                )
                return self._refuse(command, reasons, "timeout", msg)
            msg = (
                f"BLOCKED: The user denied this {noun} ({what}). Do NOT retry it or try to achieve the same "
                "result another way; ask the user what they want instead."
            )
            return self._refuse(command, reasons, "deny", msg)
        finally:
            self._prompt_lock.release()

    def _ask(self, request: ApprovalRequest) -> ApprovalDecision:
        try:
            raw = self.ui.ask_approval(request)
            if isinstance(raw, ApprovalDecision):
                return raw
            return ApprovalDecision(str(raw).strip().lower())
        except Exception:
            log.exception("approval: the UI failed to answer; denying")
            return ApprovalDecision.DENY

    def _allow(self, command: str, reasons: list[str], decision: str) -> Verdict:
        self._record(command, reasons, decision)
        return Verdict(True, decision, reasons, "")

    def _refuse(self, command: str, reasons: list[str], decision: str, message: str) -> Verdict:
        self._record(command, reasons, decision)
        return Verdict(False, decision, reasons, message)


def _interrupted_message(noun: str, what: str) -> str:
    return (
        f"BLOCKED: The approval request for this {noun} was cancelled because the user interrupted ({what}). "
        "Do NOT retry it; wait for the user's next instruction."
    )


def _resolve(p: Path) -> Path:
    try:
        return p.resolve()
    except (OSError, RuntimeError):
        return Path(os.path.abspath(p))

"""A tolerant POSIX-shell lexer and parser: text -> pipelines of simple commands.

It reads a command the way a shell would, far enough to know which words are commands and which are data,
and never raises on bad input (an unterminated quote runs to the end). Comments are dropped; quotes and
backslash escapes are removed inside words (`r'm'`, `"rm"`, `r\\m` are all `rm`); `$'\\x72m'` is decoded;
`${IFS}` / `$IFS` act as a word break; `${name:-default}` keeps its (de-quoted) default so the expansion
step can use it. Command substitutions (`$(...)`, backticks) and process substitutions (`<(...)`, `>(...)`)
are kept as inner texts on the word for the caller to analyse; a substitution whose output is knowable
without running anything (`$(echo rm)`, `$(which rm)`) is replaced by that output. Heredoc bodies and
here-strings are attached to their redirection. Subshell depth is recorded per pipeline so `cd` can be
scoped.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

MAX_DEPTH = 8
_SPLIT = "\x00"  # a word break produced by an unquoted, resolved substitution or $IFS


@dataclass
class Word:
    text: str
    subs: tuple[str, ...] = ()  # $(...) and `...` contents
    procs: tuple[str, ...] = ()  # <(...) and >(...) contents
    quoted: bool = False

    @property
    def literal(self) -> bool:
        """Nothing in the word is left to run: no process substitution, no unresolved command
        substitution."""
        return not self.procs and not (self.subs and "$(" in self.text)


@dataclass
class Redirect:
    op: str
    target: Word | None = None
    body: str | None = None  # heredoc body or here-string
    fd: str = ""


@dataclass
class SimpleCommand:
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


@dataclass
class Pipeline:
    commands: list[SimpleCommand]
    subshell: int = 0  # how many `(` are open where it starts


@dataclass
class _Op:
    op: str


_ESCAPE_RE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|.)", re.S)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b"}
_SIMPLE_ESCAPES |= {"f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_PARAM_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])(:?[-=+?])(.*)$", re.S)
_REDIR_OPS = ("<<<", "<<-", "<<", "<>", "<&", "<", ">>", ">|", ">&", ">")


def decode_escapes(text: str) -> str:
    """Backslash escapes as `$'...'`, `echo -e` and printf decode them."""

    def repl(m: re.Match[str]) -> str:
        esc = m.group(1)
        try:
            if esc[0] in "xuU" and len(esc) > 1:
                return chr(int(esc[1:], 16))
            if esc[0] in "01234567":
                return chr(int(esc, 8))
        except (ValueError, OverflowError):
            return m.group(0)
        return _SIMPLE_ESCAPES.get(esc, "\\" + esc)

    return _ESCAPE_RE.sub(repl, text)


def _skip_quoted(s: str, i: int) -> int:
    """From a quote character at i: the index after its closing quote (tolerant)."""
    n = len(s)
    if s[i] == "'":
        j = s.find("'", i + 1)
        return n if j == -1 else j + 1
    i += 1
    while i < n and s[i] != '"':
        i += 2 if s[i] == "\\" else 1
    return i + 1


def _read_balanced(s: str, start: int, open_: str = "(", close: str = ")") -> tuple[str, int]:
    """From just inside an opening bracket: (inner text, index after the matching close). Tolerant."""
    n = len(s)
    depth = 1
    i = start
    while i < n:
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c in "'\"":
            i = _skip_quoted(s, i)
            continue
        if c == open_:
            depth += 1
        elif c == close:
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


class _Lexer:
    def __init__(self, text: str, depth: int) -> None:
        self.s = text
        self.n = len(text)
        self.i = 0
        self.depth = depth
        self.out: list[Word | _Op | Redirect] = []
        self.expect_delim: tuple[Redirect, bool] | None = None
        self.heredocs: list[tuple[Redirect, str, bool]] = []
        self.comments: list[tuple[int, int]] = []  # (start, end) of each `# ...` comment
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
        words = [Word(p, quoted=self.quoted) for p in pieces] or [Word("", quoted=self.quoted)]
        if self.subs:
            words[0].subs = tuple(self.subs)
        if self.procs:
            words[0].procs = tuple(self.procs)
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
                j = n if j == -1 else j
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
        lit = substitution_output(inner, self.depth + 1)
        if lit is None:
            self.parts.append("$(" + inner + ")")
        elif quoted:
            self.parts.append(lit)
        else:
            text = _SPLIT.join(lit.split())
            if lit[:1].isspace():
                text = _SPLIT + text
            if lit[-1:].isspace():
                text = text + _SPLIT
            self.parts.append(text)

    def _word_break(self, quoted: bool) -> None:
        """$IFS: a space inside quotes, a word break outside."""
        if quoted:
            self._add(" ")
        else:
            self._flush()

    def _read_param(self, quoted: bool) -> None:
        """`${...}`: IFS, or a parameter with an operator whose word is de-quoted for later expansion."""
        inner, end = _read_balanced(self.s, self.i + 2, "{", "}")
        self.i = end
        if inner.startswith("IFS"):
            self._word_break(quoted)
            return
        m = _PARAM_RE.match(inner)
        if m:
            words = words_of(m.group(3), self.depth + 1) if m.group(3) else []
            for w in words:  # `${x:-$(cmd)}` runs cmd when x is unset
                self.subs.extend(w.subs)
                self.procs.extend(w.procs)
            self._add("${" + m.group(1) + m.group(2) + " ".join(w.text for w in words) + "}")
            return
        self._add("${" + inner + "}")

    def _read_dollar(self, quoted: bool) -> None:
        s, n, i = self.s, self.n, self.i
        nxt = s[i + 1] if i + 1 < n else ""
        if nxt == "'" and not quoted:  # $'...' ANSI-C quoting
            j = i + 2
            while j < n and s[j] != "'":
                j += 2 if s[j] == "\\" else 1
            self._add(decode_escapes(s[i + 2 : min(j, n)]), quoted=True)
            self.i = j + 1
        elif nxt == "(":
            inner, end = _read_balanced(s, i + 2)
            self._add_sub(inner, quoted)
            self.i = end
        elif nxt == "{":
            self._read_param(quoted)
        elif s.startswith("IFS", i + 1) and not (i + 4 < n and (s[i + 4].isalnum() or s[i + 4] == "_")):
            self._word_break(quoted)
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
        fd = "".join(self.parts) if self.active and not self.quoted and "".join(self.parts).isdigit() else ""
        if fd:
            self._reset()
        else:
            self._flush()
        op = next(o for o in _REDIR_OPS if s.startswith(o, self.i))
        self.i += len(op)
        redir = Redirect(op, fd=fd)
        self.out.append(redir)
        if op in ("<<", "<<-"):
            self.expect_delim = (redir, op == "<<-")

    def run(self) -> list[Word | _Op | Redirect]:
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
                self.comments.append((self.i, n if j == -1 else j))
                self.i = n if j == -1 else j
            elif c == "\\":
                if self.i + 1 < n and s[self.i + 1] != "\n":
                    self._add(s[self.i + 1], quoted=True)
                self.i += 2
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
                    self.out.append(Redirect(op))
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


def _group(tokens: list[Word | _Op | Redirect]) -> list[Pipeline]:
    """Tokens -> pipelines -> simple commands, with the subshell depth at each pipeline's start."""
    pipelines: list[Pipeline] = []
    pipe: list[SimpleCommand] = []
    cur = SimpleCommand()
    pending: Redirect | None = None
    depth = start_depth = 0
    for tok in tokens:
        if isinstance(tok, Word):
            if pending is not None:
                pending.target = tok
                if pending.op == "<<<":
                    pending.body = tok.text
                pending = None
            else:
                cur.words.append(tok)
            continue
        if isinstance(tok, Redirect):
            cur.redirects.append(tok)
            pending = tok
            continue
        pending = None
        if cur.words or cur.redirects:
            pipe.append(cur)
        cur = SimpleCommand()
        if tok.op != "|" and pipe:
            pipelines.append(Pipeline(pipe, start_depth))
            pipe = []
        if tok.op == "(":
            depth += 1
        elif tok.op == ")":
            depth = max(0, depth - 1)
        if not pipe:
            start_depth = depth
    if cur.words or cur.redirects:
        pipe.append(cur)
    if pipe:
        pipelines.append(Pipeline(pipe, start_depth))
    return pipelines


def parse(text: str, depth: int = 0) -> list[Pipeline]:
    """The pipelines of `text`, in order. Never raises on bad quoting."""
    return _group(_Lexer(text, depth).run())


def strip_comments(text: str) -> str:
    """`text` without its shell comments (what the shell ignores, found by the same rules as `parse`)."""
    lexer = _Lexer(text, 0)
    lexer.run()
    out, at = [], 0
    for start, end in lexer.comments:
        out.append(text[at:start])
        at = end
    out.append(text[at:])
    return "".join(out).strip()


def words_of(text: str, depth: int = 0) -> list[Word]:
    """The words of the first simple command in `text` (for `env -S 'cmd args'` and parameter words)."""
    if depth > MAX_DEPTH:
        return [Word(text)]
    pipes = parse(text, depth)
    return list(pipes[0].commands[0].words) if pipes and pipes[0].commands else []


# ---- outputs knowable without running anything ----------------------------------------------------------


def printf_output(args: list[str]) -> str | None:
    if not args:
        return None
    fmt, rest = args[0], list(args[1:])
    out = decode_escapes(fmt).replace("%%", "\x01")

    def repl(_m: re.Match[str]) -> str:
        return rest.pop(0) if rest else ""

    return re.sub(r"%[-+ #0-9.]*[sbdiqc]", repl, out).replace("\x01", "%")


def echo_output(args: list[str]) -> str:
    i = 0
    escapes = False
    while i < len(args) and re.fullmatch(r"-[neE]+", args[i]):
        escapes = escapes or "e" in args[i]
        i += 1
    text = " ".join(args[i:])
    return decode_escapes(text) if escapes else text


def literal_output(words: list[Word]) -> str | None:
    """What `echo`/`printf` of literal words prints; None for anything else."""
    if not words or not all(w.literal for w in words):
        return None
    name = posixpath.basename(words[0].text)
    texts = [w.text for w in words[1:]]
    if name == "echo":
        return echo_output(texts)
    if name == "printf":
        return printf_output(texts)
    return None


def substitution_output(inner: str, depth: int) -> str | None:
    """The output of `$(inner)` when it is knowable: echo/printf of literal text, or `which X` /
    `command -v X` (-> X). Long inner texts are not worth resolving (they would be re-lexed at every
    nesting level)."""
    if depth > MAX_DEPTH or len(inner) > 4096:
        return None
    try:
        pipes = parse(inner, depth)
    except RecursionError:
        return None
    if len(pipes) != 1 or len(pipes[0].commands) != 1:
        return None
    simple = pipes[0].commands[0]
    if simple.redirects or not simple.words:
        return None
    out = literal_output(simple.words)
    if out is not None:
        return out
    texts = [w.text for w in simple.words]
    name = posixpath.basename(texts[0])
    which = name in ("which", "type", "command") and len(texts) > 1 and not texts[-1].startswith("-")
    if which and all(w.literal for w in simple.words):
        return texts[-1]
    return None

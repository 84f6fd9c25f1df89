"""Checkpoints: copies of the files a tool call is about to change, so `/rollback` can put them back.

The loop takes one snapshot per iteration, before the batch's first mutating call (`write_file`, `patch`, or
a `terminal` command that `is_destructive_command` flags), of the paths that call will touch. A snapshot
stores each target's bytes and mode (a directory recursively, up to a size cap), records targets that do
not exist yet (rollback deletes them), and, for a destructive command in a git work tree, also records a
`git stash create` commit and HEAD and copies the untracked files. A snapshot never fails the tool call: any
problem is logged and the snapshot is skipped (or the one file noted).

Layout: `<root>/<session_id>/<checkpoint_id>/manifest.json` plus `files/<n>` (dirs 0700, files 0600), root
being `$HERMES_HOME/tui/checkpoints/`. Old checkpoints are pruned by age, then by total size.

A note on git: the `git stash create` commit is not referenced by any ref (we never touch the user's stash
list), so `git gc` may prune it after `gc.pruneExpire` (two weeks by default, longer than our max age).
"""

from __future__ import annotations

import glob
import json
import logging
import os
import re
import shutil
import stat
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.messages import ToolCall

log = logging.getLogger(__name__)

MB = 1024 * 1024
MAX_TARGETS = 50
MAX_SNAPSHOT_BYTES = 50 * MB
MAX_SNAPSHOT_FILES = 20_000
MAX_UNTRACKED_FILES = 1_000
GIT_TIMEOUT = 20.0

# Tools whose calls mutate a file named by one argument: tool name -> the argument holding the path.
FILE_MUTATING_TOOLS: dict[str, str] = {"write_file": "path", "patch": "path"}
TERMINAL_TOOLS: dict[str, str] = {"terminal": "command"}


# ===================================================================== command analysis

_SEPARATORS = {";", "&&", "||", "|", "|&", "&", "(", ")", "\n", ";;"}
_REDIRECT_OPS = (">>", ">|", ">&", "<<<", "<<-", "<<", "<>", "<&", ">", "<")
_FILE_WRITE_REDIRECTS = {">", ">|", "&>"}
_APPEND_REDIRECTS = {">>", "&>>"}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "ash", "fish"}
_PREFIX_WORDS = {"nohup", "time", "command", "builtin", "exec", "then", "do", "else", "elif", "if", "while",
                 "until", "!", "{", "stdbuf", "unbuffer", "noglob"}  # fmt: skip
_GIT_DESTRUCTIVE = {"reset", "clean", "checkout", "restore", "stash", "rm", "mv"}
_GLOB_CHARS = re.compile(r"[*?\[]")
_SKIP_PREFIXES = ("/dev/", "/proc/", "/sys/")


@dataclass
class _Tok:
    text: str
    op: bool = False


@dataclass
class _Cmd:
    words: list[str]
    redirects: list[tuple[str, str]] = field(default_factory=list)


def _tokenize(text: str) -> list[_Tok]:
    """A forgiving POSIX-shell tokenizer: quotes, escapes, operators, fd redirects, comments, heredocs."""
    toks: list[_Tok] = []
    buf: list[str] = []
    in_word = False
    want_delim: bool | None = None  # after << / <<-: the next word is a heredoc delimiter (value: strip tabs)
    heredocs: list[tuple[str, bool]] = []
    i, n = 0, len(text)

    def end_word() -> None:
        nonlocal in_word, want_delim
        if in_word:
            word = "".join(buf)
            toks.append(_Tok(word))
            if want_delim is not None:
                heredocs.append((word, want_delim))
                want_delim = None
        buf.clear()
        in_word = False

    while i < n:
        c = text[i]
        if c == "\\":
            if i + 1 < n:
                if text[i + 1] != "\n":
                    buf.append(text[i + 1])
                    in_word = True
                i += 2
            else:
                i += 1
            continue
        if c == "'":
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            buf.append(text[i + 1 : j])
            in_word = True
            i = j + 1
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n and text[j + 1] in '"\\$`\n':
                    buf.append(text[j + 1])
                    j += 2
                    continue
                buf.append(text[j])
                j += 1
            in_word = True
            i = j + 1
            continue
        if c == "#" and not in_word:
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c in " \t\r":
            end_word()
            i += 1
            continue
        if c == "\n":
            end_word()
            toks.append(_Tok("\n", True))
            i += 1
            for delim, strip_tabs in heredocs:
                while i < n:
                    j = text.find("\n", i)
                    j = n if j < 0 else j
                    line = text[i:j]
                    i = j + 1
                    check = line.lstrip("\t") if strip_tabs else line
                    if check.rstrip() == delim:
                        break
            heredocs.clear()
            continue
        if c == "`":
            end_word()
            toks.append(_Tok(";", True))
            i += 1
            continue
        if c == "$" and text.startswith("$(", i):
            end_word()
            toks.append(_Tok("(", True))
            i += 2
            continue
        if c in "<>":
            word = "".join(buf)
            if in_word and word.isdigit():  # `2>` : the digits are the fd, not a word
                buf.clear()
                in_word = False
            else:
                end_word()
            op = next(o for o in _REDIRECT_OPS if text.startswith(o, i))
            toks.append(_Tok(op, True))
            i += len(op)
            if op in ("<<", "<<-"):
                want_delim = op == "<<-"
            continue
        if c == "&":
            end_word()
            op = next(o for o in ("&>>", "&>", "&&", "&") if text.startswith(o, i))
            toks.append(_Tok(op, True))
            i += len(op)
            continue
        if c == "|":
            end_word()
            op = next(o for o in ("||", "|&", "|") if text.startswith(o, i))
            toks.append(_Tok(op, True))
            i += len(op)
            continue
        if c in ";()":
            end_word()
            op = ";;" if text.startswith(";;", i) else c
            toks.append(_Tok(op, True))
            i += len(op)
            continue
        buf.append(c)
        in_word = True
        i += 1
    end_word()
    return toks


def _parse(text: str) -> list[_Cmd]:
    cmds: list[_Cmd] = []
    cur = _Cmd([])
    toks = _tokenize(text)
    k = 0
    while k < len(toks):
        tok = toks[k]
        if tok.op and tok.text in _SEPARATORS:
            if cur.words or cur.redirects:
                cmds.append(cur)
            cur = _Cmd([])
        elif tok.op:
            target = ""
            if k + 1 < len(toks) and not toks[k + 1].op:
                target = toks[k + 1].text
                k += 1
            cur.redirects.append((tok.text, target))
        else:
            cur.words.append(tok.text)
        k += 1
    if cur.words or cur.redirects:
        cmds.append(cur)
    return cmds


def _base(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _skip_options(words: list[str], i: int, with_value: set[str]) -> int:
    while i < len(words) and words[i].startswith("-") and words[i] != "-":
        if words[i] == "--":
            return i + 1
        i += 2 if words[i] in with_value else 1
    return i


def _effective(cmd: _Cmd, depth: int = 0) -> list[_Cmd]:
    """The command(s) really run: wrappers (sudo, env, timeout...) stripped, `sh -c` and xargs followed."""
    words = cmd.words
    i = 0
    while i < len(words):
        w = words[i]
        base = _base(w)
        if _ASSIGNMENT.match(w):
            i += 1
        elif base in ("sudo", "doas"):
            i = _skip_options(words, i + 1, {"-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t", "-T"})
        elif base == "env":
            i = _skip_options(words, i + 1, {"-u", "-C", "-S", "--unset", "--chdir"})
        elif base == "nice":
            i = _skip_options(words, i + 1, {"-n", "--adjustment"})
        elif base == "timeout":
            i = _skip_options(words, i + 1, {"-s", "-k", "--signal", "--kill-after"})
            i += 1  # the duration
        elif base == "command" and i + 1 < len(words) and words[i + 1] in ("-v", "-V"):
            return []
        elif base in _PREFIX_WORDS:
            i = _skip_options(words, i + 1, {"-a"})
        else:
            break
    rest = words[i:]
    if not rest:
        return [_Cmd([], cmd.redirects)] if cmd.redirects else []
    base = _base(rest[0])
    if base in _SHELLS and depth < 4:
        for j, w in enumerate(rest[1:], start=1):
            if not w.startswith("-"):
                break
            if not w.startswith("--") and "c" in w[1:] and j + 1 < len(rest):
                inner = [c2 for c in _parse(rest[j + 1]) for c2 in _effective(c, depth + 1)]
                return ([_Cmd([], cmd.redirects)] if cmd.redirects else []) + inner
    if base == "xargs" and depth < 4:
        j = _skip_options(
            rest, 1, {"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--delimiter", "--max-args"}
        )
        inner = _effective(_Cmd(rest[j:]), depth + 1) if j < len(rest) else []
        return ([_Cmd([], cmd.redirects)] if cmd.redirects else []) + inner
    return [_Cmd(rest, cmd.redirects)]


def _operands(args: list[str], with_value: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    out: list[str] = []
    i = 0
    options = True
    while i < len(args):
        a = args[i]
        if options and a == "--":
            options = False
        elif options and a.startswith("-") and a != "-":
            if a in with_value:
                i += 1
        else:
            out.append(a)
        i += 1
    return out


def _option_value(args: list[str], names: set[str]) -> str | None:
    for i, a in enumerate(args):
        if a in names and i + 1 < len(args):
            return args[i + 1]
        for name in names:
            if name.startswith("--") and a.startswith(name + "="):
                return a.split("=", 1)[1]
            if not name.startswith("--") and a.startswith(name) and len(a) > len(name):
                return a[len(name) :]
    return None


def _sed_in_place(args: list[str]) -> bool:
    for a in args:
        if a == "--":
            break
        if a.startswith("--in-place"):
            return True
        if a.startswith("-") and not a.startswith("--"):
            for ch in a[1:]:
                if ch == "i":
                    return True
                if ch in "efl":  # these take the rest / the next word as a value
                    break
    return False


def _perl_in_place(args: list[str]) -> bool:
    for a in args:
        if a == "--" or not a.startswith("-"):
            break
        for ch in a[1:]:
            if ch == "i":
                return True
            if ch in "eEMmIxlC0dDV":
                break
    return False


def _script_files(args: list[str], *, script_opts: set[str], with_value: set[str]) -> list[str]:
    """Operands of sed/perl minus the inline script (the first operand unless -e/-f gave it)."""
    has_script = any(a in script_opts or any(a.startswith(o + "=") for o in script_opts if o.startswith("--"))
                     for a in args)  # fmt: skip
    ops = _operands(args, with_value | script_opts)
    return ops if has_script else ops[1:]


def _copy_destinations(
    args: list[str], with_value: set[str], cwd: Path | None
) -> tuple[list[str], list[str]]:
    """(sources, destinations) of cp/mv/ln/install; dest/<basename(src)> when dest is a directory."""
    target_dir = _option_value(args, {"-t", "--target-directory"})
    ops = _operands(args, with_value | {"-t", "--target-directory"})
    if target_dir is not None:
        return ops, [os.path.join(target_dir, os.path.basename(s.rstrip("/"))) for s in ops]
    if len(ops) < 2:
        return [], ops
    sources, dest = ops[:-1], ops[-1]
    no_dir = any(a in ("-T", "--no-target-directory") for a in args)
    is_dir = dest.endswith("/") or (cwd is not None and _abs(dest, cwd).is_dir())
    if is_dir and not no_dir:
        return sources, [os.path.join(dest, os.path.basename(s.rstrip("/"))) for s in sources]
    return sources, [dest]


def _abs(word: str, cwd: Path) -> Path:
    p = Path(os.path.expanduser(word))
    if not p.is_absolute():
        p = cwd / p
    return Path(os.path.normpath(str(p)))


def _is_device(target: str) -> bool:
    return target == "/dev/null" or target.startswith(_SKIP_PREFIXES)


def _git_sub(args: list[str]) -> tuple[str, list[str]]:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path") else 1
    if i >= len(args):
        return "", []
    return args[i], args[i + 1 :]


def _git_is_destructive(sub: str, rest: list[str]) -> bool:
    if sub == "stash":
        return not rest or rest[0] not in ("list", "show", "create")
    if sub == "checkout" and any(a in ("-b", "-B", "--orphan") for a in rest) and "--" not in rest:
        return False
    if sub == "switch":
        return any(a in ("-f", "--force", "--discard-changes") for a in rest)
    return sub in _GIT_DESTRUCTIVE


def _analyze(cmd: _Cmd, cwd: Path | None) -> tuple[bool, list[str]]:
    """(destructive?, raw target words) for one effective simple command."""
    destructive = False
    targets: list[str] = []
    for op, target in cmd.redirects:
        if not target or _is_device(target):
            continue
        if op == ">&" and (target.isdigit() or target == "-"):
            continue  # fd duplication: 2>&1
        if op in _FILE_WRITE_REDIRECTS or op == ">&":
            destructive = True
            targets.append(target)
        elif op in _APPEND_REDIRECTS:
            targets.append(target)
    if not cmd.words:
        return destructive, targets
    name = _base(cmd.words[0])
    args = cmd.words[1:]
    if name in ("rm", "rmdir", "unlink"):
        return True, targets + _operands(args)
    if name == "shred":
        return True, targets + _operands(args, {"-n", "-s", "--iterations", "--size"})
    if name == "truncate":
        return True, targets + _operands(args, {"-s", "-r", "--size", "--reference"})
    if name == "dd":
        outs = [a[3:] for a in args if a.startswith("of=")]
        return destructive or bool(outs), targets + outs
    if name == "mv":
        sources, dests = _copy_destinations(args, {"-S", "--suffix"}, cwd)
        return True, targets + sources + dests
    if name in ("cp", "install"):
        _, dests = _copy_destinations(
            args, {"-S", "--suffix", "-m", "-o", "-g", "--mode", "--owner", "--group"}, cwd
        )
        hit = cwd is None or any(os.path.lexists(_abs(d, cwd)) for d in dests)
        return destructive or hit, targets + dests
    if name == "ln":
        forced = any(
            a == "--force" or (a.startswith("-") and not a.startswith("--") and "f" in a) for a in args
        )
        _, dests = _copy_destinations(args, {"-S", "--suffix"}, cwd)
        return destructive or forced, targets + (dests if forced else [])
    if name == "sed":
        if _sed_in_place(args):
            files = _script_files(args, script_opts={"-e", "-f", "--expression", "--file"}, with_value={"-l"})
            return True, targets + files
        return destructive, targets
    if name == "perl":
        if _perl_in_place(args):
            files = _script_files(args, script_opts={"-e", "-E"}, with_value={"-M", "-m", "-I", "-x"})
            return True, targets + files
        return destructive, targets
    if name == "tee":
        files = [f for f in _operands(args) if not _is_device(f)]
        append = any(
            a in ("-a", "--append") or (a.startswith("-") and not a.startswith("--") and "a" in a)
            for a in args
        )
        return destructive or (bool(files) and not append), targets + files
    if name == "find":
        roots = []
        j = 0
        while j < len(args) and args[j] in ("-H", "-L", "-P"):
            j += 1
        while j < len(args) and not args[j].startswith(("-", "(", "!")):
            roots.append(args[j])
            j += 1
        hit = "-delete" in args
        for k, a in enumerate(args):
            if a in ("-exec", "-execdir", "-ok", "-okdir"):
                end = k + 1
                while end < len(args) and args[end] not in (";", "+"):
                    end += 1
                inner = [c for c in _effective(_Cmd(args[k + 1 : end]))]
                if any(_analyze(c, cwd)[0] for c in inner):
                    hit = True
        return destructive or hit, targets + ((roots or ["."]) if hit else [])
    if name == "rsync":
        hit = any(a.startswith(("--delete", "--remove-source-files")) for a in args)
        ops = _operands(args, {"-e", "--rsh"})
        return destructive or hit, targets + (ops[-1:] if hit else [])
    if name == "git":
        sub, rest = _git_sub(args)
        if not _git_is_destructive(sub, rest):
            return destructive, targets
        paths: list[str] = []
        if sub in ("checkout", "restore"):
            if "--" in rest:
                paths = rest[rest.index("--") + 1 :]
            elif sub == "restore":
                paths = _operands(rest, {"-s", "--source"})
            elif cwd is not None:
                paths = [a for a in _operands(rest) if os.path.lexists(_abs(a, cwd))]
        elif sub == "rm":
            paths = _operands(rest)
        elif sub == "mv":
            sources, dests = _copy_destinations(rest, set(), cwd)
            paths = sources + dests
        return True, targets + paths
    return destructive, targets


def _commands(command: str) -> list[_Cmd]:
    return [eff for cmd in _parse(command) for eff in _effective(cmd)]


_FALLBACK = re.compile(
    r"(^|[;&|(\s])(sudo\s+)?(rm|rmdir|unlink|mv|shred|truncate|dd)\s|sed\s+(-\w*\s+)*-\w*i|"
    r"git\s+(reset|clean|checkout|restore|stash)\b|[^>&2]>\s*[^>&\s/]"
)


def is_destructive_command(command: str, cwd: Path | None = None) -> bool:
    """Would this shell command change or remove existing files? A heuristic; never raises.

    `cp`/`install` count when their destination exists; without `cwd` that cannot be checked and they count.
    """
    if not isinstance(command, str) or not command.strip():
        return False
    try:
        return any(_analyze(cmd, cwd)[0] for cmd in _commands(command))
    except Exception:
        log.debug("is_destructive_command fell back to a regex for %r", command, exc_info=True)
        return bool(_FALLBACK.search(command))


def targets_for_terminal(command: str, cwd: Path) -> list[Path]:
    """The plausible files/dirs a destructive command touches, absolute: each exists or its parent does.

    Globs are expanded against `cwd`; words with `$` expansions are skipped. At most MAX_TARGETS paths.
    """
    out: list[Path] = []
    seen: set[str] = set()
    try:
        cwd = Path(cwd)
        for cmd in _commands(command):
            _, words = _analyze(cmd, cwd)
            for word in words:
                for path in _resolve_word(word, cwd):
                    key = str(path)
                    if key in seen:
                        continue
                    seen.add(key)
                    out.append(path)
                    if len(out) >= MAX_TARGETS:
                        return out
    except Exception:
        log.debug("targets_for_terminal failed for %r", command, exc_info=True)
    return out


def _resolve_word(word: str, cwd: Path) -> list[Path]:
    if not word or word in ("{}", "-") or "$" in word or "\x00" in word:
        return []
    if _GLOB_CHARS.search(word):
        pattern = (
            str(_abs(word, cwd)) if not os.path.isabs(os.path.expanduser(word)) else os.path.expanduser(word)
        )
        matches = sorted(glob.glob(pattern))[:MAX_TARGETS]
        return [Path(os.path.normpath(m)) for m in matches if not _is_device(m)]
    path = _abs(word, cwd)
    if _is_device(str(path)) or str(path) in ("/dev", "/proc", "/sys"):
        return []
    if os.path.lexists(path) or path.parent.is_dir():
        return [path]
    return []


def _is_git_command(command: str | None) -> bool:
    if not command:
        return False
    try:
        return any(c.words and _base(c.words[0]) == "git" for c in _commands(command))
    except Exception:
        return "git" in command


# ===================================================================== data


@dataclass
class CheckpointFile:
    path: Path
    existed: bool
    kind: str | None = None  # file | symlink | dir | skipped (None when it did not exist)
    mode: int | None = None
    size: int = 0
    stored_as: str | None = None
    link: str | None = None
    note: str | None = None
    # Top-level directory targets: True when every entry beneath was recorded, so on restore whatever appeared
    # inside since is removed; False when some of it could not be read (extras are then left alone).
    complete: bool | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": str(self.path),
            "existed": self.existed,
            "kind": self.kind,
            "mode": self.mode,
            "size": self.size,
            "stored_as": self.stored_as,
        }
        for key in ("link", "note", "complete"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckpointFile:
        return cls(
            path=Path(data["path"]),
            existed=bool(data.get("existed")),
            kind=data.get("kind"),
            mode=data.get("mode"),
            size=int(data.get("size") or 0),
            stored_as=data.get("stored_as"),
            link=data.get("link"),
            note=data.get("note"),
            complete=data.get("complete"),
        )


@dataclass
class Checkpoint:
    id: str
    session_id: str
    created_at: float
    label: str
    tool_name: str
    command: str | None
    cwd: Path
    files: list[CheckpointFile]
    git: dict[str, Any] | None
    targets: list[Path]
    size_bytes: int
    path: Path  # the checkpoint's directory

    @property
    def file_count(self) -> int:
        return sum(1 for f in self.files if f.kind in ("file", "symlink") or not f.existed)

    @property
    def summary(self) -> str:
        n = self.file_count
        text = f"{n} file{'s' if n != 1 else ''} before {self.label}"
        extras = []
        if self.git and self.git.get("stash"):
            extras.append(f"git stash {str(self.git['stash'])[:10]}")
        elif self.git and self.git.get("head"):
            extras.append(f"git HEAD {str(self.git['head'])[:10]}")
        skipped = sum(1 for f in self.files if f.kind == "skipped")
        if skipped:
            extras.append(f"{skipped} not copied")
        return text + (f" ({', '.join(extras)})" if extras else "")

    def age_text(self, now: float | None = None) -> str:
        age = max(0.0, (time.time() if now is None else now) - self.created_at)
        if age < 60:
            return "just now"
        if age < 3600:
            return f"{int(age // 60)} min ago"
        if age < 86400:
            return f"{int(age // 3600)} h ago"
        return f"{int(age // 86400)} d ago"

    def describe(self, now: float | None = None) -> str:
        return f"{self.summary}, {self.age_text(now)}"

    @classmethod
    def from_manifest(cls, data: dict[str, Any], path: Path) -> Checkpoint:
        return cls(
            id=str(data["id"]),
            session_id=str(data.get("session_id") or path.parent.name),
            created_at=float(data.get("created_at") or 0.0),
            label=str(data.get("label") or ""),
            tool_name=str(data.get("tool_name") or ""),
            command=data.get("command"),
            cwd=Path(data.get("cwd") or "."),
            files=[CheckpointFile.from_json(f) for f in data.get("files") or []],
            git=data.get("git"),
            targets=[Path(p) for p in data.get("targets") or []],
            size_bytes=int(data.get("total_bytes") or 0),
            path=path,
        )


@dataclass
class RestoreReport:
    restored: list[Path] = field(default_factory=list)
    deleted: list[Path] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    git_note: str | None = None
    unchanged: list[Path] = field(default_factory=list)  # already identical: not rewritten
    skipped: list[str] = field(default_factory=list)  # recorded but not copied at snapshot time (reason)
    backup_id: str | None = None  # the checkpoint of the state just before this restore

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        parts = [f"restored {len(self.restored)} file{'s' if len(self.restored) != 1 else ''}"]
        if self.unchanged:
            parts.append(f"{len(self.unchanged)} unchanged")
        if self.deleted:
            parts.append(f"deleted {len(self.deleted)}")
        if self.skipped:
            parts.append(f"{len(self.skipped)} not in the checkpoint")
        if self.errors:
            parts.append(f"{len(self.errors)} error{'s' if len(self.errors) != 1 else ''}")
        return ", ".join(parts)


@dataclass
class SnapshotPlan:
    paths: list[Path]
    cwd: Path
    label: str
    tool_name: str
    command: str | None = None


def plan_checkpoint(calls: Iterable[ToolCall], cwd: Path) -> SnapshotPlan | None:
    """What to snapshot before a batch of tool calls: the targets of every mutating call, or None."""
    paths: list[Path] = []
    first: tuple[str, str] | None = None
    command: str | None = None
    snap_cwd = Path(cwd)
    mutating = 0
    for call in calls:
        try:
            args = json.loads(call.arguments or "{}")
        except (ValueError, TypeError):
            continue
        if not isinstance(args, dict):
            continue
        if call.name in FILE_MUTATING_TOOLS:
            raw = args.get(FILE_MUTATING_TOOLS[call.name])
            if not isinstance(raw, str) or not raw:
                continue
            paths.append(_abs(raw, Path(cwd)))
            mutating += 1
            first = first or (call.name, raw)
        elif call.name in TERMINAL_TOOLS:
            cmd = args.get(TERMINAL_TOOLS[call.name])
            if not isinstance(cmd, str):
                continue
            workdir = args.get("workdir")
            wd = _abs(workdir, Path(cwd)) if isinstance(workdir, str) and workdir else Path(cwd)
            if not is_destructive_command(cmd, wd):
                continue
            paths.extend(targets_for_terminal(cmd, wd))
            mutating += 1
            if command is None:
                command, snap_cwd = cmd, wd
            first = first or (call.name, " ".join(cmd.split())[:80])
    if first is None:
        return None
    label = f"{first[0]} {first[1]}" + (f" (+{mutating - 1} more)" if mutating > 1 else "")
    unique = list(dict.fromkeys(paths))[: MAX_TARGETS * 2]
    return SnapshotPlan(paths=unique, cwd=snap_cwd, label=label, tool_name=first[0], command=command)


# ===================================================================== the manager


class _Budget:
    def __init__(self, max_bytes: int, max_files: int) -> None:
        self.bytes_left = max_bytes
        self.files_left = max_files


class CheckpointManager:
    def __init__(
        self,
        root: Path,
        session_id: str,
        *,
        max_age_days: float = 7,
        max_total_bytes: int = 200 * MB,
        max_snapshot_bytes: int = MAX_SNAPSHOT_BYTES,
    ) -> None:
        self.root = Path(root)
        self.session_id = session_id
        self.max_age_days = max_age_days
        self.max_total_bytes = max_total_bytes
        self.max_snapshot_bytes = max_snapshot_bytes
        self._lock = threading.RLock()

    @property
    def session_dir(self) -> Path:
        return self.root / _safe_name(self.session_id)

    # ----------------------------------------------------------------- snapshot

    def snapshot_calls(self, calls: Iterable[ToolCall], *, cwd: Path) -> Checkpoint | None:
        """Snapshot before a batch of tool calls if any of them mutates files (see `plan_checkpoint`)."""
        try:
            plan = plan_checkpoint(calls, cwd)
        except Exception:
            log.warning("checkpoint planning failed", exc_info=True)
            return None
        if plan is None:
            return None
        return self.snapshot(
            plan.paths, cwd=plan.cwd, label=plan.label, tool_name=plan.tool_name, command=plan.command
        )

    def snapshot(
        self,
        paths: list[Path],
        *,
        cwd: Path,
        label: str,
        tool_name: str,
        command: str | None = None,
    ) -> Checkpoint | None:
        """Copy the targets' current state. Returns None (and logs why) when nothing was or could be saved."""
        with self._lock:
            try:
                checkpoint = self._snapshot(paths, cwd=cwd, label=label, tool_name=tool_name, command=command)
            except Exception as exc:
                log.warning("checkpoint skipped (%s: %s)", type(exc).__name__, exc, exc_info=True)
                return None
            if checkpoint is not None:
                self._prune(keep={checkpoint.id})
            return checkpoint

    def _snapshot(
        self, paths: list[Path], *, cwd: Path, label: str, tool_name: str, command: str | None
    ) -> Checkpoint | None:
        cwd = Path(cwd)
        created = time.time()
        checkpoint_id = time.strftime("%Y%m%d-%H%M%S", time.localtime(created)) + f"-{uuid.uuid4().hex[:6]}"
        _mkdir_private(self.root)
        _mkdir_private(self.session_dir)
        tmp = self.session_dir / f".tmp-{checkpoint_id}"
        _mkdir_private(tmp)
        try:
            state = _SnapshotState(tmp / "files", _Budget(self.max_snapshot_bytes, MAX_SNAPSHOT_FILES))
            root_real = os.path.realpath(self.root)
            targets: list[Path] = []
            for raw in paths:
                path = _abs(str(raw), cwd)
                if str(path) in state.seen:
                    continue
                real = os.path.realpath(path)
                if (
                    real == root_real
                    or real.startswith(root_real + os.sep)
                    or root_real.startswith(real + os.sep)
                ):
                    log.info("checkpoint: not copying %s (it holds the checkpoints themselves)", path)
                    continue
                targets.append(path)
                state.capture(path, top=True)
            git = None
            if command and is_destructive_command(command, cwd):
                git = _git_snapshot(cwd, checkpoint_id, state, targets)
                if git is not None:
                    complete = bool(paths) and all(f.kind != "skipped" for f in state.entries)
                    git["covered_by_files"] = complete and not _is_git_command(command)
            if not state.entries and git is None:
                log.info("checkpoint: nothing to save for %s", label)
                shutil.rmtree(tmp, ignore_errors=True)
                return None
            manifest = {
                "id": checkpoint_id,
                "session_id": self.session_id,
                "created_at": created,
                "label": label,
                "tool_name": tool_name,
                "command": command,
                "cwd": str(cwd),
                "targets": [str(t) for t in targets],
                "files": [f.to_json() for f in state.entries],
                "git": git,
                "total_bytes": state.stored_bytes,
            }
            _write_private(tmp / "manifest.json", json.dumps(manifest, indent=1).encode("utf-8"))
            final = self.session_dir / checkpoint_id
            os.replace(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        manifest["total_bytes"] = state.stored_bytes + (final / "manifest.json").stat().st_size
        return Checkpoint.from_manifest(manifest, final)

    # ----------------------------------------------------------------- list / get

    def list(self) -> list[Checkpoint]:
        """This session's checkpoints, newest first."""
        out = []
        try:
            dirs = list(self.session_dir.iterdir())
        except OSError:
            return []
        for d in dirs:
            if d.name.startswith(".") or not d.is_dir():
                continue
            checkpoint = _load(d)
            if checkpoint is not None:
                out.append(checkpoint)
        out.sort(key=lambda c: (c.created_at, c.id), reverse=True)
        return out

    def get(self, checkpoint_id: str) -> Checkpoint | None:
        """By id or unique id prefix (or 1-based position in `list()` given as "1", "2", ...)."""
        items = self.list()
        for c in items:
            if c.id == checkpoint_id:
                return c
        if checkpoint_id.isdigit() and 1 <= int(checkpoint_id) <= len(items) and len(checkpoint_id) <= 4:
            return items[int(checkpoint_id) - 1]
        matches = [c for c in items if c.id.startswith(checkpoint_id)] if checkpoint_id else []
        return matches[0] if len(matches) == 1 else None

    # ----------------------------------------------------------------- restore

    def restore(self, checkpoint_id: str, *, backup: bool = True) -> RestoreReport:
        """Put the checkpoint's files back; with `backup`, first snapshot the current state of its paths."""
        with self._lock:
            report = RestoreReport()
            checkpoint = self.get(checkpoint_id)
            if checkpoint is None:
                report.errors.append(f"No checkpoint {checkpoint_id!r} in this session.")
                return report
            keep = {checkpoint.id}
            if backup and checkpoint.targets:
                try:
                    before = self._snapshot(
                        list(checkpoint.targets),
                        cwd=checkpoint.cwd,
                        label=f"rollback to {checkpoint.id}",
                        tool_name="rollback",
                        command=None,
                    )
                except Exception as exc:
                    log.warning("backup before rollback failed: %s", exc, exc_info=True)
                    before = None
                if before is not None:
                    report.backup_id = before.id
                    keep.add(before.id)
            try:
                _restore_files(checkpoint, report)
            except Exception as exc:
                report.errors.append(f"restore stopped: {type(exc).__name__}: {exc}")
            try:
                report.git_note = _git_note(checkpoint)
            except Exception as exc:
                report.errors.append(f"git: {type(exc).__name__}: {exc}")
            self._prune(keep=keep)
            return report

    # ----------------------------------------------------------------- prune

    def prune(self) -> list[str]:
        """Remove checkpoints (all sessions) older than max_age, then the oldest until the total size fits."""
        with self._lock:
            return self._prune(keep=set())

    def _prune(self, *, keep: set[str]) -> list[str]:
        removed: list[str] = []
        try:
            session_dirs = [d for d in self.root.iterdir() if d.is_dir()]
        except OSError:
            return removed
        now = time.time()
        items: list[tuple[float, str, Path, int]] = []
        for sdir in session_dirs:
            try:
                children = list(sdir.iterdir())
            except OSError:
                continue
            for d in children:
                if not d.is_dir():
                    continue
                if d.name.startswith(".tmp-"):
                    if _mtime(d) < now - 3600:  # a snapshot interrupted by a crash
                        shutil.rmtree(d, ignore_errors=True)
                    continue
                created, size = _created_and_size(d)
                items.append((created, d.name, d, size))
        max_age = self.max_age_days * 86400
        fresh = []
        for item in items:
            created, cid, d, _ = item
            if now - created > max_age and cid not in keep:
                shutil.rmtree(d, ignore_errors=True)
                removed.append(cid)
            else:
                fresh.append(item)
        fresh.sort(key=lambda t: (t[0], t[1]))
        total = sum(t[3] for t in fresh)
        for _created, cid, d, size in list(fresh):
            if total <= self.max_total_bytes:
                break
            if cid in keep:
                continue
            shutil.rmtree(d, ignore_errors=True)
            removed.append(cid)
            total -= size
        for sdir in session_dirs:
            try:
                sdir.rmdir()  # only when empty
            except OSError:
                pass
        if removed:
            log.info("pruned %d checkpoint(s)", len(removed))
        return removed


# ===================================================================== snapshot internals


class _SnapshotState:
    def __init__(self, files_dir: Path, budget: _Budget) -> None:
        self.files_dir = files_dir
        self.budget = budget
        self.entries: list[CheckpointFile] = []
        self.seen: set[str] = set()
        self.stored_bytes = 0
        self._n = 0

    def capture(self, path: Path, *, top: bool = False) -> None:
        key = str(path)
        if key in self.seen:
            return
        self.seen.add(key)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            self.entries.append(CheckpointFile(path=path, existed=False))
            return
        except NotADirectoryError:
            self.entries.append(CheckpointFile(path=path, existed=False))
            return
        except OSError as exc:
            self._skip(path, f"cannot stat: {type(exc).__name__}: {exc.strerror or exc}")
            return
        if stat.S_ISLNK(st.st_mode):
            self._symlink(path)
            if top:  # write_file through a link changes the file it points to: keep that one too
                real = Path(os.path.realpath(path))
                if real != path and real.is_file():
                    self.capture(real)
        elif stat.S_ISREG(st.st_mode):
            self._file(path, st)
        elif stat.S_ISDIR(st.st_mode):
            if top:
                self._directory(path, st)
        else:
            self._skip(path, "not a regular file")

    def _skip(self, path: Path, note: str) -> None:
        log.info("checkpoint: %s not copied (%s)", path, note)
        self.entries.append(CheckpointFile(path=path, existed=True, kind="skipped", note=note))

    def _symlink(self, path: Path) -> None:
        try:
            link = os.readlink(path)
        except OSError as exc:
            self._skip(path, f"unreadable link: {exc.strerror or exc}")
            return
        self.entries.append(CheckpointFile(path=path, existed=True, kind="symlink", link=link))

    def _file(self, path: Path, st: os.stat_result) -> None:
        if st.st_size > self.budget.bytes_left or self.budget.files_left <= 0:
            self._skip(path, f"too large to copy ({_human_size(st.st_size)})")
            return
        self._n += 1
        stored = f"files/{self._n:06d}"
        dest = self.files_dir / f"{self._n:06d}"
        try:
            _mkdir_private(self.files_dir)
            with open(path, "rb") as src:
                fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as out:
                    shutil.copyfileobj(src, out, 1024 * 1024)
        except OSError as exc:
            try:
                dest.unlink()
            except OSError:
                pass
            self._skip(path, f"unreadable: {type(exc).__name__}: {exc.strerror or exc}")
            return
        size = dest.stat().st_size
        self.budget.bytes_left -= size
        self.budget.files_left -= 1
        self.stored_bytes += size
        self.entries.append(
            CheckpointFile(
                path=path,
                existed=True,
                kind="file",
                mode=stat.S_IMODE(st.st_mode),
                size=size,
                stored_as=stored,
            )
        )

    def _directory(self, path: Path, st: os.stat_result) -> None:
        walk = _scan_tree(path, self.budget.bytes_left, self.budget.files_left)
        if walk is None:
            limit = f"{_human_size(self.budget.bytes_left)} or {self.budget.files_left} files"
            self._skip(path, f"directory larger than {limit}: not copied")
            return
        errors = {str(p): err for p, _, err in walk if err is not None}
        self.entries.append(
            CheckpointFile(
                path=path, existed=True, kind="dir", mode=stat.S_IMODE(st.st_mode), complete=not errors
            )
        )
        for child, child_st, error in walk:
            key = str(child)
            if error is not None or key in self.seen:
                continue
            if key in errors:
                self.seen.add(key)
                self._skip(child, errors[key])
            elif stat.S_ISDIR(child_st.st_mode):
                self.seen.add(key)
                mode = stat.S_IMODE(child_st.st_mode)
                self.entries.append(CheckpointFile(path=child, existed=True, kind="dir", mode=mode))
            else:
                self.capture(child)


_NO_STAT = os.stat_result((0,) * 10)


def _scan_tree(
    root: Path, max_bytes: int, max_files: int
) -> list[tuple[Path, os.stat_result, str | None]] | None:
    """Every entry under root (not following links), or None as soon as it exceeds the caps."""
    out: list[tuple[Path, os.stat_result, str | None]] = []
    total = 0
    stack = [root]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as it:
                children = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            if current != root:
                out.append((Path(current), _NO_STAT, f"unreadable directory: {exc.strerror or exc}"))
            continue
        for entry in children:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                out.append((Path(entry.path), _NO_STAT, f"cannot stat: {exc.strerror or exc}"))
                continue
            out.append((Path(entry.path), st, None))
            if stat.S_ISREG(st.st_mode):
                total += st.st_size
            if total > max_bytes or len(out) > max_files:
                return None
            if stat.S_ISDIR(st.st_mode):
                stack.append(Path(entry.path))
    return out


def _git(cwd: Path, *args: str) -> str | None:
    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"})
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=str(cwd),
            capture_output=True,
            timeout=GIT_TIMEOUT,
            env=env,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        log.debug("git %s failed: %s", " ".join(args), exc)
        return None
    if proc.returncode != 0:
        log.debug("git %s exited %s: %s", " ".join(args), proc.returncode, proc.stderr[-500:])
        return None
    return proc.stdout.decode("utf-8", "surrogateescape")


def _git_snapshot(
    cwd: Path, checkpoint_id: str, state: _SnapshotState, targets: list[Path]
) -> dict[str, Any] | None:
    if not cwd.is_dir():
        return None
    top = _git(cwd, "rev-parse", "--show-toplevel")
    if not top or not top.strip():
        return None
    repo = Path(top.strip())
    head = (_git(repo, "rev-parse", "--verify", "-q", "HEAD") or "").strip() or None
    stash = None
    if head:
        out = _git(
            repo,
            "-c",
            "user.email=hermes-tui@localhost",
            "-c",
            "user.name=hermes-tui",
            "stash",
            "create",
            f"hermes-tui checkpoint {checkpoint_id}",
        )
        stash = (out or "").strip() or None
    untracked: list[str] = []
    skipped = 0
    listing = _git(repo, "ls-files", "--others", "--exclude-standard", "-z")
    names = [n for n in (listing or "").split("\0") if n]
    for name in names:
        if len(untracked) >= MAX_UNTRACKED_FILES:
            skipped += 1
            continue
        path = Path(os.path.normpath(str(repo / name)))
        before = len(state.entries)
        state.capture(path)
        added = state.entries[before:]
        if any(e.kind in ("file", "symlink") for e in added):
            untracked.append(name)
            targets.append(path)
        elif added:
            skipped += 1
    return {
        "repo": str(repo),
        "head": head,
        "stash": stash,
        "untracked": untracked,
        "untracked_skipped": skipped,
    }


# ===================================================================== restore internals


def _restore_files(checkpoint: Checkpoint, report: RestoreReport) -> None:
    base = checkpoint.path
    entries = checkpoint.files
    # 1. paths that did not exist: delete them, deepest first
    for entry in sorted((e for e in entries if not e.existed), key=lambda e: len(e.path.parts), reverse=True):
        try:
            if os.path.lexists(entry.path):
                _remove(entry.path)
                report.deleted.append(entry.path)
        except OSError as exc:
            report.errors.append(f"{entry.path}: could not delete: {exc.strerror or exc}")
    # 2. directories
    for entry in entries:
        if entry.kind == "dir":
            try:
                if os.path.lexists(entry.path) and not (entry.path.is_dir() and not entry.path.is_symlink()):
                    _remove(entry.path)
                entry.path.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                report.errors.append(f"{entry.path}: could not create directory: {exc.strerror or exc}")
    # 3. files and links
    for entry in entries:
        try:
            if entry.kind == "file" and entry.stored_as:
                _restore_file(entry, base / entry.stored_as, report)
            elif entry.kind == "symlink" and entry.link is not None:
                _restore_link(entry, report)
            elif entry.kind == "skipped":
                report.skipped.append(f"{entry.path} ({entry.note or 'not copied'})")
        except OSError as exc:
            report.errors.append(f"{entry.path}: {type(exc).__name__}: {exc.strerror or exc}")
    # 4. complete directory targets: remove what appeared inside them since
    recorded = {str(e.path) for e in entries}
    for entry in entries:
        if entry.kind == "dir" and entry.complete is True:
            _remove_extras(entry.path, recorded, report)
    # 5. directory modes last (a read-only directory must not block the writes above)
    for entry in sorted((e for e in entries if e.kind == "dir"),
                        key=lambda e: len(e.path.parts), reverse=True):  # fmt: skip
        if entry.mode is not None:
            try:
                os.chmod(entry.path, entry.mode)
            except OSError as exc:
                report.errors.append(f"{entry.path}: could not set mode: {exc.strerror or exc}")


def _restore_file(entry: CheckpointFile, stored: Path, report: RestoreReport) -> None:
    path = entry.path
    mode = entry.mode if entry.mode is not None else 0o644
    if path.is_file() and not path.is_symlink():
        try:
            if stat.S_IMODE(path.stat().st_mode) == mode and _same_bytes(path, stored):
                report.unchanged.append(path)
                return
        except OSError:
            pass
    if os.path.lexists(path) and (path.is_symlink() or not path.is_file()):
        _remove(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".hermes-restore", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out, open(stored, "rb") as src:
            shutil.copyfileobj(src, out, 1024 * 1024)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp_name, mode)
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except OSError:
            pass
        raise
    report.restored.append(path)


def _restore_link(entry: CheckpointFile, report: RestoreReport) -> None:
    path = entry.path
    assert entry.link is not None
    if path.is_symlink() and os.readlink(path) == entry.link:
        report.unchanged.append(path)
        return
    if os.path.lexists(path):
        _remove(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(entry.link, path)
    report.restored.append(path)


def _remove_extras(root: Path, recorded: set[str], report: RestoreReport) -> None:
    if not root.is_dir() or root.is_symlink():
        return
    for current, dirs, files in os.walk(root):
        for name in list(dirs):
            p = os.path.join(current, name)
            if p not in recorded:
                try:
                    _remove(Path(p))
                    report.deleted.append(Path(p))
                except OSError as exc:
                    report.errors.append(f"{p}: could not delete: {exc.strerror or exc}")
                dirs.remove(name)
        for name in files:
            p = os.path.join(current, name)
            if p not in recorded:
                try:
                    os.unlink(p)
                    report.deleted.append(Path(p))
                except OSError as exc:
                    report.errors.append(f"{p}: could not delete: {exc.strerror or exc}")


def _git_note(checkpoint: Checkpoint) -> str | None:
    git = checkpoint.git
    if not git or git.get("covered_by_files"):
        return None
    repo = git.get("repo")
    head = git.get("head")
    stash = git.get("stash")
    if not repo or not head:
        return None
    lines: list[str] = []
    current = (_git(Path(repo), "rev-parse", "--verify", "-q", "HEAD") or "").strip() or None
    if current and current != head:
        lines.append(
            f"HEAD moved from {head[:12]} to {current[:12]} since this checkpoint: git checkout {head}"
        )
    if stash:
        lines.append(
            f"Uncommitted changes to tracked files were saved; to bring them back (in {repo}): "
            f"git stash apply {stash}"
        )
    else:
        rel = []
        for t in checkpoint.targets:
            try:
                rel.append(os.path.relpath(t, repo))
            except ValueError:
                continue
        rel = [r for r in rel if not r.startswith("..")] or ["."]
        lines.append(
            f"Tracked files were clean at {head[:12]}; to restore them (in {repo}): "
            f"git checkout {head} -- {' '.join(rel)}"
        )
    return "\n".join(lines)


# ===================================================================== small helpers


def _load(d: Path) -> Checkpoint | None:
    try:
        data = json.loads((d / "manifest.json").read_text(encoding="utf-8"))
        return Checkpoint.from_manifest(data, d)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.debug("unreadable checkpoint %s: %s", d, exc)
        return None


def _created_and_size(d: Path) -> tuple[float, int]:
    checkpoint = _load(d)
    if checkpoint is not None and checkpoint.size_bytes > 0:
        return checkpoint.created_at, checkpoint.size_bytes + _size(d / "manifest.json")
    size = _tree_size(d)
    return (checkpoint.created_at if checkpoint is not None else _mtime(d)), size


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0


def _tree_size(d: Path) -> int:
    total = 0
    for current, _, files in os.walk(d):
        for name in files:
            try:
                total += os.lstat(os.path.join(current, name)).st_size
            except OSError:
                pass
    return total


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _same_bytes(a: Path, b: Path) -> bool:
    if a.stat().st_size != b.stat().st_size:
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            ca, cb = fa.read(1024 * 1024), fb.read(1024 * 1024)
            if ca != cb:
                return False
            if not ca:
                return True


def _mkdir_private(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        os.chmod(path, 0o700)
    except OSError:
        pass


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def _safe_name(name: str) -> str:
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name).strip(".")
    return cleaned or "session"


def _human_size(n: int) -> str:
    if n >= MB:
        return f"{n / MB:.0f} MB"
    if n >= 1024:
        return f"{n / 1024:.0f} KB"
    return f"{n} B"


__all__ = [
    "FILE_MUTATING_TOOLS",
    "TERMINAL_TOOLS",
    "Checkpoint",
    "CheckpointFile",
    "CheckpointManager",
    "RestoreReport",
    "SnapshotPlan",
    "is_destructive_command",
    "plan_checkpoint",
    "targets_for_terminal",
]

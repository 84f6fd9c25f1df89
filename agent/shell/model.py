"""The shell model's data: a command as it really runs, what feeds it, and what it does."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from functools import cached_property

from agent.shell.lexer import Redirect, Word


@dataclass(frozen=True)
class Source:
    """Something feeding a command's stdin. kind: "download" (a network fetch upstream), "decode" (a
    decoder upstream; text = what it decodes to, when knowable), "literal" (echo/printf output),
    "heredoc" (a heredoc or here-string body), "file" (`< path`), "other" (another command's output)."""

    kind: str
    text: str | None = None


@dataclass(frozen=True)
class Run:
    """Code or a program this command makes run. language: "sh", "python", "perl", ..., "sql".
    origin: where the code comes from: "literal" (written in the command), "heredoc", "download",
    "decode", "file" or "other" (unknown). via: how it is handed over: "c" (a shell's -c), "stdin",
    "script", "eval", "code" (an interpreter's -c/-e), "option" (an option that names a program: rg --pre),
    "env" (LESSOPEN, GIT_PAGER), "find" (find -exec), "args" (an argument list, run without a shell)."""

    language: str
    text: str | None = None
    argv: tuple[Word, ...] | None = None
    origin: str = "literal"
    via: str = ""
    roots: tuple[str, ...] = ()  # find -exec: the start points `{}` stands for


@dataclass(frozen=True)
class PathEffect:
    """A file the command changes. kind: "overwrite", "append", "edit" (in place), "truncate", "destroy"
    (shred), "delete", "create" (touch, mkdir: no contents change), "maybe" (an operand that is a path only
    if it exists: `git checkout X`)."""

    path: str
    kind: str
    tool: str
    recursive: bool = False
    force: bool = False


@dataclass(frozen=True)
class Copy:
    """cp / mv / install / ln / rsync / git mv: sources into dest. dest_is_dir: True when the syntax says so
    (a trailing slash, `-t DIR`, `.`), False for `-T`, None when only the file system can tell."""

    sources: tuple[str, ...]
    dest: str
    tool: str
    dest_is_dir: bool | None = None
    move: bool = False
    force: bool = False  # ln -f: replaces an existing dest (cp/mv/install always may)

    def targets(self, is_dir: bool) -> list[str]:
        """The paths written, once it is known whether dest is a directory."""
        if is_dir:
            return [posixpath.join(self.dest, posixpath.basename(s.rstrip("/")) or s) for s in self.sources]
        return [self.dest]


@dataclass
class Effects:
    writes: list[PathEffect] = field(default_factory=list)
    deletes: list[PathEffect] = field(default_factory=list)
    copies: list[Copy] = field(default_factory=list)
    git: set[str] = field(default_factory=set)  # reset_hard force_push clean branch_delete checkout ...
    runs: list[Run] = field(default_factory=list)

    @property
    def changes_files(self) -> bool:
        return bool(self.writes or self.deletes or self.copies)


@dataclass
class Command:
    """A simple command after unwrapping: `sudo nice rm -rf x` is `rm -rf x`, privileged."""

    argv: list[Word]
    redirects: list[Redirect] = field(default_factory=list)
    privileged: bool = False
    sudo_stdin: bool = False
    via: str = ""  # "xargs", "find", "option", "env", "code" (synthesized from inline code), "" (direct)
    roots: tuple[str, ...] = ()  # find -exec: what `{}` stands for
    stdin: list[Source] = field(default_factory=list)
    env: list[tuple[str, Word]] = field(default_factory=list)
    cwd: str | None = ""  # where it runs, relative to the start ("" = there, None = unknown after `cd $x`)
    script: int = 0  # index of the script (in Analysis.scripts) it belongs to
    depth: int = 0
    effects: Effects = field(default_factory=Effects)

    @property
    def path(self) -> str:
        return self.argv[0].text if self.argv else ""

    @cached_property
    def name(self) -> str:
        return posixpath.basename(self.path.rstrip("/")) if self.argv else ""

    @property
    def args(self) -> list[str]:
        return [w.text for w in self.argv[1:]]

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.argv)


@dataclass(frozen=True)
class Script:
    """A piece of code the analysis read: the command itself, a `sh -c` string, a heredoc, inline code."""

    language: str
    text: str
    origin: str = "literal"


@dataclass
class Analysis:
    commands: list[Command] = field(default_factory=list)
    scripts: list[Script] = field(default_factory=list)
    # The de-quoted text of every simple command seen (also inside `sh -c`, `$(...)`): what user deny rules
    # are matched against, besides the full command.
    segments: list[str] = field(default_factory=list)

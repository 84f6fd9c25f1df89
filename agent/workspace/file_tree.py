"""The files of a directory tree as git sees them: .gitignore honoured, .git skipped, sorted.

One walker for every place that lists a working tree (the `search_files` fallback without ripgrep, the
prompt's `@` file completion, `@folder` listings), so "ignored" means the same everywhere.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from agent.core.bounded_files import MAX_CONFIG_BYTES, read_text

__all__ = [
    "FileIndex",
    "GitIgnore",
    "WalkCancelled",
    "glob_predicate",
    "glob_to_regex",
    "load_gitignores",
    "walk",
]


class WalkCancelled(Exception):
    """The walk's `cancelled` callback said stop."""


def glob_predicate(glob: str | None, *, ignore_case: bool = False) -> Callable[[str], bool]:
    """Like rg / gitignore: a glob without '/' matches the file name at any depth, one with '/' the path."""
    if not glob:
        return lambda rel: True
    regex = re.compile(glob_to_regex(glob.lstrip("/")) + r"\Z", re.IGNORECASE if ignore_case else 0)
    if "/" in glob:
        return lambda rel: bool(regex.match(rel))
    return lambda rel: bool(regex.match(rel.rsplit("/", 1)[-1]))


def glob_to_regex(pattern: str) -> str:
    """A gitignore-style glob (`**`, `*`, `?`, `[...]`, `{a,b}`) as a regex over '/'-separated paths."""
    i, n, out = 0, len(pattern), []
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                i += 2
                if i < n and pattern[i] == "/":
                    i += 1
                    out.append("(?:.*/)?")
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : j]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = j + 1
                continue
        elif c == "{":
            j = pattern.find("}", i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                alts = pattern[i + 1 : j].split(",")
                out.append("(?:" + "|".join(glob_to_regex(a) for a in alts) + ")")
                i = j + 1
                continue
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


@dataclass
class _IgnoreRule:
    base: str  # directory of the .gitignore, relative to the search root ('' for the root or above it)
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool
    anchored: bool


class GitIgnore:
    """Simple .gitignore matching (fnmatch-style globs): good enough to skip build output and dependencies."""

    def __init__(self) -> None:
        self.rules: list[_IgnoreRule] = []

    def add_file(self, gitignore: Path, base: str) -> None:
        try:
            text = read_text(gitignore, limit=MAX_CONFIG_BYTES)
        except OSError:
            return
        for raw in text.splitlines():
            line = raw.rstrip()
            if not line or line.startswith("#"):
                continue
            negate = line.startswith("!")
            if negate:
                line = line[1:]
            if line.startswith("\\"):
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            if not line:
                continue
            anchored = "/" in line
            line = line.lstrip("/")
            self.rules.append(
                _IgnoreRule(base, re.compile(glob_to_regex(line) + r"\Z"), negate, dir_only, anchored)
            )

    def ignored(self, rel: str, is_dir: bool) -> bool:
        """Whether `rel` (relative to the search root, '/'-separated) is ignored; last matching rule wins."""
        result = False
        name = rel.rsplit("/", 1)[-1]
        for rule in self.rules:
            if rule.dir_only and not is_dir:
                continue
            if rule.base:
                if not rel.startswith(rule.base + "/"):
                    continue
                sub = rel[len(rule.base) + 1 :]
            else:
                sub = rel
            target = sub if rule.anchored else name
            if rule.regex.match(target):
                result = not rule.negate
        return result


def load_gitignores(root: Path) -> GitIgnore:
    """The root's .gitignore, plus those of its ancestors up to the enclosing git repository's top."""
    ignore = GitIgnore()
    ancestors: list[Path] = []
    probe = root
    while True:
        if (probe / ".git").exists():
            ancestors.append(probe)
            break
        parent = probe.parent
        if parent == probe:
            ancestors = [root]  # not in a git repository: only the search root's own file
            break
        ancestors.append(probe)
        probe = parent
    for directory in reversed(ancestors):
        # Ancestor patterns apply relative to the ancestor; approximating them as root-relative is fine for
        # the common unanchored patterns (node_modules, *.pyc, build/).
        ignore.add_file(directory / ".gitignore", "")
    return ignore


def walk(root: Path, cancelled: Callable[[], bool] | None = None) -> Iterator[tuple[str, Path]]:
    """(relative path, absolute path) of the files under root, sorted, honouring .gitignore, skipping .git."""
    if root.is_file():
        yield root.name, root
        return
    ignore = load_gitignores(root)
    stack: list[tuple[str, Path]] = [("", root)]
    while stack:
        rel_dir, directory = stack.pop()
        if cancelled is not None and cancelled():
            raise WalkCancelled("interrupted")
        if rel_dir:
            nested = directory / ".gitignore"
            if nested.is_file():
                ignore.add_file(nested, rel_dir)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if entry.name == ".git" or ignore.ignored(rel, True):
                    continue
                subdirs.append((rel, Path(entry.path)))
            elif entry.is_file() and not ignore.ignored(rel, False):
                yield rel, Path(entry.path)
        stack.extend(reversed(subdirs))


class FileIndex:
    """The working tree's files and folders (`a/`, `a/b.py`) for `@` completion.

    Listing a big tree takes a while, so it runs in a background thread: `paths()` never blocks and returns
    the last complete listing (empty until the first one is done), starting a new one when the last is older
    than `ttl` seconds. `on_ready` is called (from that thread) when a listing completes.
    """

    def __init__(
        self,
        root: Path,
        *,
        limit: int = 50_000,
        ttl: float = 30.0,
        on_ready: Callable[[], None] | None = None,
    ) -> None:
        self.root = root
        self.limit = limit
        self.ttl = ttl
        self.on_ready = on_ready
        self._paths: list[str] = []
        self._listed_at: float | None = None
        self._running = False
        self._lock = threading.Lock()

    def paths(self) -> list[str]:
        with self._lock:
            stale = self._listed_at is None or time.monotonic() - self._listed_at > self.ttl
            if stale and not self._running:
                self._running = True
                threading.Thread(target=self._list, name="file-index", daemon=True).start()
            return self._paths

    def refresh_now(self) -> list[str]:
        """List in this thread (tests, and callers already off the UI thread)."""
        self._list()
        return self._paths

    def _list(self) -> None:
        files: list[str] = []
        folders: set[str] = set()
        try:
            for rel, _ in walk(self.root):
                files.append(rel)
                parent = rel.rpartition("/")[0]
                while parent and parent + "/" not in folders:
                    folders.add(parent + "/")
                    parent = parent.rpartition("/")[0]
                if len(files) >= self.limit:
                    break
        except OSError:
            pass
        with self._lock:
            self._paths = sorted(folders) + files
            self._listed_at = time.monotonic()
            self._running = False
        if self.on_ready is not None:
            self.on_ready()

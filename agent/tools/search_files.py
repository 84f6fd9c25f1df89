"""`search_files`: content (regex) and file-name (glob) search over the working tree, with ripgrep when
it is installed and a pure-Python fallback (`agent.workspace.file_tree.walk`) that honours .gitignore the
same way."""

from __future__ import annotations

import base64
import json
import queue
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator

from agent.toolkit.registry import Tool, ToolContext, ToolResult
from agent.tools.files import BINARY_SNIFF_BYTES, _Args, _display
from agent.workspace.file_tree import WalkCancelled, glob_predicate, walk

SEARCH_MAX_CHARS = 45_000
SEARCH_LINE_CHARS = 500
MAX_SEARCH_LIMIT = 500
SEARCH_TIMEOUT = 60.0
FALLBACK_MAX_FILE_BYTES = 20 * 1024 * 1024


class SearchFilesArgs(_Args):
    pattern: str = Field(
        description="For target='content': a regular expression searched in file contents. "
        "For target='files': a glob matched against file names (e.g. '*.py', 'test_*'); "
        "a plain word matches names containing it."
    )
    target: Literal["content", "files"] = Field(
        default="content",
        description="'content' to search inside files (grep), 'files' to find files by name.",
    )
    path: str = Field(
        default=".", description="Directory (or file) to search in. Default: the working directory."
    )
    file_glob: str | None = Field(
        default=None,
        description="Only search files whose names match this glob, e.g. '*.py' or '*.{ts,tsx}'.",
    )
    limit: int = Field(
        default=50, description=f"Maximum number of results to return (default 50, max {MAX_SEARCH_LIMIT})."
    )
    offset: int = Field(default=0, description="Number of results to skip, for paging through many results.")
    context: int = Field(
        default=0, description="Lines of context to show before and after each match (content search)."
    )

    @field_validator("target", mode="before")
    @classmethod
    def _lower_target(cls, v: object) -> object:
        return v.strip().lower() if isinstance(v, str) else v


@dataclass
class _Hit:
    """One output line: a match (counts as a result) or a context line / group separator (does not)."""

    path: str
    line: int | None
    text: str
    is_match: bool = True


def _clip(text: str) -> str:
    text = text.rstrip("\n").rstrip("\r")
    if len(text) > SEARCH_LINE_CHARS:
        return text[:SEARCH_LINE_CHARS] + f" [... {len(text) - SEARCH_LINE_CHARS} more characters]"
    return text


def _kind(path: Path, ctx: ToolContext) -> str | None:
    """What the environment has at `path`: "file", "dir", "other", or None (nothing, or unreadable)."""
    try:
        info = ctx.env.stat(path)
    except OSError:
        return None
    return None if info is None else info.kind


def _name_glob(pattern: str) -> str:
    if not any(c in pattern for c in "*?[{"):
        return f"*{pattern}*"
    return pattern


class _SearchCancelled(WalkCancelled):
    pass


def _run_lines(cmd: list[str], cwd: Path, ctx: ToolContext) -> Iterator[str]:
    """Lines of a command's stdout, checking the interrupt flag and a timeout while waiting.

    Closing the generator early (enough results) kills the process.
    """
    proc = ctx.env.spawn_argv(
        cmd, cwd=cwd, label="search_files (ripgrep)", stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    lines: queue.Queue[bytes | None] = queue.Queue()
    stderr_parts: list[bytes] = []

    def pump() -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            lines.put(raw)
        lines.put(None)

    def pump_err() -> None:
        assert proc.stderr is not None
        stderr_parts.append(proc.stderr.read(65536))
        proc.stderr.read()

    threading.Thread(target=pump, daemon=True).start()
    err_thread = threading.Thread(target=pump_err, daemon=True)
    err_thread.start()
    deadline = time.monotonic() + SEARCH_TIMEOUT
    try:
        while True:
            if ctx.interrupt.is_set():
                raise _SearchCancelled("interrupted")
            if time.monotonic() > deadline:
                raise _SearchCancelled(f"timed out after {SEARCH_TIMEOUT:.0f} s")
            try:
                raw = lines.get(timeout=0.05)
            except queue.Empty:
                continue
            if raw is None:
                break
            yield raw.decode("utf-8", errors="replace")
        proc.wait(timeout=10)
        err_thread.join(timeout=2)
        if proc.returncode not in (0, 1):
            err = b"".join(stderr_parts).decode("utf-8", errors="replace").strip()
            if err:
                yield "\x00ERROR\x00" + err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


_RG_BASE = ["rg", "--hidden", "--no-require-git", "--glob", "!.git", "--sort", "path", "--no-messages"]


def _rg_content(pattern: str, root: Path, args: SearchFilesArgs, ctx: ToolContext) -> Iterator[_Hit]:
    cmd = [*_RG_BASE, "--json"]
    if args.context > 0:
        cmd += ["--context", str(args.context)]
    cmd += _rg_glob_filter(args.file_glob)
    keep = glob_predicate(args.file_glob)
    cmd += ["--regexp", pattern]
    root_is_file = _kind(root, ctx) == "file"
    cwd = root.parent if root_is_file else root
    if root_is_file:
        cmd += ["--", root.name]
    for line in _run_lines(cmd, cwd, ctx):
        if line.startswith("\x00ERROR\x00"):
            raise ValueError(line[len("\x00ERROR\x00") :])
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        kind = event.get("type")
        if kind not in ("match", "context"):
            continue
        data = event.get("data", {})
        path_obj = data.get("path", {})
        rel = path_obj.get("text")
        if rel is None:
            continue
        lines_obj = data.get("lines", {})
        text = lines_obj.get("text")
        if text is None:  # not valid UTF-8: rg sends the bytes base64-encoded
            try:
                text = base64.b64decode(lines_obj.get("bytes", "")).decode("utf-8", errors="replace")
            except (ValueError, TypeError):
                text = "[undecodable line]"
        number = data.get("line_number")
        rel = rel.removeprefix("./")
        if keep(rel):
            yield _Hit(rel, number, _clip(text), is_match=kind == "match")


def _rg_files(root: Path, args: SearchFilesArgs, ctx: ToolContext) -> Iterator[_Hit]:
    cmd = [*_RG_BASE, "--files", *_rg_glob_filter(args.file_glob)]
    name_ok = glob_predicate(_name_glob(args.pattern), ignore_case=True)
    keep = glob_predicate(args.file_glob)
    for line in _run_lines(cmd, root, ctx):
        if line.startswith("\x00ERROR\x00"):
            raise ValueError(line[len("\x00ERROR\x00") :])
        rel = line.rstrip("\n").removeprefix("./")
        if rel and name_ok(rel) and keep(rel):
            yield _Hit(rel, None, "")


def _rg_glob_filter(glob: str | None) -> list[str]:
    """rg arguments restricting the search to file names matching `glob`, without overriding .gitignore.

    (`rg --glob` would whitelist ignored files; a file type does not.) Globs with a '/' are applied to the
    paths afterwards instead.
    """
    if not glob or "/" in glob:
        return []
    return ["--type-add", f"hermesglob:{glob}", "--type", "hermesglob"]


def _grep_content(pattern: str, root: Path, args: SearchFilesArgs, ctx: ToolContext) -> Iterator[_Hit]:
    """grep -rnIE in an environment without ripgrep (.git skipped, binary files skipped; .gitignore is
    not read). `-Z` ends each file name with a NUL, so names with ':' or '-' are read right."""
    regex = re.sub(r"\\d", "[0-9]", pattern)  # ERE has no \d; the rest of a usual pattern carries over
    cmd = ["grep", "-rnIEZ", "--exclude-dir=.git", "--color=never"]
    if args.context > 0:
        cmd += ["-C", str(args.context)]
    root_is_file = _kind(root, ctx) == "file"
    cwd = root.parent if root_is_file else root
    cmd += ["-e", regex, "--", root.name if root_is_file else "."]
    keep = glob_predicate(args.file_glob)
    for line in _run_lines(cmd, cwd, ctx):
        if line.startswith("\x00ERROR\x00"):
            raise ValueError(line[len("\x00ERROR\x00") :])
        name, sep, rest = line.partition("\0")
        match = re.match(r"(\d+)([:-])(.*)", rest, re.S) if sep else None
        if match is None:
            continue  # a group separator (--)
        rel = name.removeprefix("./")
        if keep(rel):
            yield _Hit(rel, int(match.group(1)), _clip(match.group(3)), is_match=match.group(2) == ":")


def _find_files(root: Path, args: SearchFilesArgs, ctx: ToolContext) -> Iterator[_Hit]:
    """find in an environment without ripgrep (.git skipped), sorted by path like rg's."""
    name_ok = glob_predicate(_name_glob(args.pattern), ignore_case=True)
    keep = glob_predicate(args.file_glob)
    found = [
        line.rstrip("\n").removeprefix("./")
        for line in _run_lines(
            ["find", ".", "-name", ".git", "-prune", "-o", "-type", "f", "-print"], root, ctx
        )
        if not line.startswith("\x00ERROR\x00")
    ]
    for rel in sorted(found):
        if rel and name_ok(rel) and keep(rel):
            yield _Hit(rel, None, "")


def _py_files(root: Path, args: SearchFilesArgs, ctx: ToolContext) -> Iterator[_Hit]:
    name_ok = glob_predicate(_name_glob(args.pattern), ignore_case=True)
    keep = glob_predicate(args.file_glob)
    for rel, _ in walk(root, ctx.interrupt.is_set):
        if name_ok(rel) and keep(rel):
            yield _Hit(rel, None, "")


def _py_content(pattern: str, root: Path, args: SearchFilesArgs, ctx: ToolContext) -> Iterator[_Hit]:
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"invalid regular expression: {exc}") from exc
    keep = glob_predicate(args.file_glob)
    ctx_n = max(0, args.context)
    for rel, path in walk(root, ctx.interrupt.is_set):
        if not keep(rel):
            continue
        try:
            if path.stat().st_size > FALLBACK_MAX_FILE_BYTES:
                continue
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        if b"\x00" in data[:BINARY_SNIFF_BYTES]:
            continue
        lines = data.decode("utf-8", errors="replace").splitlines()
        match_idx = [i for i, ln in enumerate(lines) if regex.search(ln)]
        if not match_idx:
            continue
        if ctx_n == 0:
            for i in match_idx:
                yield _Hit(rel, i + 1, _clip(lines[i]))
            continue
        matches = set(match_idx)
        shown: list[int] = []
        for i in match_idx:
            shown.extend(range(max(0, i - ctx_n), min(len(lines), i + ctx_n + 1)))
        for i in sorted(set(shown)):
            yield _Hit(rel, i + 1, _clip(lines[i]), is_match=i in matches)


def _format_hits(hits: list[_Hit], target: str, context: int) -> list[str]:
    """`path:line:text` for matches, `path-line-text` for context lines, `--` between separate groups."""
    if target != "content":
        return [h.path for h in hits]
    out: list[str] = []
    prev: _Hit | None = None
    for hit in hits:
        if (
            context > 0
            and prev is not None
            and (hit.path != prev.path or hit.line is None or prev.line is None or hit.line != prev.line + 1)
        ):
            out.append("--")
        sep = ":" if hit.is_match else "-"
        out.append(f"{hit.path}{sep}{hit.line}{sep}{hit.text}")
        prev = hit
    return out


def _near(ctx_hit: _Hit, match: _Hit, context: int, *, after: bool) -> bool:
    """Whether a context line is within `context` lines after (or before) a match in the same file."""
    if ctx_hit.path != match.path or ctx_hit.line is None or match.line is None:
        return False
    if after:
        return match.line < ctx_hit.line <= match.line + context
    return match.line - context <= ctx_hit.line < match.line


def _count(n: int, noun: str) -> str:
    plural = noun + ("es" if noun.endswith("ch") else "s")
    return f"{n} {noun if n == 1 else plural}"


COUNT_CAP = 100_000  # stop counting further results after this many


@dataclass
class _Page:
    """One page of results (`offset`, `limit`) as the hits stream in: its matches with their context lines
    (each line once), and every match counted, up to COUNT_CAP."""

    offset: int
    limit: int
    context: int
    hits: list[_Hit] = field(default_factory=list)
    total: int = 0
    files: set[str] = field(default_factory=set)
    capped: bool = False
    _seen: set[tuple[str, int | None]] = field(default_factory=set)
    _pending: list[_Hit] = field(default_factory=list)  # context lines since the last match
    _prev: _Hit | None = None
    _prev_in_page: bool = False

    def add(self, hit: _Hit) -> bool:
        """Take one hit; False once the count reached its cap (stop reading)."""
        if not hit.is_match:
            if self._prev_in_page or self.total < self.offset + self.limit:
                self._pending.append(hit)
            return True
        in_page = self.offset <= self.total < self.offset + self.limit
        self.total += 1
        self.files.add(hit.path)
        self.finish()  # the previous match's context after it ends here
        if in_page:
            self._take_near(hit, after=False)
            self._take(hit)
        self._pending = []
        self._prev, self._prev_in_page = hit, in_page
        self.capped = self.total >= COUNT_CAP
        return not self.capped

    def finish(self) -> None:
        """The context lines after the last match taken (once the hits end, or the next match came)."""
        if self._prev_in_page and self._prev is not None:
            self._take_near(self._prev, after=True)

    def _take_near(self, match: _Hit, *, after: bool) -> None:
        for line in self._pending:
            if _near(line, match, self.context, after=after):
                self._take(line)

    def _take(self, hit: _Hit) -> None:
        key = (hit.path, hit.line)
        if key not in self._seen:
            self._seen.add(key)
            self.hits.append(hit)


def search_files(args: SearchFilesArgs, ctx: ToolContext) -> ToolResult:
    if not args.pattern:
        return ToolResult.error("pattern is empty.")
    root = ctx.resolve(args.path or ".")
    shown_root = _display(root, ctx.cwd)
    kind = _kind(root, ctx)
    if kind is None:
        return ToolResult.error(f"Search path not found: {shown_root}")
    if args.target != "content" and kind == "file":
        return ToolResult.error(f"{shown_root} is a file; target='files' needs a directory to search in.")
    context = max(0, min(args.context, 20)) if args.target == "content" else 0
    args = args.model_copy(update={"context": context})
    use_rg = ctx.env.which("rg")
    # Without ripgrep: Python's walk here; grep and find in another environment (no .gitignore there).
    backend = "rg" if use_rg else "python" if ctx.env.is_local else "grep"
    if args.target == "content":
        content = {"rg": _rg_content, "python": _py_content, "grep": _grep_content}[backend]
        hits = content(args.pattern, root, args, ctx)
    else:
        hits = {"rg": _rg_files, "python": _py_files, "grep": _find_files}[backend](root, args, ctx)
    page = _Page(max(0, args.offset), min(max(1, args.limit), MAX_SEARCH_LIMIT), context)
    try:
        for hit in hits:
            if not page.add(hit):
                break
        page.finish()
    except WalkCancelled as exc:  # _SearchCancelled (ripgrep) too
        return ToolResult(content=f"Search {exc}.", status="cancelled")
    except ValueError as exc:
        return ToolResult.error(f"search failed: {exc}")
    finally:
        close = getattr(hits, "close", None)  # a generator's: ends ripgrep early
        if close:
            close()
    return _report(page, args, shown_root, backend)


def _report(page: _Page, args: SearchFilesArgs, shown_root: str, backend: str) -> ToolResult:
    """What the model reads: a header with the counts, the page, and how to see more."""
    total, offset = page.total, page.offset
    what = "match" if args.target == "content" else "file"
    data: dict[str, object] = {"total": total, "backend": backend, "capped": page.capped}
    if total == 0:
        if args.target == "content":
            msg = f"No matches for regex {args.pattern!r} in {shown_root}"
        else:
            msg = f"No files matching {_name_glob(args.pattern)!r} under {shown_root}"
        if args.file_glob:
            msg += f" (file_glob {args.file_glob!r})"
        return ToolResult(content=msg + ".", data=data)
    if not page.hits:
        return ToolResult(
            content=f"offset={offset} is past the end: there are {_count(total, what)}. "
            f"Use an offset below {total}.",
            data=data,
        )
    at_least = "at least " if page.capped else ""
    header = f"Found {at_least}{_count(total, what)}"
    if args.target == "content":
        header += f" in {_count(len(page.files), 'file')}"
    hits = _fit_page(page.hits, SEARCH_MAX_CHARS)
    shown = sum(1 for h in hits if h.is_match)
    first, last = offset + 1, offset + shown
    if (first, last) != (1, total):
        header += f" (showing {first}-{last})"
    header += f" in {shown_root}:" if shown_root != "." else ":"
    body = "\n".join(_format_hits(hits, args.target, page.context))
    remaining = total - last
    footer = ""
    if remaining > 0:
        footer = f"\n[{at_least}{remaining} more results: use offset={last} to see more]"
    data["shown"] = shown
    return ToolResult(content=f"{header}\n{body}{footer}", data=data)


def _fit_page(page: list[_Hit], budget: int) -> list[_Hit]:
    """The page cut before the match that would take the output over `budget` characters (at least one)."""
    size = 0
    for i, hit in enumerate(page):
        size += len(hit.path) + len(hit.text) + 16
        if size > budget and hit.is_match and any(h.is_match for h in page[:i]):
            return page[:i]
    return page


SEARCH_FILES_TOOL = Tool(
    name="search_files",
    toolset="file",
    description=(
        "Search the project: target='content' finds lines matching a regex (output `path:line:text`), "
        "target='files' finds files whose names match a glob. Respects .gitignore and skips binary files and "
        ".git. Use instead of grep/find in the terminal. Page with offset when there are many results."
    ),
    args_model=SearchFilesArgs,
    handler=search_files,
    parallel_safe=True,
    summary_arg="pattern",
)

TOOLS = [SEARCH_FILES_TOOL]

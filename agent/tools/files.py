"""File tools: `read_file`, `write_file`, `patch`, `search_files`.

Paths are relative to the session's working directory (`ctx.resolve`). Writes are atomic (temp file in the
same directory + `os.replace`), keep the mode of the file they replace, and go through the approval gate
(`ctx.approvals.review_write`) first. Every problem the model can cause is an error result that says what
to do instead.
"""

from __future__ import annotations

import base64
import difflib
import json
import os
import queue
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent.fileio import atomic_write_bytes
from agent.humanize import format_size
from agent.tools.registry import Tool, ToolContext, ToolResult

DEFAULT_READ_LIMIT = 500
MAX_READ_LIMIT = 2000
MAX_LINE_CHARS = 2000
# Hermes reads up to ~100K characters; we stop earlier so a read stays within the executor's 50,000-character
# result budget (which would otherwise cut the middle out, continuation note included).
MAX_READ_CHARS = 45_000
SEARCH_MAX_CHARS = 45_000
BINARY_SNIFF_BYTES = 8192
MAX_DIFF_CHARS = 20_000  # in the result the model sees; `data["diff"]` keeps more for the UI
MAX_DIFF_DATA_CHARS = 500_000
SEARCH_LINE_CHARS = 500
MAX_SEARCH_LIMIT = 500
SEARCH_TIMEOUT = 60.0
FALLBACK_MAX_FILE_BYTES = 20 * 1024 * 1024

BINARY_EXTENSIONS: dict[str, str] = {
    **dict.fromkeys(
        (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tif", ".tiff", ".psd", ".heic"), "image"
    ),
    ".pdf": "PDF document",
    **dict.fromkeys(
        (".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".tar", ".jar", ".whl", ".egg"),
        "archive",
    ),
    **dict.fromkeys(
        (".exe", ".dll", ".so", ".dylib", ".o", ".a", ".lib", ".obj", ".bin"), "binary executable"
    ),
    **dict.fromkeys((".pyc", ".pyo", ".class", ".wasm"), "compiled bytecode"),
    **dict.fromkeys((".mp3", ".wav", ".ogg", ".flac", ".m4a", ".aac", ".opus"), "audio"),
    **dict.fromkeys((".mp4", ".mov", ".avi", ".mkv", ".webm", ".m4v"), "video"),
    **dict.fromkeys((".ttf", ".otf", ".woff", ".woff2", ".eot"), "font"),
    **dict.fromkeys((".sqlite", ".sqlite3", ".db"), "database"),
    **dict.fromkeys((".docx", ".xlsx", ".pptx", ".odt", ".ods"), "office document"),
    ".npy": "NumPy array",
    ".pkl": "pickle",
    ".pickle": "pickle",
    ".parquet": "Parquet data",
}

_MAGIC: list[tuple[bytes, str]] = [
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"%PDF", "PDF document"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"\x1f\x8b", "gzip archive"),
    (b"\x7fELF", "ELF executable"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"\xca\xfe\xba\xbe", "Java class / Mach-O binary"),
    (b"MZ", "Windows executable"),
]


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore")


# --------------------------------------------------------------------------------------------------------
# Shared helpers


def _display(path: Path, cwd: Path) -> str:
    """A path as the model should see it: relative to the working directory when inside it."""
    try:
        rel = path.relative_to(cwd)
    except ValueError:
        return str(path)
    return str(rel) if str(rel) != "." else "."


def _binary_kind(path: Path, head: bytes) -> str | None:
    """What kind of binary file this is, or None when it looks like text."""
    for magic, kind in _MAGIC:
        if head.startswith(magic) and (magic != b"MZ" or b"\x00" in head):
            return kind
    ext_kind = BINARY_EXTENSIONS.get(path.suffix.lower())
    if ext_kind:
        return f"{ext_kind} ({path.suffix.lower()})"
    if b"\x00" in head:
        return "binary data"
    return None


def _sniff(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(BINARY_SNIFF_BYTES)


def _missing_file_message(path: Path, cwd: Path) -> str:
    msg = f"File not found: {_display(path, cwd)}"
    parent = path.parent
    if parent.is_dir():
        try:
            names = [e.name for e in os.scandir(parent)]
        except OSError:
            names = []
        close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
        if close:
            msg += ". Did you mean: " + ", ".join(_display(parent / n, cwd) for n in close) + "?"
    else:
        msg += f" (the directory {_display(parent, cwd)} does not exist either)"
    return msg


def _directory_message(path: Path, cwd: Path) -> str:
    try:
        entries = sorted(os.scandir(path), key=lambda e: e.name)
    except OSError as exc:
        return f"{_display(path, cwd)} is a directory (cannot list it: {exc.strerror})."
    shown = [e.name + ("/" if e.is_dir(follow_symlinks=False) else "") for e in entries[:20]]
    more = f", ... ({len(entries) - 20} more)" if len(entries) > 20 else ""
    listing = ", ".join(shown) + more if shown else "(empty)"
    return (
        f"{_display(path, cwd)} is a directory, not a file. It contains {len(entries)} entries: {listing}. "
        "Use read_file on one of the files, or search_files with target='files' to find files."
    )


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically, keeping an existing file's permission bits; creates parents.

    A symlink is followed: its target is replaced, the link stays.
    """
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    atomic_write_bytes(target, data)


def _lines_for_diff(text: str) -> list[str]:
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n\\ No newline at end of file\n"
    return lines


def _printable(text: str) -> str:
    """Lone surrogates (from surrogateescape-decoded bytes) made printable."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def unified_diff(old: str, new: str, name: str, *, context: int = 3) -> str:
    diff = difflib.unified_diff(
        _lines_for_diff(old), _lines_for_diff(new), fromfile=f"a/{name}", tofile=f"b/{name}", n=context
    )
    return _printable("".join(diff))


def _cap_diff(diff: str, budget: int) -> str:
    if len(diff) <= budget:
        return diff
    cut = diff.rfind("\n", 0, budget)
    cut = budget if cut == -1 else cut + 1
    return diff[:cut] + f"[... diff truncated: {len(diff) - cut} more characters ...]\n"


def _review_write(ctx: ToolContext, path: Path, tool_name: str) -> ToolResult | None:
    if ctx.approvals is None:
        return None
    verdict = ctx.approvals.review_write(path, ctx.cwd, tool_name=tool_name)
    if verdict.allowed:
        return None
    return ToolResult(content=verdict.message, status="denied", data={"decision": verdict.decision})


def _os_error(action: str, path: Path, cwd: Path, exc: OSError) -> ToolResult:
    if isinstance(exc, PermissionError):
        return ToolResult.error(f"Permission denied: cannot {action} {_display(path, cwd)}.")
    reason = exc.strerror or str(exc)
    return ToolResult.error(f"Cannot {action} {_display(path, cwd)}: {reason}.")


# --------------------------------------------------------------------------------------------------------
# read_file


class ReadFileArgs(_Args):
    path: str = Field(
        description="Path of the file to read, relative to the working directory (or absolute)."
    )
    offset: int = Field(default=1, description="Line number to start reading from (1-based). Default 1.")
    limit: int = Field(
        default=DEFAULT_READ_LIMIT,
        description=f"Maximum number of lines to read (default {DEFAULT_READ_LIMIT}, "
        f"maximum {MAX_READ_LIMIT}).",
    )


def _iter_lines(fh: BinaryIO, cap: int = 65536) -> Iterator[tuple[bytes, int]]:
    """(line bytes, full length) per line; a line longer than `cap` bytes is cut (the rest is skipped)."""
    while True:
        chunk = fh.readline(cap)
        if not chunk:
            return
        if chunk.endswith(b"\n") or len(chunk) < cap:
            yield chunk, len(chunk)
            continue
        total = len(chunk)
        while True:
            more = fh.readline(cap)
            total += len(more)
            if not more:
                break
            if more.endswith(b"\n"):
                total -= 2 if more.endswith(b"\r\n") else 1
                break
        yield chunk, total


def read_file(args: ReadFileArgs, ctx: ToolContext) -> ToolResult:
    path = ctx.resolve(args.path)
    shown = _display(path, ctx.cwd)
    offset = max(1, args.offset)
    limit = min(max(1, args.limit), MAX_READ_LIMIT)
    if not path.exists():
        return ToolResult.error(_missing_file_message(path, ctx.cwd))
    if path.is_dir():
        return ToolResult.error(_directory_message(path, ctx.cwd))
    if not path.is_file():
        return ToolResult.error(
            f"{shown} is not a regular file (a device, socket or pipe); it cannot be read."
        )
    try:
        size = path.stat().st_size
        kind = _binary_kind(path, _sniff(path))
        if kind:
            return ToolResult.error(
                f"{shown} is a binary file ({kind}, {format_size(size)}); read_file only reads text files."
            )
        out: list[str] = []
        chars = 0
        line_no = 0
        next_offset: int | None = None
        with open(path, "rb") as fh:
            for raw, raw_len in _iter_lines(fh):
                line_no += 1
                if line_no < offset:
                    continue
                if len(out) >= limit or chars >= MAX_READ_CHARS:
                    next_offset = line_no
                    break
                line = raw.decode("utf-8", errors="replace").rstrip("\n").rstrip("\r")
                if len(line) > MAX_LINE_CHARS or raw_len > len(raw):
                    total_len = len(line) if raw_len == len(raw) else raw_len
                    line = line[:MAX_LINE_CHARS] + f" [... line truncated: {total_len} characters in total]"
                entry = f"{line_no:>6}|{line}"
                out.append(entry)
                chars += len(entry) + 1
            if next_offset is not None:
                # Count the rest of the file's lines quickly, without decoding them.
                last = b"\n"
                while chunk := fh.read(1 << 20):
                    line_no += chunk.count(b"\n")
                    last = chunk[-1:]
                if last != b"\n":
                    line_no += 1  # a final line without a newline
    except PermissionError:
        return ToolResult.error(f"Permission denied: cannot read {shown}.")
    except OSError as exc:
        return _os_error("read", path, ctx.cwd, exc)

    total = line_no
    data = {"path": str(path), "total_lines": total, "offset": offset}
    if total == 0:
        return ToolResult(content=f"({shown} is empty)", data=data)
    if not out:
        return ToolResult.error(
            f"offset={offset} is past the end of {shown}, which has {total} lines. "
            f"Use an offset between 1 and {total}."
        )
    content = "\n".join(out)
    if next_offset is not None:
        content += f"\n[... file continues: use offset={next_offset} to read more; total lines: {total}]"
    data["next_offset"] = next_offset
    return ToolResult(content=content, data=data)


# --------------------------------------------------------------------------------------------------------
# write_file


class WriteFileArgs(_Args):
    path: str = Field(
        description="Path of the file to write, relative to the working directory (or absolute). "
        "Parent directories are created."
    )
    content: str = Field(description="The complete new content of the file (it replaces the whole file).")


def _read_existing_text(path: Path) -> tuple[str | None, bool]:
    """(text, is_binary) of an existing file; (None, False) when it does not exist."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, False
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return "", True
    return data.decode("utf-8", errors="surrogateescape"), False


def write_file(args: WriteFileArgs, ctx: ToolContext) -> ToolResult:
    path = ctx.resolve(args.path)
    shown = _display(path, ctx.cwd)
    if path.is_dir():
        return ToolResult.error(f"{shown} is a directory; give the path of a file.")
    denied = _review_write(ctx, path, "write_file")
    if denied:
        return denied
    ctx.checkpoint()
    try:
        old, old_binary = _read_existing_text(path)
        new_bytes = args.content.encode("utf-8", errors="surrogateescape")
        atomic_write(path, new_bytes)
    except UnicodeEncodeError as exc:
        return ToolResult.error(f"content cannot be encoded as UTF-8: {exc.reason}")
    except OSError as exc:
        return _os_error("write", path, ctx.cwd, exc)

    n_lines = len(args.content.splitlines())
    data: dict[str, object] = {"path": str(path), "created": old is None}
    if old is None:
        diff = unified_diff("", args.content, shown)
        data["diff"] = _cap_diff(diff, MAX_DIFF_DATA_CHARS)
        return ToolResult(
            content=f"Created new file {shown} ({n_lines} lines, {format_size(len(new_bytes))}).", data=data
        )
    if old_binary:
        data["diff"] = ""
        return ToolResult(
            content=f"Replaced binary file {shown} with {n_lines} lines of text "
            f"({format_size(len(new_bytes))}).",
            data=data,
        )
    if old == args.content:
        data["diff"] = ""
        return ToolResult(content=f"{shown} already had exactly this content: nothing changed.", data=data)
    diff = unified_diff(old, args.content, shown)
    data["diff"] = _cap_diff(diff, MAX_DIFF_DATA_CHARS)
    return ToolResult(
        content=f"Wrote {shown} ({n_lines} lines, {format_size(len(new_bytes))}).\n"
        + _cap_diff(diff, MAX_DIFF_CHARS),
        data=data,
    )


# --------------------------------------------------------------------------------------------------------
# patch


class PatchArgs(_Args):
    path: str = Field(
        description="Path of the file to edit, relative to the working directory (or absolute)."
    )
    old_string: str = Field(
        description="The exact text to replace, including whitespace and indentation. It must occur exactly "
        "once in the file unless replace_all is true: include enough surrounding lines to make it unique."
    )
    new_string: str = Field(description="The text to put in its place (empty to delete old_string).")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence of old_string instead of exactly one."
    )


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _closest_lines(text: str, needle: str) -> list[str]:
    """A few lines of the file that look like the first line of `needle` (cheap: one line compared)."""
    probe = next((ln.strip() for ln in needle.splitlines() if ln.strip()), "")
    if not probe:
        return []
    lines = text.splitlines()[:20_000]
    stripped = [ln.strip() for ln in lines]
    close = difflib.get_close_matches(probe, stripped, n=3, cutoff=0.6)
    found = []
    for candidate in close:
        idx = stripped.index(candidate)
        found.append(f"{idx + 1:>6}|{_printable(lines[idx])[:300]}")
    return found


def patch(args: PatchArgs, ctx: ToolContext) -> ToolResult:
    path = ctx.resolve(args.path)
    shown = _display(path, ctx.cwd)
    if not args.old_string:
        return ToolResult.error("old_string is empty. To create or overwrite a whole file use write_file.")
    if args.old_string == args.new_string:
        return ToolResult.error("old_string and new_string are identical: there is nothing to change.")
    if not path.exists():
        return ToolResult.error(_missing_file_message(path, ctx.cwd) + " (use write_file to create a file)")
    if path.is_dir():
        return ToolResult.error(f"{shown} is a directory; give the path of a file.")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return _os_error("read", path, ctx.cwd, exc)
    kind = _binary_kind(path, raw[:BINARY_SNIFF_BYTES])
    if kind:
        return ToolResult.error(f"{shown} is a binary file ({kind}); patch only edits text files.")
    text = raw.decode("utf-8", errors="surrogateescape")

    old_s, new_s = args.old_string, args.new_string
    count = text.count(old_s)
    if count == 0 and "\r\n" in text and "\r\n" not in old_s and "\n" in old_s:
        # The file has Windows line endings; the model wrote \n.
        crlf_old = old_s.replace("\n", "\r\n")
        if text.count(crlf_old):
            old_s, new_s = crlf_old, new_s.replace("\r\n", "\n").replace("\n", "\r\n")
            count = text.count(old_s)
    if count == 0:
        msg = f"old_string was not found in {shown} (0 matches). It must match exactly, including whitespace."
        closest = _closest_lines(text, args.old_string)
        if closest:
            msg += " The closest-looking lines are:\n" + "\n".join(closest)
        msg += "\nRead the file (read_file) around that place and copy the text exactly."
        return ToolResult.error(msg, matches=0)
    if count > 1 and not args.replace_all:
        positions, start = [], 0
        while len(positions) < 10:
            idx = text.find(old_s, start)
            if idx == -1:
                break
            positions.append(_line_of(text, idx))
            start = idx + 1
        more = ", ..." if count > len(positions) else ""
        return ToolResult.error(
            f"old_string occurs {count} times in {shown} (at lines {', '.join(map(str, positions))}{more}). "
            "Include more surrounding context in old_string so it matches exactly one place, "
            "or set replace_all=true to replace every occurrence.",
            matches=count,
        )

    denied = _review_write(ctx, path, "patch")
    if denied:
        return denied
    ctx.checkpoint()
    new_text = text.replace(old_s, new_s) if args.replace_all else text.replace(old_s, new_s, 1)
    replacements = count if args.replace_all else 1
    try:
        atomic_write(path, new_text.encode("utf-8", errors="surrogateescape"))
    except OSError as exc:
        return _os_error("write", path, ctx.cwd, exc)
    diff = unified_diff(text, new_text, shown)
    plural = "s" if replacements != 1 else ""
    return ToolResult(
        content=f"Patched {shown}: {replacements} replacement{plural}.\n{_cap_diff(diff, MAX_DIFF_CHARS)}",
        data={"diff": _cap_diff(diff, MAX_DIFF_DATA_CHARS), "path": str(path), "replacements": replacements},
    )


# --------------------------------------------------------------------------------------------------------
# search_files


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


def _name_glob(pattern: str) -> str:
    if not any(c in pattern for c in "*?[{"):
        return f"*{pattern}*"
    return pattern


class _SearchCancelled(Exception):
    pass


def _run_lines(cmd: list[str], cwd: Path, ctx: ToolContext) -> Iterator[str]:
    """Lines of a command's stdout, checking the interrupt flag and a timeout while waiting.

    Closing the generator early (enough results) kills the process.
    """
    proc = subprocess.Popen(
        cmd, cwd=str(cwd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
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
    keep = _glob_predicate(args.file_glob)
    cmd += ["--regexp", pattern]
    cwd = root.parent if root.is_file() else root
    if root.is_file():
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
    name_ok = _glob_predicate(_name_glob(args.pattern), ignore_case=True)
    keep = _glob_predicate(args.file_glob)
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


def _glob_predicate(glob: str | None, *, ignore_case: bool = False) -> Callable[[str], bool]:
    """Like rg / gitignore: a glob without '/' matches the file name at any depth, one with '/' the path."""
    if not glob:
        return lambda rel: True
    regex = re.compile(_glob_to_regex(glob.lstrip("/")) + r"\Z", re.IGNORECASE if ignore_case else 0)
    if "/" in glob:
        return lambda rel: bool(regex.match(rel))
    return lambda rel: bool(regex.match(rel.rsplit("/", 1)[-1]))


# Pure-Python fallback ------------------------------------------------------------------------------------


def _glob_to_regex(pattern: str) -> str:
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
                out.append("(?:" + "|".join(_glob_to_regex(a) for a in alts) + ")")
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
            text = gitignore.read_text(encoding="utf-8", errors="replace")
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
                _IgnoreRule(base, re.compile(_glob_to_regex(line) + r"\Z"), negate, dir_only, anchored)
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


def _load_gitignores(root: Path) -> GitIgnore:
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


def _walk(root: Path, ctx: ToolContext) -> Iterator[tuple[str, Path]]:
    """(relative path, absolute path) of the files under root, sorted, honouring .gitignore, skipping .git."""
    if root.is_file():
        yield root.name, root
        return
    ignore = _load_gitignores(root)
    stack: list[tuple[str, Path]] = [("", root)]
    while stack:
        rel_dir, directory = stack.pop()
        if ctx.interrupt.is_set():
            raise _SearchCancelled("interrupted")
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


def _py_files(root: Path, args: SearchFilesArgs, ctx: ToolContext) -> Iterator[_Hit]:
    name_ok = _glob_predicate(_name_glob(args.pattern), ignore_case=True)
    keep = _glob_predicate(args.file_glob)
    for rel, _ in _walk(root, ctx):
        if name_ok(rel) and keep(rel):
            yield _Hit(rel, None, "")


def _py_content(pattern: str, root: Path, args: SearchFilesArgs, ctx: ToolContext) -> Iterator[_Hit]:
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"invalid regular expression: {exc}") from exc
    keep = _glob_predicate(args.file_glob)
    ctx_n = max(0, args.context)
    for rel, path in _walk(root, ctx):
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


def search_files(args: SearchFilesArgs, ctx: ToolContext) -> ToolResult:
    if not args.pattern:
        return ToolResult.error("pattern is empty.")
    root = ctx.resolve(args.path or ".")
    shown_root = _display(root, ctx.cwd)
    if not root.exists():
        return ToolResult.error(f"Search path not found: {shown_root}")
    limit = min(max(1, args.limit), MAX_SEARCH_LIMIT)
    offset = max(0, args.offset)
    context = max(0, min(args.context, 20)) if args.target == "content" else 0
    use_rg = shutil.which("rg") is not None
    args = args.model_copy(update={"context": context})
    if args.target == "content":
        hits = (_rg_content if use_rg else _py_content)(args.pattern, root, args, ctx)
    else:
        if root.is_file():
            return ToolResult.error(f"{shown_root} is a file; target='files' needs a directory to search in.")
        hits = (_rg_files if use_rg else _py_files)(root, args, ctx)

    page: list[_Hit] = []
    seen: set[tuple[str, int | None]] = set()
    pending: list[_Hit] = []  # context lines since the last match
    prev: _Hit | None = None
    prev_in_page = False
    total = 0
    files: set[str] = set()
    capped = False

    def take(hit: _Hit) -> None:
        key = (hit.path, hit.line)
        if key not in seen:
            seen.add(key)
            page.append(hit)

    try:
        for hit in hits:
            if not hit.is_match:
                if prev_in_page or total < offset + limit:
                    pending.append(hit)
                continue
            in_page = offset <= total < offset + limit
            total += 1
            files.add(hit.path)
            if prev_in_page and prev is not None:
                for c in pending:
                    if _near(c, prev, context, after=True):
                        take(c)
            if in_page:
                for c in pending:
                    if _near(c, hit, context, after=False):
                        take(c)
                take(hit)
            pending = []
            prev, prev_in_page = hit, in_page
            if total >= COUNT_CAP:
                capped = True
                break
        if prev_in_page and prev is not None:
            for c in pending:
                if _near(c, prev, context, after=True):
                    take(c)
    except _SearchCancelled as exc:
        return ToolResult(content=f"Search {exc}.", status="cancelled")
    except ValueError as exc:
        return ToolResult.error(f"search failed: {exc}")
    finally:
        close = getattr(hits, "close", None)
        if close:
            close()

    what = "match" if args.target == "content" else "file"
    data: dict[str, object] = {"total": total, "backend": "rg" if use_rg else "python", "capped": capped}
    if total == 0:
        if args.target == "content":
            msg = f"No matches for regex {args.pattern!r} in {shown_root}"
        else:
            msg = f"No files matching {_name_glob(args.pattern)!r} under {shown_root}"
        if args.file_glob:
            msg += f" (file_glob {args.file_glob!r})"
        return ToolResult(content=msg + ".", data=data)
    if not page:
        return ToolResult(
            content=f"offset={offset} is past the end: there are {_count(total, what)}. "
            f"Use an offset below {total}.",
            data=data,
        )
    at_least = "at least " if capped else ""
    header = f"Found {at_least}{_count(total, what)}"
    if args.target == "content":
        header += f" in {_count(len(files), 'file')}"
    page = _fit_page(page, SEARCH_MAX_CHARS)
    shown = sum(1 for h in page if h.is_match)
    first, last = offset + 1, offset + shown
    if (first, last) != (1, total):
        header += f" (showing {first}-{last})"
    header += f" in {shown_root}:" if shown_root != "." else ":"
    body = "\n".join(_format_hits(page, args.target, context))
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


READ_FILE_TOOL = Tool(
    name="read_file",
    toolset="file",
    description=(
        "Read a text file with line numbers (format `LINE|content`). Reads up to 500 lines from `offset` "
        "(max 2000); the result says how to continue when the file is longer. Use this instead of cat/head/"
        "sed in the terminal. Refuses binary files."
    ),
    args_model=ReadFileArgs,
    handler=read_file,
    parallel_safe=True,
    path_scoped=True,
    summary_arg="path",
)

WRITE_FILE_TOOL = Tool(
    name="write_file",
    toolset="file",
    description=(
        "Create a file or replace its whole content (parent directories are created; the write is atomic). "
        "Returns a diff against the previous content. To change part of an existing file use patch instead."
    ),
    args_model=WriteFileArgs,
    handler=write_file,
    path_scoped=True,
    summary_arg="path",
)

PATCH_TOOL = Tool(
    name="patch",
    toolset="file",
    description=(
        "Edit a file by replacing an exact piece of text: old_string must match the file exactly (whitespace "
        "and indentation included) and occur exactly once, unless replace_all is true. Read the file first. "
        "Returns a unified diff of the change."
    ),
    args_model=PatchArgs,
    handler=patch,
    path_scoped=True,
    summary_arg="path",
)

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

TOOLS = [READ_FILE_TOOL, WRITE_FILE_TOOL, PATCH_TOOL, SEARCH_FILES_TOOL]

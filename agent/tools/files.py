"""File tools: `read_file`, `write_file`, `patch` (`search_files` is in `agent.tools.search_files`).

Paths are relative to the session's working directory (`ctx.resolve`). Writes are atomic (temp file in the
same directory + `os.replace`), keep the mode of the file they replace, and go through the approval gate
(`ctx.approvals.review_write`) first. Every problem the model can cause is an error result that says what
to do instead.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from pydantic import BaseModel, ConfigDict, Field

from agent.core.fileio import atomic_write_bytes
from agent.core.humanize import format_size
from agent.toolkit.registry import Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from agent.environments import Environment

DEFAULT_READ_LIMIT = 500
MAX_READ_LIMIT = 2000
MAX_LINE_CHARS = 2000
# Hermes reads up to ~100K characters; we stop earlier so a read stays within the executor's 50,000-character
# result budget (which would otherwise cut the middle out, continuation note included).
MAX_READ_CHARS = 45_000
BINARY_SNIFF_BYTES = 8192
MAX_DIFF_CHARS = 20_000  # in the result the model sees; `data["diff"]` keeps more for the UI
MAX_DIFF_DATA_CHARS = 500_000

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


def _sniff(path: Path, env: Environment) -> bytes:
    with env.open_read(path) as fh:
        return fh.read(BINARY_SNIFF_BYTES)


def _is_dir(env: Environment, path: Path) -> bool:
    try:
        info = env.stat(path)
    except OSError:
        return False
    return info is not None and info.kind == "dir"


def _missing_file_message(path: Path, cwd: Path, env: Environment) -> str:
    msg = f"File not found: {_display(path, cwd)}"
    parent = path.parent
    if _is_dir(env, parent):
        try:
            names = [e.name for e in env.list_dir(parent)]
        except OSError:
            names = []
        close = difflib.get_close_matches(path.name, names, n=3, cutoff=0.6)
        if close:
            msg += ". Did you mean: " + ", ".join(_display(parent / n, cwd) for n in close) + "?"
    else:
        msg += f" (the directory {_display(parent, cwd)} does not exist either)"
    return msg


def _directory_message(path: Path, cwd: Path, env: Environment) -> str:
    try:
        entries = env.list_dir(path)
    except OSError as exc:
        return f"{_display(path, cwd)} is a directory (cannot list it: {exc.strerror})."
    shown = [e.name + ("/" if e.is_dir else "") for e in entries[:20]]
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


def _review_write(
    ctx: ToolContext, path: Path, tool_name: str, diff: Callable[[], str] | None = None
) -> ToolResult | None:
    """`diff`: what the edit changes, made only if the gate asks (the question shows it)."""
    if ctx.approvals is None:
        return None
    verdict = ctx.approvals.review_write(path, ctx.cwd, tool_name=tool_name, diff=diff)
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
    env = ctx.env
    try:
        info = env.stat(path)
    except OSError as exc:
        return _os_error("read", path, ctx.cwd, exc)
    if info is None:
        return ToolResult.error(_missing_file_message(path, ctx.cwd, env))
    if info.kind == "dir":
        return ToolResult.error(_directory_message(path, ctx.cwd, env))
    if info.kind != "file":
        return ToolResult.error(
            f"{shown} is not a regular file (a device, socket or pipe); it cannot be read."
        )
    try:
        size = info.size
        kind = _binary_kind(path, _sniff(path, env))
        if kind:
            return ToolResult.error(
                f"{shown} is a binary file ({kind}, {format_size(size)}); read_file only reads text files."
            )
        out: list[str] = []
        chars = 0
        line_no = 0
        next_offset: int | None = None
        with env.open_read(path) as fh:
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


def _read_existing_text(path: Path, env: Environment) -> tuple[str | None, bool]:
    """(text, is_binary) of an existing file; (None, False) when it does not exist."""
    try:
        with env.open_read(path) as fh:
            data = fh.read()
    except FileNotFoundError:
        return None, False
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return "", True
    return data.decode("utf-8", errors="surrogateescape"), False


def write_file(args: WriteFileArgs, ctx: ToolContext) -> ToolResult:
    path = ctx.resolve(args.path)
    shown = _display(path, ctx.cwd)
    env = ctx.env
    if _is_dir(env, path):
        return ToolResult.error(f"{shown} is a directory; give the path of a file.")

    def planned_diff() -> str:
        old, binary = _read_existing_text(path, env)
        if binary:
            return f"(replaces the binary file {shown})"
        return _cap_diff(unified_diff(old or "", args.content, shown), MAX_DIFF_DATA_CHARS)

    denied = _review_write(ctx, path, "write_file", planned_diff)
    if denied:
        return denied
    ctx.checkpoint()
    try:
        old, old_binary = _read_existing_text(path, env)
        new_bytes = args.content.encode("utf-8", errors="surrogateescape")
        env.write_bytes(path, new_bytes)
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
    env = ctx.env
    try:
        info = env.stat(path)
    except OSError as exc:
        return _os_error("read", path, ctx.cwd, exc)
    if info is None:
        return ToolResult.error(
            _missing_file_message(path, ctx.cwd, env) + " (use write_file to create a file)"
        )
    if info.kind == "dir":
        return ToolResult.error(f"{shown} is a directory; give the path of a file.")
    try:
        with env.open_read(path) as fh:
            raw = fh.read()
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
        positions: list[int] = []
        start = 0
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

    new_text = text.replace(old_s, new_s) if args.replace_all else text.replace(old_s, new_s, 1)
    denied = _review_write(
        ctx, path, "patch", lambda: _cap_diff(unified_diff(text, new_text, shown), MAX_DIFF_DATA_CHARS)
    )
    if denied:
        return denied
    ctx.checkpoint()
    replacements = count if args.replace_all else 1
    try:
        env.write_bytes(path, new_text.encode("utf-8", errors="surrogateescape"))
    except OSError as exc:
        return _os_error("write", path, ctx.cwd, exc)
    diff = unified_diff(text, new_text, shown)
    plural = "s" if replacements != 1 else ""
    return ToolResult(
        content=f"Patched {shown}: {replacements} replacement{plural}.\n{_cap_diff(diff, MAX_DIFF_CHARS)}",
        data={"diff": _cap_diff(diff, MAX_DIFF_DATA_CHARS), "path": str(path), "replacements": replacements},
    )


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


TOOLS = [READ_FILE_TOOL, WRITE_FILE_TOOL, PATCH_TOOL]

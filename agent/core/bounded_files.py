"""Files the app reads on its own (skills, memory, SOUL.md, context files, config.yaml, .env, themes, the
prompt history, cron's jobs.json, plugin manifests), read with limits: the one reader they all go through.

Why: those files sit in folders other programs and people write to, and a hostile or broken one must cost
one line, never the app. A FIFO named `MEMORY.md` blocked the first turn forever (and Ctrl+Q with it); a
symlink to `/dev/zero` is a file of endless size; 1 KB of YAML aliases ("billion laughs") expands to
gigabytes once anything walks it. So every read here:

- accepts only a regular file (`os.stat` follows a symlink, so a link to a device, a FIFO or a socket is
  refused), opened with `O_NONBLOCK` so a FIFO swapped in between the check and the open cannot block,
  and checked again on the open descriptor;
- has a size cap per kind of file: refused unread when larger (`read_bytes`/`read_text`), or only the head
  or the tail read (`read_head`/`read_tail`) where the caller truncates anyway;

YAML from those files is loaded by `agent.config.yaml_files.load_yaml`, which bounds alias expansion.

A refusal is a `FileRefused` (an `OSError`, so every reader's existing `except OSError` already skips the
file) whose message is the one line, and the reader logs that line once per file and reason.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from pathlib import Path

__all__ = [
    "MAX_CONFIG_BYTES",
    "MAX_DOTENV_BYTES",
    "MAX_MEMORY_BYTES",
    "FileRefused",
    "read_bytes",
    "read_head",
    "read_tail",
    "read_text",
]

log = logging.getLogger(__name__)

MAX_MEMORY_BYTES = 1_000_000
"""MEMORY.md / USER.md: Hermes keeps them to a few thousand characters; a megabyte is not memory."""
MAX_CONFIG_BYTES = 4 * 1024 * 1024
"""A YAML or JSON file people or the app write (config.yaml, jobs.json, a manifest): nobody writes 4 MiB."""
MAX_DOTENV_BYTES = 1_000_000
"""`.env`: a few lines of keys."""

_CHUNK = 1 << 16
_told: set[tuple[str, str]] = set()
_told_lock = threading.Lock()


class FileRefused(OSError):
    """A file the reader would not read: not a regular file, or over its size cap. `str()` is the one line."""

    def __init__(self, path: Path | str, reason: str) -> None:
        super().__init__(reason)
        self.strerror = reason  # what `exc.strerror or exc` shows, as for any OSError
        self.path = Path(path)
        self.reason = reason

    def __str__(self) -> str:
        return f"skipped {self.path}: {self.reason}"


def _refuse(path: Path | str, reason: str) -> FileRefused:
    refused = FileRefused(path, reason)
    with _told_lock:
        first = (str(path), reason) not in _told
        _told.add((str(path), reason))
    if first:
        log.warning("%s", refused)
    return refused


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _open_regular(path: Path | str) -> tuple[int, int]:
    """(descriptor, size) of the regular file at `path`; FileRefused for anything else. FileNotFoundError
    (and the other OSErrors of a missing or unreadable file) pass through unchanged."""
    st = os.stat(path)  # follows symlinks: a link to /dev/zero is a character device here
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(path, f"{_kind(st.st_mode)}, not a regular file")
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)  # what was opened, in case it was swapped after the check
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(path, f"{_kind(st.st_mode)}, not a regular file")
    except BaseException:
        os.close(fd)
        raise
    return fd, st.st_size


def _read_up_to(fd: int, limit: int) -> bytes:
    parts: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(_CHUNK, left))
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def read_bytes(path: Path | str, *, limit: int) -> bytes:
    """The whole file, or FileRefused when it is not a regular file or holds more than `limit` bytes
    (checked before reading and again while reading: a file that grows is refused too)."""
    fd, size = _open_regular(path)
    try:
        if size > limit:
            raise _refuse(path, f"too large ({size:,} bytes; the limit is {limit:,})")
        data = _read_up_to(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _refuse(path, f"too large (over {limit:,} bytes)")
    return data


def read_text(path: Path | str, *, limit: int, encoding: str = "utf-8", errors: str = "replace") -> str:
    """`read_bytes` decoded (undecodable bytes replaced unless `errors` says otherwise)."""
    return read_bytes(path, limit=limit).decode(encoding, errors)


def read_head(path: Path | str, *, limit: int) -> tuple[bytes, bool]:
    """(the first `limit` bytes, whether the file holds more): for files the caller truncates anyway."""
    fd, _size = _open_regular(path)
    try:
        data = _read_up_to(fd, limit + 1)
    finally:
        os.close(fd)
    return data[:limit], len(data) > limit


def read_tail(path: Path | str, *, limit: int) -> tuple[bytes, int]:
    """(the last `limit` bytes, the file's size): for logs kept by appending, read from the end."""
    fd, size = _open_regular(path)
    try:
        start = max(0, size - limit)
        os.lseek(fd, start, os.SEEK_SET)
        data = _read_up_to(fd, limit)
    finally:
        os.close(fd)
    return data, size

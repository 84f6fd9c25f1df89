"""Atomic file replacement: readers see the old file or the new one, never half of either.

The one implementation of "write a temp file beside the target, fsync it, set its mode, rename it over the
target"; the file tools, the allowlist and settings files, exports and checkpoint restores all use it.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def read_umask() -> int:
    """The process umask without changing it (os.umask is process-wide and racy across threads)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def _replace(path: Path, write: Callable[[BinaryIO], object], mode: int | None, suffix: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~read_umask()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None, suffix: str = ".tmp") -> None:
    """Replace `path` with `data`. mode None keeps the mode of the file replaced (a new file gets the
    umask's default). A symlink at `path` is replaced by the file, not followed."""
    _replace(path, lambda handle: handle.write(data), mode, suffix)


def atomic_copy(source: Path, path: Path, *, mode: int | None = None, suffix: str = ".tmp") -> None:
    """Replace `path` with a copy of `source`'s bytes, streamed (the file may be large)."""
    with open(source, "rb") as src:
        _replace(path, lambda handle: shutil.copyfileobj(src, handle, 1024 * 1024), mode, suffix)


def atomic_write_text(path: Path, text: str, *, mode: int = 0o600) -> None:
    """Replace `path` with `text` (UTF-8, newlines as written). The default mode is private: config files
    and transcripts can hold commands, paths and secrets."""
    atomic_write_bytes(path, text.encode("utf-8"), mode=mode)

"""What can go wrong with the store's file, as one exception with a kind and a line a user can act on.

SQLite reports a full disk, a read-only file, a damaged file or a lock timeout as `sqlite3.OperationalError`
or `sqlite3.DatabaseError`, which the layers above cannot tell from a bug, and the loop used to mistake for a
provider failure (retrying the model, then crashing). The store's connections turn every such error into a
`StoreError` (`agent.store.core.StoreConnection`), so the loop, the CLI and the UI each catch one type and
show `user_line()`.

`StoreError` subclasses `sqlite3.OperationalError` so code that already catches `sqlite3.Error` (a search
that may fail, a best-effort refresh) keeps working unchanged.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path
from typing import Literal

__all__ = ["DOCTOR_HINT", "StoreError", "StoreErrorKind", "store_error", "store_os_error"]

StoreErrorKind = Literal["disk_full", "read_only", "corrupt", "io", "busy", "home", "newer_schema", "in_use"]

DOCTOR_HINT = "run `hermes-tui doctor` to back it up and recover what can be read"

# sqlite3 primary result codes (the low byte of an extended code).
_SQLITE_KINDS: dict[int, StoreErrorKind] = {
    3: "read_only",  # SQLITE_PERM
    5: "busy",  # SQLITE_BUSY
    6: "busy",  # SQLITE_LOCKED
    8: "read_only",  # SQLITE_READONLY
    10: "io",  # SQLITE_IOERR
    11: "corrupt",  # SQLITE_CORRUPT
    13: "disk_full",  # SQLITE_FULL
    14: "io",  # SQLITE_CANTOPEN
    26: "corrupt",  # SQLITE_NOTADB
}
# The same, by message, for errors that carry no code (raised by Python code or a test's fault seam).
_MESSAGE_KINDS: tuple[tuple[str, StoreErrorKind], ...] = (
    ("database or disk is full", "disk_full"),
    ("disk is full", "disk_full"),
    ("readonly database", "read_only"),
    ("read-only", "read_only"),
    ("file is not a database", "corrupt"),
    ("malformed", "corrupt"),
    ("database is locked", "busy"),
    ("database table is locked", "busy"),
    ("disk i/o error", "io"),
    ("unable to open database file", "io"),
)


class StoreError(sqlite3.OperationalError):
    """The store cannot do what was asked, for a reason the user may fix (space, permissions, the file)."""

    def __init__(self, kind: StoreErrorKind, detail: str, path: Path | str | None = None) -> None:
        super().__init__(detail)
        self.kind: StoreErrorKind = kind
        self.detail = detail
        self.path = Path(path) if path is not None else None
        self.unsaved_reply = False  # set by the loop: a streamed reply was lost with this write

    def user_line(self) -> str:
        """One line: what happened to which file, and what to do."""
        where = str(self.path) if self.path is not None else "the session store"
        if self.kind == "disk_full":
            return f"disk full: {where} cannot grow ({self.detail}); free some space"
        if self.kind == "read_only":
            return f"{where} is read-only ({self.detail}): browsing and search work, nothing new is saved"
        if self.kind == "corrupt":
            return f"{where} is damaged ({self.detail}): {DOCTOR_HINT}"
        if self.kind == "busy":
            return f"{where} is locked by another process ({self.detail}); try again"
        if self.kind in ("home", "in_use"):
            return self.detail
        if self.kind == "newer_schema":
            return f"{where} was {self.detail}: read-only here, so it is never downgraded; upgrade to write"
        return f"{where}: {self.detail}"


def _kind(exc: sqlite3.Error) -> StoreErrorKind:
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int) and (code & 0xFF) in _SQLITE_KINDS:
        return _SQLITE_KINDS[code & 0xFF]
    text = str(exc).lower()
    for needle, kind in _MESSAGE_KINDS:
        if needle in text:
            return kind
    return "io"


def store_error(exc: sqlite3.Error, path: Path | str | None = None) -> StoreError:
    """`exc` as a `StoreError` (itself when it already is one)."""
    if isinstance(exc, StoreError):
        return exc
    return StoreError(_kind(exc), str(exc) or type(exc).__name__, path)


def store_os_error(exc: OSError, path: Path | str) -> StoreError:
    """An error creating or opening the store's file or folder, said as the user sees it."""
    target = Path(exc.filename) if exc.filename else Path(path)
    reason = exc.strerror or str(exc)
    if exc.errno == errno.ENOTDIR or (exc.errno == errno.EEXIST and not target.is_dir()):
        blocker = target
        while blocker != blocker.parent and not blocker.exists():
            blocker = blocker.parent
        if blocker.exists() and not blocker.is_dir():
            target = blocker
        return StoreError("home", f"cannot use {target} as a folder: it is a file", path)
    if exc.errno == errno.ENOSPC:
        return StoreError("disk_full", reason, path)
    if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return StoreError("home", f"cannot create {target}: {reason}", path)
    return StoreError("home", f"cannot use {target}: {reason}", path)

"""Opening Hermes' `state.db` strictly read-only, and knowing which of its schemas it has.

Read-only, and more than that: nothing next to the file may change because we looked. How, by case:

- **WAL database with its `-wal` and `-shm` beside it** (Hermes is running, or stopped without a final
  checkpoint): `file:...?mode=ro`. The newest messages may be in the WAL only, and a reader needs the
  shared-memory index to see them consistently while Hermes writes. A read-only connection never writes a
  page, never checkpoints and never deletes the WAL; like every WAL reader it marks its read position in
  the `-shm` (shared memory, not data).
- **WAL database without them** (Hermes closed it cleanly: everything is in the main file):
  `mode=ro&immutable=1`. A plain `mode=ro` open would *create* `-wal` and `-shm` next to the user's file
  (SQLite needs them for any WAL reader, and a read-only connection cannot remove them again), and in a
  directory we may not write to it fails outright. `immutable` reads the main file without any lock or
  side file. Should Hermes start while we read, its `-wal` appears: each operation opens a fresh
  connection and checks again, so the next one reads through the WAL.
- **Rollback-journal database** (Hermes on a filesystem without WAL): `mode=ro`, which creates nothing
  and honours Hermes' locks; a lock held too long is reported as one line.

Never `PRAGMA journal_mode`, never a checkpoint, never a write: `query_only` is set on every connection as
a second guard.

Schemas: Hermes records one `schema_version` row (22 for Hermes 0.19). Any version is read when the columns
we need exist (`REQUIRED`); optional ones (titles, tokens, costs, `active`) are used when present. A file
whose needed columns are missing, that is locked, or that is not a database gives a `HermesHistoryError`
with one line saying so.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

__all__ = ["KNOWN_SCHEMA", "REQUIRED", "HermesHistoryError", "HermesSchema", "open_readonly", "read_schema"]

KNOWN_SCHEMA = 22
"""The newest Hermes schema this code was written against (Hermes 0.19)."""
REQUIRED: dict[str, frozenset[str]] = {
    "sessions": frozenset({"id", "started_at"}),
    "messages": frozenset({"id", "session_id", "role", "content", "timestamp"}),
}
BUSY_TIMEOUT_S = 0.5
_WAL_MARK = 2  # file header bytes 18 and 19 are 2 for a WAL database, 1 for a rollback journal


class HermesHistoryError(Exception):
    """Hermes' history cannot be read; `str()` is one line for the user."""


@dataclass(frozen=True)
class HermesSchema:
    """What the file holds: its schema version (None when it records none) and the columns of the tables
    we read; which full-text tables exist."""

    version: int | None
    columns: dict[str, frozenset[str]]
    fts: bool  # messages_fts: content || tool_name || tool_calls, unicode61 words
    trigram: bool  # messages_fts_trigram: the same text, trigram substrings

    def has(self, table: str, column: str) -> bool:
        return column in self.columns.get(table, frozenset())

    @property
    def newer(self) -> bool:
        return self.version is not None and self.version > KNOWN_SCHEMA


def _is_wal(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            header = f.read(20)
    except OSError as exc:
        raise HermesHistoryError(f"Hermes' history ({path}) cannot be read: {exc.strerror}") from None
    return len(header) == 20 and header[18] == _WAL_MARK and header[19] == _WAL_MARK


def _uri(path: Path) -> str:
    side = [path.with_name(path.name + suffix).exists() for suffix in ("-wal", "-shm")]
    immutable = _is_wal(path) and not all(side)
    return f"file:{quote(str(path.resolve()))}?mode=ro" + ("&immutable=1" if immutable else "")


@contextmanager
def open_readonly(path: Path) -> Iterator[sqlite3.Connection]:
    """A fresh read-only connection for one operation (see the module doc); closed afterwards. SQLite
    errors come out as `HermesHistoryError` with one line."""
    if not path.is_file():
        raise HermesHistoryError(f"Hermes' history ({path}) does not exist")
    try:
        conn = sqlite3.connect(_uri(path), uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
    except sqlite3.Error as exc:
        raise _explain(path, exc) from None
    try:
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA query_only = ON")
        yield conn
    except sqlite3.Error as exc:
        raise _explain(path, exc) from None
    finally:
        conn.close()


def _explain(path: Path, exc: sqlite3.Error) -> HermesHistoryError:
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return HermesHistoryError(
            f"Hermes' history ({path}) is locked by another program (Hermes writing to it?); "
            "its sessions will show when it is free"
        )
    if "not a database" in text or "malformed" in text or "file is encrypted" in text:
        return HermesHistoryError(f"Hermes' history ({path}) is not a readable SQLite database")
    return HermesHistoryError(f"Hermes' history ({path}) cannot be read: {exc}")


def read_schema(conn: sqlite3.Connection, path: Path) -> HermesSchema:
    """The file's schema, or `HermesHistoryError` when the columns we need are not there."""
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    version: int | None = None
    if "schema_version" in tables:
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
        version = int(row[0]) if row is not None and isinstance(row[0], int) else None
    columns = {
        table: frozenset(row[1] for row in conn.execute(f"PRAGMA table_info({table})"))
        for table in REQUIRED
        if table in tables
    }
    missing = [
        f"{table}.{column}"
        for table, needed in REQUIRED.items()
        for column in sorted(needed - columns.get(table, frozenset()))
    ]
    if missing:
        shown = "schema version unknown" if version is None else f"schema version {version}"
        newer = (
            f", newer than the {KNOWN_SCHEMA} this version knows"
            if version and version > KNOWN_SCHEMA
            else ""
        )
        lacks = ", ".join(missing[:4])
        raise HermesHistoryError(
            f"Hermes' history ({path}, {shown}{newer}) lacks {lacks}: its sessions are not shown"
        )
    return HermesSchema(version, columns, "messages_fts" in tables, "messages_fts_trigram" in tables)


def side_files(path: Path) -> list[str]:
    """The `-wal` / `-shm` / `-journal` files next to `path` (for tests and diagnostics)."""
    return sorted(name for name in os.listdir(path.parent) if name.startswith(path.name + "-"))

"""The store's file and connections: opening (0600, WAL, migrations), short write transactions, closing.

One file per user (the app uses `$HERMES_HOME/tui/state.db`), created 0600. Every write is a short
transaction committed at once, so a crash (even `kill -9`) loses nothing that a method call returned from.

Thread safety: one write connection (`check_same_thread=False`) guarded by an `RLock`; the agent worker
thread, tool threads and the UI thread may all call any method. Searches run on a second, read-only
connection with its own lock, so a slow search never holds up the agent's writes (WAL lets readers and a
writer work at once) and can be cancelled without touching a write in flight. Several processes may share
the file (WAL + busy timeout; `seq` numbers are assigned inside `BEGIN IMMEDIATE`).

A file written by a newer version (unknown higher schema version) is opened as-is, never downgraded.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

from agent.store.records import SESSION_SELECT, SessionInfo, session_info
from agent.store.schema import MIGRATIONS, Migration

__all__ = ["BUSY_TIMEOUT_S", "StoreBase"]

BUSY_TIMEOUT_S = 10.0
_CANCEL_CHECK_STEPS = 2_000  # SQLite VM steps between two looks at a search's cancel flag


class StoreBase:
    """The connections every part of `SessionStore` works through (see the module doc)."""

    MIGRATIONS: ClassVar[list[Migration]] = MIGRATIONS
    hermes_problem: str | None = None
    """Why sessions of another history beside this store cannot be shown (see `SessionLibrary`)."""

    def __init__(self, path: Path | str):
        self.path = Path(path).expanduser()
        self._lock = threading.RLock()
        self._read_lock = threading.Lock()
        self._reader: sqlite3.Connection | None = None
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not self.path.exists():
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            os.close(fd)
        conn = self._connect()
        self._conn: sqlite3.Connection | None = conn
        try:
            conn.execute("PRAGMA journal_mode = WAL")  # stays DELETE on filesystems without WAL support
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            self.schema_version = self._migrate()
        except BaseException:
            conn.close()
            self._conn = None
            raise
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            try:
                if side.exists():
                    os.chmod(side, 0o600)
            except OSError:
                pass

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            str(self.path), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        return conn

    # ---------------------------------------------------------------- plumbing

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise sqlite3.ProgrammingError("SessionStore is closed")
        return self._conn

    def close(self) -> None:
        with self._read_lock:
            if self._reader is not None:
                self._reader.close()
                self._reader = None
        with self._lock:
            if self._conn is None:
                return
            try:
                self._conn.execute("PRAGMA optimize")
            except sqlite3.Error:
                pass
            self._conn.close()
            self._conn = None

    def __enter__(self) -> StoreBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A short write transaction (BEGIN IMMEDIATE ... COMMIT), rolled back on error."""
        with self._lock:
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @contextmanager
    def _reading(self, cancelled: Callable[[], bool] | None = None) -> Iterator[sqlite3.Connection]:
        """The read-only search connection, for one or a few statements. When `cancelled()` turns true, the
        statement running on it stops with `sqlite3.OperationalError('interrupted')`."""
        self.conn  # noqa: B018 - raises when the store is closed
        with self._read_lock:
            if self._reader is None:
                reader = self._connect()
                reader.execute("PRAGMA query_only = ON")
                self._reader = reader
            reader = self._reader
            if cancelled is not None:
                reader.set_progress_handler(lambda: 1 if cancelled() else 0, _CANCEL_CHECK_STEPS)
            try:
                yield reader
            finally:
                if cancelled is not None:
                    reader.set_progress_handler(None, 0)

    def get_session(self, session_id: str) -> SessionInfo | None:
        with self._lock:
            row = self.conn.execute(f"{SESSION_SELECT} WHERE s.id = ?", (session_id,)).fetchone()
        return session_info(row) if row else None

    # ---------------------------------------------------------------- migrations

    def _migrate(self) -> int:
        conn = self.conn
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version "
            "(version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
        )
        current = self._current_version()
        for version, migration in enumerate(self.MIGRATIONS, start=1):
            if version <= current:
                continue
            with self._write():
                if self._current_version() >= version:  # another process migrated meanwhile
                    continue
                migration(conn)
                conn.execute(
                    "INSERT INTO schema_version(version, applied_at) VALUES (?, ?)", (version, time.time())
                )
            current = version
        return max(current, self._current_version())

    def _current_version(self) -> int:
        row = self.conn.execute("SELECT max(version) FROM schema_version").fetchone()
        return int(row[0] or 0)

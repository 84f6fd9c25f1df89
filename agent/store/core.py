"""The store's file and connections: opening (0600, WAL, migrations), short write transactions, closing.

One file per user (the app uses `$HERMES_HOME/tui/state.db`), created 0600. Every write is a short
transaction committed at once, so a crash (even `kill -9`) loses nothing that a method call returned from.

Thread safety: one write connection (`check_same_thread=False`) guarded by an `RLock`; the agent worker
thread, tool threads and the UI thread may all call any method. Searches run on a second, read-only
connection with its own lock, so a slow search never holds up the agent's writes (WAL lets readers and a
writer work at once) and can be cancelled without touching a write in flight. Several processes may share
the file (WAL + busy timeout; `seq` numbers are assigned inside `BEGIN IMMEDIATE`).

Open modes. Read-write (the default) migrates the file and takes writes. Read-only (`read_only=...`, a reason
the user is shown) opens the file with SQLite's `mode=ro` and never writes: browsing and search work, every
write raises `StoreError("read_only")`. Opening read-write refuses (raises `StoreError`) a file written by a
newer version (a schema version this code does not know: it is never written to or downgraded), a file that
cannot be written (read-only file or filesystem: found by taking a write lock once) and a damaged one; the
caller decides what to do (`agent.store.opening.open_store` falls back to read-only where that is safe).

Errors: every sqlite error on the store's connections arrives as a `StoreError` with a kind (disk full,
read-only, damaged, I/O, busy); see `agent.store.errors`. `StoreBase.connection_class` is the seam where a
test injects a fault (a `StoreConnection` subclass that raises on the statements it picks).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import quote

from agent.core.user_paths import expand_user
from agent.store.errors import StoreError, store_error, store_os_error
from agent.store.records import SESSION_SELECT, SessionInfo, session_info
from agent.store.schema import MIGRATIONS, Migration

__all__ = ["BUSY_TIMEOUT_S", "StoreBase", "StoreConnection"]

BUSY_TIMEOUT_S = 10.0
_CANCEL_CHECK_STEPS = 2_000  # SQLite VM steps between two looks at a search's cancel flag


class StoreConnection(sqlite3.Connection):
    """A connection whose statements raise `StoreError` for whatever SQLite reports about the file.

    Constraint and API-misuse errors (`IntegrityError`, `ProgrammingError`) pass through unchanged: the
    store's own code handles those (a title taken, a closed store). A cancelled search's 'interrupted' too.
    """

    store_path = ""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        try:
            return super().execute(sql, parameters)
        except (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError):
            raise
        except sqlite3.DatabaseError as exc:
            if str(exc) == "interrupted":
                raise
            raise store_error(exc, self.store_path) from exc

    def executemany(self, sql: str, parameters: Any, /) -> sqlite3.Cursor:
        try:
            return super().executemany(sql, parameters)
        except (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError):
            raise
        except sqlite3.DatabaseError as exc:
            raise store_error(exc, self.store_path) from exc


class StoreBase:
    """The connections every part of `SessionStore` works through (see the module doc)."""

    MIGRATIONS: ClassVar[list[Migration]] = MIGRATIONS
    connection_class: ClassVar[type[StoreConnection]] = StoreConnection
    hermes_problem: str | None = None
    """Why sessions of another history beside this store cannot be shown (see `SessionLibrary`)."""

    def __init__(self, path: Path | str, *, read_only: str | None = None):
        """Open the store at `path`. `read_only` is the reason to open it read-only (shown to the user);
        None opens it read-write, creating the file (0600) and its folder (0700) when missing."""
        self.path = expand_user(path)
        self.read_only: str | None = read_only
        self._lock = threading.RLock()
        self._read_lock = threading.Lock()
        self._reader: sqlite3.Connection | None = None
        self._conn: sqlite3.Connection | None = None
        if read_only is None:
            self._create_file()
        elif not self.path.is_file():
            raise StoreError("home", f"there is no session store at {self.path}", self.path)
        conn = self._connect()
        self._conn = conn
        try:
            version = self._current_version()
            known = len(self.MIGRATIONS)
            self.newer_schema = version > known
            if read_only is None:
                if self.newer_schema:
                    raise StoreError(
                        "newer_schema",
                        f"written by a newer hermes-tui (schema version {version}; "
                        f"this one knows up to {known})",
                        self.path,
                    )
                self._probe_writable(conn)
                conn.execute("PRAGMA journal_mode = WAL")  # stays DELETE on filesystems without WAL support
                conn.execute("PRAGMA synchronous = NORMAL")
                conn.execute("PRAGMA foreign_keys = ON")
                self.schema_version = self._migrate()
            else:
                conn.execute("PRAGMA query_only = ON")
                self.schema_version = version
        except BaseException:
            conn.close()
            self._conn = None
            raise
        if read_only is not None:
            return
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            try:
                if side.exists():
                    os.chmod(side, 0o600)
            except OSError:
                pass

    def _create_file(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not self.path.exists():
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
                os.close(fd)
        except OSError as exc:
            raise store_os_error(exc, self.path) from None

    def _connect(self, *, immutable: bool = False) -> sqlite3.Connection:
        if self.read_only is None:
            target, uri = str(self.path), False
        else:
            # mode=ro never writes; immutable=1 also skips the -shm file a read-only folder cannot hold.
            target, uri = f"file:{quote(str(self.path))}?mode=ro{'&immutable=1' if immutable else ''}", True
        try:
            conn = sqlite3.connect(
                target,
                timeout=BUSY_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=False,
                uri=uri,
                factory=self.connection_class,
            )
        except sqlite3.Error as exc:
            raise store_error(exc, self.path) from None
        conn.store_path = str(self.path)
        conn.row_factory = sqlite3.Row
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            if self.read_only is not None:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except StoreError:
            conn.close()
            if self.read_only is not None and not immutable:
                return self._connect(immutable=True)
            raise
        return conn

    def _probe_writable(self, conn: sqlite3.Connection) -> None:
        """Take the write lock once: a read-only file, folder or filesystem says so here (SQLite opens such
        a file read-only without a word and fails only at the first write)."""
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")

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
        """A short write transaction (BEGIN IMMEDIATE ... COMMIT), rolled back on error (a failed COMMIT
        included: a full disk often fails there). A read-only store raises `StoreError('read_only')`."""
        with self._lock:
            conn = self.conn
            if self.read_only is not None:
                raise StoreError("read_only", self.read_only, self.path)
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    try:
                        conn.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass  # SQLite may have rolled back already (SQLITE_FULL does)
                raise

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
        conn = self.conn
        exists = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
        ).fetchone()
        if exists is None:
            return 0
        row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
        return int(row[0] or 0)

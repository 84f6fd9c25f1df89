"""`hermes-tui doctor`'s engine: check the session store, and rebuild a damaged one from what can be read.

Why a rebuild and not a repair in place: a damaged SQLite file cannot be trusted for writes, and the user's
only copy must never be made worse. So the damaged file (with its `-wal`/`-shm`) is first copied aside
untouched, then a fresh store is created with the current schema (its triggers rebuild the search index) and
every row that can still be read is copied in. The rows are read from SQLite's own `.recover` output when
the `sqlite3` shell is installed (it reads past damaged pages), else straight from the damaged file, row by
row, skipping what fails.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.store.errors import StoreError

if TYPE_CHECKING:
    from agent.store import SessionStore

__all__ = ["Health", "RecoveryReport", "check_store", "recover_store"]

# The tables holding the user's data, parents first (messages, approvals and usage reference sessions).
_DATA_TABLES = ("sessions", "messages", "approvals", "usage")
_RECOVER_TIMEOUT_S = 300


@dataclass
class Health:
    """What `check_store` found: `ok`, or the problem in one line."""

    ok: bool
    problem: str = ""
    sessions: int = 0
    messages: int = 0


@dataclass
class RecoveryReport:
    backup: Path
    sessions: int
    messages: int
    source: str  # "sqlite3 .recover" or "row by row"


def check_store(path: Path) -> Health:
    """Open `path` read-only and run `PRAGMA integrity_check` (it reads every page)."""
    if not path.is_file():
        return Health(ok=True, problem="")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = [r[0] for r in conn.execute("PRAGMA integrity_check(5)")]
            if rows != ["ok"]:
                found = "; ".join(" ".join(r.split()) for r in rows if not r.startswith("***"))
                return Health(ok=False, problem=found[:300])
            sessions = conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
            messages = conn.execute("SELECT count(*) FROM messages").fetchone()[0]
            return Health(ok=True, sessions=sessions, messages=messages)
        finally:
            conn.close()
    except sqlite3.Error as exc:
        return Health(ok=False, problem=str(exc))


def recover_store(path: Path) -> RecoveryReport:
    """Back up the damaged `path`, then replace it with a fresh store holding every row that could be read.

    Raises `StoreError` when even the backup cannot be written (nothing is changed then)."""
    from agent.store import SessionStore  # the package imports this module's siblings: import late

    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{path.name}.damaged-{stamp}")
    try:
        for suffix in ("", "-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                shutil.copy2(side, backup.with_name(backup.name + suffix))
    except OSError as exc:
        raise StoreError(
            "io", f"cannot back up {path} ({exc.strerror or exc}); nothing was changed", path
        ) from None
    with tempfile.TemporaryDirectory(dir=path.parent, prefix=".recover-") as work:
        work_dir = Path(work)
        source, how = _readable_copy(backup, work_dir)
        fresh_path = work_dir / "state.db"
        fresh = SessionStore(fresh_path)
        try:
            copied = _copy_rows(source, fresh)
        finally:
            fresh.close()
        for suffix in ("-wal", "-shm"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        fresh_path.replace(path)
    return RecoveryReport(backup=backup, sessions=copied["sessions"], messages=copied["messages"], source=how)


def _readable_copy(damaged: Path, work: Path) -> tuple[Path, str]:
    """A file the rows can be read from: SQLite's `.recover` of `damaged` when the shell is installed."""
    shell = shutil.which("sqlite3")
    if shell is None:
        return damaged, "row by row"
    recovered = work / "recovered.db"
    try:
        dump = subprocess.run(
            [shell, str(damaged), ".recover"], capture_output=True, timeout=_RECOVER_TIMEOUT_S, check=False
        )
        if dump.returncode != 0 or b"INSERT" not in dump.stdout:  # `.recover` itself failed
            return damaged, "row by row"
        load = subprocess.run(
            [shell, str(recovered)], input=dump.stdout, capture_output=True, timeout=_RECOVER_TIMEOUT_S
        )
    except (OSError, subprocess.TimeoutExpired):
        return damaged, "row by row"
    if load.returncode != 0 and not recovered.exists():
        return damaged, "row by row"
    return recovered, "sqlite3 .recover"


def _copy_rows(source: Path, fresh: SessionStore) -> dict[str, int]:
    """Copy each data table's readable rows (the columns both files have) into the fresh store."""
    copied = dict.fromkeys(_DATA_TABLES, 0)
    try:
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    except sqlite3.Error:
        return copied
    dst = fresh.conn
    try:
        for table in _DATA_TABLES:
            try:
                have = {r[1] for r in src.execute(f"PRAGMA table_info({table})")}
            except sqlite3.Error:
                continue
            want = [r[1] for r in dst.execute(f"PRAGMA table_info({table})") if r[1] in have]
            if not want:
                continue
            columns = ", ".join(want)
            insert = f"INSERT OR IGNORE INTO {table} ({columns}) VALUES ({', '.join('?' * len(want))})"
            dst.execute("BEGIN IMMEDIATE")
            for row in _readable_rows(src, table, columns):
                try:
                    cur = dst.execute(insert, row)
                except sqlite3.Error:
                    continue  # a row that breaks a constraint (its session lost): skipped
                copied[table] += cur.rowcount
            dst.execute("COMMIT")
    finally:
        src.close()
    return copied


def _readable_rows(src: sqlite3.Connection, table: str, columns: str) -> Iterator[tuple[Any, ...]]:
    """Every row of `table` that can be read, in rowid order, stepping over damaged stretches."""
    last = None
    while True:
        where, params = ("WHERE rowid > ?", (last,)) if last is not None else ("", ())
        try:
            cursor = src.execute(f"SELECT rowid, {columns} FROM {table} {where} ORDER BY rowid", params)
            for row in cursor:
                last = row[0]
                yield row[1:]
            return
        except sqlite3.Error:
            if last is None:
                try:  # the first rows are unreadable: find where readable ones start
                    first = src.execute(f"SELECT min(rowid) FROM {table}").fetchone()[0]
                except sqlite3.Error:
                    return
                if first is None:
                    return
                last = first
                continue
            last += 1
            try:
                upper = src.execute(f"SELECT max(rowid) FROM {table}").fetchone()[0]
            except sqlite3.Error:
                return
            if upper is None or last > upper:
                return

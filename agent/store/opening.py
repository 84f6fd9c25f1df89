"""Open the session store the way the TUI and `-z` need it: read-write when possible, else read-only with a
reason the user is shown, else one line saying why there is no store at all.

Why a function of its own: `SessionStore(path)` refuses (raises `StoreError`) whatever it must not write to;
deciding what to do instead (browse a read-only copy, or stop) is policy, and the TUI, headless mode and
the `doctor` command must follow the same one.

- read-only file, folder or filesystem: opened read-only (browsing and search work, sending says why not);
- written by a newer version: read-only, naming the schema version (never downgraded);
- damaged: read-only when SQLite can still read it, with the `hermes-tui doctor` hint; else refused;
- no usable home, a full disk when creating, a lock held too long: refused.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agent.store import SessionStore
from agent.store.errors import StoreError

__all__ = ["open_store", "repair_abandoned"]


def open_store(path: Path | str, *, store_class: Callable[..., SessionStore] = SessionStore) -> SessionStore:
    """The store at `path`; `store.read_only` holds the one line to show when it could only be read.
    Sessions a dead process left mid-turn are repaired (`repair_abandoned`). `store_class` makes the store
    (called with the path, and `read_only=` for the fallback): a `SessionLibrary`, or a test's fault seam.

    Raises `StoreError` (show its `user_line()`, exit 1) when it can be neither written nor read."""
    try:
        store = store_class(path)
    except StoreError as exc:
        if exc.kind not in ("read_only", "newer_schema", "corrupt"):
            raise
        refused = exc
    else:
        repair_abandoned(store)
        return store
    try:
        return store_class(path, read_only=refused.user_line())
    except StoreError:
        raise refused from None


def repair_abandoned(store: SessionStore) -> int:
    """Repair every session left "active" by a process that is gone (nobody holds its claim): a crash or
    kill -9 mid-turn. Returns how many sessions were repaired; a failure to write repairs nothing."""
    try:
        rows = store.conn.execute("SELECT id FROM sessions WHERE status = 'active'").fetchall()
    except StoreError:
        return 0
    repaired = 0
    for (session_id,) in rows:
        if store.claimed_elsewhere(session_id):
            continue
        try:
            store.claim_session(session_id)
        except StoreError:
            continue  # claimed a moment ago: its process is alive and writing
        try:
            store.repair_session(session_id)
            repaired += 1
        except StoreError:
            return repaired
        finally:
            store.release_session(session_id)
    return repaired

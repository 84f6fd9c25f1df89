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

from pathlib import Path

from agent.store import SessionStore
from agent.store.errors import StoreError

__all__ = ["open_store"]


def open_store(path: Path | str) -> SessionStore:
    """The store at `path`; `store.read_only` holds the one line to show when it could only be read.

    Raises `StoreError` (show its `user_line()`, exit 1) when it can be neither written nor read."""
    try:
        return SessionStore(path)
    except StoreError as exc:
        if exc.kind not in ("read_only", "newer_schema", "corrupt"):
            raise
        refused = exc
    try:
        return SessionStore(path, read_only=refused.user_line())
    except StoreError:
        raise refused from None

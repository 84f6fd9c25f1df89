"""One writer per session: a process claims a session before writing to it; a second process is refused.

Why: two processes continuing one session (`hermes-tui -c` in a loop while a TUI has it open) interleaved
their rows (user, user, assistant, assistant), a transcript no model accepts. SQLite serializes each write
but not a turn. So each session has a lock file next to the database (`locks/<session id>.lock`) held with
`flock` while an agent has the session: the kernel drops it when the process ends, kill -9 included, so a
crash never leaves a session locked. The file holds the holder's pid, for the message.

Claims are per store (one per process in practice) and re-entrant: agents of one process replacing each
other (the TUI's new agent for a resumed session) coordinate through the app, not through locks.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent.store.errors import StoreError
from agent.store.repair import RepairMixin

try:
    import fcntl

    _FLOCK = True
except ImportError:  # pragma: no cover - no flock (Windows): claims always succeed
    _FLOCK = False

__all__ = ["ClaimsMixin"]


class ClaimsMixin(RepairMixin):
    def _claims(self) -> dict[str, tuple[int, int]]:
        claims: dict[str, tuple[int, int]] | None = getattr(self, "_claims_held", None)
        if claims is None:
            claims = {}
            self._claims_held = claims
        return claims

    def _lock_path(self, session_id: str) -> Path:
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in session_id)
        return self.path.with_name("locks") / f"{safe}.lock"

    def claim_session(self, session_id: str) -> None:
        """Become the session's one writer. Raises `StoreError("in_use")` naming the pid that holds it.

        A read-only store claims nothing (it never writes)."""
        if not _FLOCK or self.read_only is not None or not session_id:
            return
        with self._lock:
            claims = self._claims()
            held = claims.get(session_id)
            if held is not None:
                claims[session_id] = (held[0], held[1] + 1)
                return
            path = self._lock_path(session_id)
            try:
                path.parent.mkdir(mode=0o700, exist_ok=True)
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError:
                return  # the folder cannot hold locks (read-only, full): SQLite still keeps rows whole
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = _read_pid(fd)
                os.close(fd)
                who = f"pid {holder}" if holder else "another process"
                raise StoreError(
                    "in_use",
                    f"session {session_id} is open in another hermes-tui ({who}): close it there, "
                    "or branch it from the sessions screen (b) to continue a copy",
                    self.path,
                ) from None
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
            claims[session_id] = (fd, 1)

    def take_session(self, session_id: str) -> int:
        """Claim the session (see `claim_session`), then repair what a crash left open in it (see
        `agent.store.repair`): what a resumed agent calls before it sends anything. Returns the rows
        repaired; a store that cannot be written repairs nothing (the wire sanitizer still covers)."""
        self.claim_session(session_id)
        try:
            return self.repair_session(session_id)
        except StoreError:
            return 0

    def release_session(self, session_id: str) -> None:
        """Give up one claim of the session (the lock goes with the last one)."""
        with self._lock:
            claims = self._claims()
            held = claims.get(session_id)
            if held is None:
                return
            fd, count = held
            if count > 1:
                claims[session_id] = (fd, count - 1)
                return
            del claims[session_id]
            os.close(fd)  # closing drops the flock

    def claimed_elsewhere(self, session_id: str) -> bool:
        """True when another process holds the session's lock right now (it may be writing)."""
        if not _FLOCK or session_id in self._claims():
            return False
        try:
            fd = os.open(self._lock_path(session_id), os.O_RDONLY)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)
        return False

    def close(self) -> None:
        with self._lock:
            claims = self._claims()
            for fd, _count in claims.values():
                os.close(fd)
            claims.clear()
        super().close()


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None

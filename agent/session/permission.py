"""A session's permission mode (`agent.approval.modes`), kept with the session in the store so `-c` and
`-r` continue in the mode the user left it in.

Each session holds its own: two conversations in one process never share a mode. The approval gate reads
the mode the session hands it; this holder is where the mode lives between turns and how it is saved.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from agent.config.settings import Settings
from agent.core.permission_mode import PermissionMode, UnknownMode, initial_mode, parse_mode

if TYPE_CHECKING:
    from agent.store import SessionStoreProtocol

__all__ = ["SessionMode"]

log = logging.getLogger(__name__)


class SessionMode:
    """The mode and its storage: a store that cannot write (read-only, full) never stops the mode applying
    to this run."""

    def __init__(
        self, settings: Settings, store: SessionStoreProtocol | None, session_id: Callable[[], str]
    ) -> None:
        """`session_id`: the session's id as it is now ("" before it has one: nothing is stored then)."""
        self.current = initial_mode(settings.permission_mode, settings.yolo)
        self._store = store
        self._session_id = session_id

    def set(self, mode: PermissionMode | str) -> PermissionMode:
        """The new mode, stored with the session."""
        self.current = PermissionMode(mode)
        self.save()
        return self.current

    def save(self) -> None:
        session_id = self._session_id()
        if self._store is None or not session_id:
            return
        try:
            self._store.set_permission_mode(session_id, self.current.value)
        except Exception:  # a read-only or full store: the mode still applies to this run
            log.warning("could not store the permission mode", exc_info=True)

    def yolo_target(self, on: bool) -> PermissionMode | None:
        """Where `/yolo` on or off leads: yolo, or back to default from it; None when nothing changes."""
        if on:
            return PermissionMode.YOLO
        return PermissionMode.DEFAULT if self.current is PermissionMode.YOLO else None

    def restore(self, stored: str | None, settings: Settings) -> None:
        """The mode a resumed session was left in; NULL (never set): the configured one. A mode given on
        the command line wins over both, and is stored."""
        configured = initial_mode(settings.permission_mode, settings.yolo)
        if settings.permission_mode_chosen:
            self.current = configured
            if stored != configured.value:
                self.save()
            return
        try:
            self.current = parse_mode(stored) if stored else configured
        except UnknownMode:
            log.warning("session %s: unknown stored permission mode %r", self._session_id(), stored)
            self.current = configured

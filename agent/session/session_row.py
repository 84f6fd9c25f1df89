"""A session's row in the store: created with its first message (or `open()` before it), or taken to
resume it; claimed by this process either way (one writer per session), titled by its first message.
Without a store a session still gets an id, the same shape of name as the store's, for its checkpoints and
trajectory."""

from __future__ import annotations

import logging
import time
import uuid
from typing import TYPE_CHECKING

from agent.config.settings import Settings

if TYPE_CHECKING:
    from agent.store import LoadedSession, SessionStoreProtocol

__all__ = ["TITLE_CHARS", "new_session_id", "store_title", "take_stored"]

log = logging.getLogger(__name__)

TITLE_CHARS = 100
"""A first message longer than this names its session by its beginning."""


def new_session_id(
    store: SessionStoreProtocol | None, settings: Settings, system_prompt: str, source: str
) -> str:
    """The id of a new session: its store row's, claimed; without a store, a local one."""
    if store is None:
        return time.strftime("%Y%m%d_%H%M%S_") + uuid.uuid4().hex[:6]
    session_id = store.create_session(
        model=settings.model,
        provider=settings.provider or settings.api_mode,
        base_url=settings.base_url or "",
        cwd=str(settings.cwd),
        system_prompt=system_prompt,
        source=source,
    )
    store.claim_session(session_id)
    return session_id


def store_title(store: SessionStoreProtocol, session_id: str, first_message: str) -> bool:
    """Name the session by its first message, on one line; False when that message says nothing (the next
    one names it). A store that cannot write leaves the session untitled, never stops the turn."""
    title = " ".join(first_message.split())[:TITLE_CHARS]
    if not title:
        return False
    try:
        store.set_title(session_id, title)
    except Exception:
        log.warning("could not store the session's title", exc_info=True)
    return True


def take_stored(store: SessionStoreProtocol, session_id: str, *, leaving: str = "") -> LoadedSession:
    """A stored session to continue, claimed (a crash's leftovers repaired first) and loaded. One the store
    only reads (Hermes' history) continues in the store's copy of it (`adopt`): the id to use is the
    loaded one's. `leaving`: the session this one replaces, released (unless it is the same)."""
    session_id = store.adopt(session_id)
    loaded = store.load(session_id)
    if store.take_session(session_id):
        loaded = store.load(session_id)
    if leaving and leaving != session_id:
        store.release_session(leaving)
    return loaded

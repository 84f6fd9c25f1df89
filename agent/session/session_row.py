"""A session's row in the store: created with its first message (or `open()` before it), claimed by this
process (one writer per session), titled by that message. Without a store a session still gets an id,
the same shape of name as the store's, for its checkpoints and trajectory."""

from __future__ import annotations

import logging
import time
import uuid
from typing import TYPE_CHECKING

from agent.config.settings import Settings

if TYPE_CHECKING:
    from agent.store import SessionStoreProtocol

__all__ = ["TITLE_CHARS", "new_session_id", "store_title"]

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

"""`-r ID_OR_TITLE`: the one session it names, or a list of the ones it could mean.

Shared by the TUI and `-z` so both resume the same session for the same words. Several matches are never
resolved by guessing: they are listed (id, title, last active) and the caller exits 2, so the user can run
it again with an id.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, TextIO

from agent.api import format_absolute
from widgets.support.text_safety import visible_controls

if TYPE_CHECKING:
    from agent.api import SessionInfo, SessionStoreProtocol

__all__ = ["LISTED", "session_to_resume"]

LISTED = 20
"""At most this many matches are listed."""


def session_to_resume(store: SessionStoreProtocol, key: str, err: TextIO) -> SessionInfo | None:
    """The session `key` names; None after saying on `err` that none does, or which several do."""
    matches = store.find_sessions(key, limit=LISTED + 1)
    if len(matches) == 1:
        return matches[0]
    if not matches:
        print(visible_controls(f"hermes-tui: no session found for {key}", keep=""), file=err)
        return None
    shown = matches[:LISTED]
    more = " (the most recent shown)" if len(matches) > LISTED else ""
    head = f"hermes-tui: {len(shown)} sessions match {key!r}{more}; resume one by its id:"
    print(visible_controls(head, keep=""), file=err)
    now = time.time()
    width = max(len(info.id) for info in shown)
    for info in shown:
        title = " ".join(info.display_title.split())[:70]
        line = f"  {info.id:<{width}}  {format_absolute(info.updated_at, now):<14}  {title}"
        print(visible_controls(line, keep=""), file=err)
    return None

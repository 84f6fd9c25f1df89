"""What a turn says when the session store fails under it (a full disk, a file gone read-only or damaged).

Why: the store's failure used to travel up the model call as if the provider had failed ("Unexpected error
from the provider: OperationalError: database or disk is full"), was retried, and ended in a traceback, while
the TUI said the session was saved. A storage failure is not the provider's and not retryable: the turn stops
at once and says how many of its messages never reached the file, so the user knows what is lost.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.core.errors import ClassifiedError
from agent.core.messages import Message
from agent.store.errors import StoreError

__all__ = ["storage_failure", "unsaved_count"]


def unsaved_count(turn_messages: Sequence[Message], *, streamed_reply_lost: bool) -> int:
    """How many of the turn's messages the file does not hold: those never inserted (no row id), plus the
    reply whose streaming checkpoint failed (it was never added to the transcript)."""
    return sum(1 for m in turn_messages if m.id is None) + (1 if streamed_reply_lost else 0)


def storage_failure(exc: StoreError, unsaved: int) -> ClassifiedError:
    """The turn's error: one line, never blamed on the provider, never retried."""
    count = f"{unsaved} message{'s' if unsaved != 1 else ''} not saved"
    if exc.kind == "disk_full":
        where = f" ({exc.path.parent})" if exc.path is not None else ""
        line = f"disk full: {count}{where}; free some space"
    else:
        line = f"{count}: {exc.user_line()}"
    return ClassifiedError(reason="storage", message=str(exc), retryable=False, hint=line)

"""One model call's live deltas, on the agent thread: events out to the UI, the partial reply checkpointed.

The first text or reasoning creates a *partial* assistant row in the store; later deltas rewrite it at most
once every `CHECKPOINT_INTERVAL` seconds, so a crash mid-reply loses at most that much. A failed attempt that
is retried `reset()`s the sink: the next attempt reuses the same row, so nothing is stored twice.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from agent.core.events import (
    FirstDelta,
    ReasoningDelta,
    StreamResumed,
    StreamStalled,
    TextDelta,
    ToolCallStarted,
)
from agent.core.messages import Message

if TYPE_CHECKING:
    from agent.core.ui import AgentUI
    from agent.store import SessionStoreProtocol

__all__ = ["CHECKPOINT_INTERVAL", "CallSink"]

CHECKPOINT_INTERVAL = 1.0


class CallSink:
    """A `StreamSink` (and `StallAware`) for the loop's model calls."""

    def __init__(self, ui: AgentUI, store: SessionStoreProtocol | None, session_id: str) -> None:
        self.ui = ui
        self.store = store
        self.session_id = session_id
        self.first = False
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.message: Message | None = None  # the partial row, once text arrived
        self.last_checkpoint = 0.0
        self.dirty = False

    def _first(self) -> None:
        if not self.first:
            self.first = True
            self.ui.on_event(FirstDelta())

    def on_text(self, text: str) -> None:
        self._first()
        self.text.append(text)
        self.dirty = True
        self.ui.on_event(TextDelta(text))
        self._maybe_checkpoint()

    def on_reasoning(self, text: str) -> None:
        self._first()
        self.reasoning.append(text)
        self.dirty = True
        self.ui.on_event(ReasoningDelta(text))
        self._maybe_checkpoint()

    def on_tool_start(self, index: int, call_id: str, name: str) -> None:
        self._first()
        self.ui.on_event(ToolCallStarted(index=index, name=name, call_id=call_id))

    def on_idle(self) -> None:
        self._maybe_checkpoint()

    def on_stall(self, seconds: float) -> None:
        self.ui.on_event(StreamStalled(seconds))

    def on_resume(self) -> None:
        self.ui.on_event(StreamResumed())

    @property
    def shown(self) -> bool:
        """Something of this call is on screen (text or reasoning)."""
        return bool(self.text or self.reasoning)

    def _maybe_checkpoint(self) -> None:
        store = self.store
        if store is None or not self.dirty:
            return
        now = time.monotonic()
        if self.message is None:
            self.message = Message(role="assistant", content="", partial=True)
            self.message.content = "".join(self.text)
            self.message.reasoning = "".join(self.reasoning) or None
            store.append_message(self.session_id, self.message)
            self.last_checkpoint = now
            self.dirty = False
        elif now - self.last_checkpoint >= CHECKPOINT_INTERVAL:
            assert self.message.id is not None
            store.checkpoint_partial(self.message.id, "".join(self.text), "".join(self.reasoning) or None)
            self.last_checkpoint = now
            self.dirty = False

    def reset(self) -> None:
        """Forget a failed attempt's deltas (the partial row is reused by the next attempt)."""
        self.first = False
        self.text.clear()
        self.reasoning.clear()
        self.dirty = self.message is not None

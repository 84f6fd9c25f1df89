"""`CallSink`: where one model call's deltas arrive on the agent thread (the loop makes one per call).

Why apart from the loop: streaming has one job of its own, turning deltas into UI events and keeping the
partial reply in the store as it grows (first delta at once, then every `CHECKPOINT_INTERVAL` seconds), so a
crash mid-stream leaves the text streamed so far on disk, marked partial.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol

from agent.events import FirstDelta, ReasoningDelta, TextDelta, ToolCallStarted
from agent.messages import Message

if TYPE_CHECKING:
    from agent.store import SessionStoreProtocol
    from agent.ui import AgentUI

__all__ = ["CHECKPOINT_INTERVAL", "CallSink", "SinkOwner"]

CHECKPOINT_INTERVAL = 1.0
"""Seconds between two writes of a growing partial reply."""


class SinkOwner(Protocol):
    """What a sink needs of the agent: where events go and where the partial reply is kept."""

    ui: AgentUI
    store: SessionStoreProtocol | None
    session_id: str


class CallSink:
    """Receives one model call's deltas on the agent thread: events out, partial text checkpointed."""

    def __init__(self, agent: SinkOwner) -> None:
        self.agent = agent
        self.first = False
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.message: Message | None = None  # the partial row, once text arrived
        self.last_checkpoint = 0.0
        self.dirty = False

    def _first(self) -> None:
        if not self.first:
            self.first = True
            self.agent.ui.on_event(FirstDelta())

    def on_text(self, text: str) -> None:
        self._first()
        self.text.append(text)
        self.dirty = True
        self.agent.ui.on_event(TextDelta(text))
        self._maybe_checkpoint()

    def on_reasoning(self, text: str) -> None:
        self._first()
        self.reasoning.append(text)
        self.dirty = True
        self.agent.ui.on_event(ReasoningDelta(text))
        self._maybe_checkpoint()

    def on_tool_start(self, index: int, call_id: str, name: str) -> None:
        self._first()
        self.agent.ui.on_event(ToolCallStarted(index=index, name=name, call_id=call_id))

    def on_idle(self) -> None:
        self._maybe_checkpoint()

    def _maybe_checkpoint(self) -> None:
        store = self.agent.store
        if store is None or not self.dirty:
            return
        now = time.monotonic()
        if self.message is None:
            self.message = Message(role="assistant", content="", partial=True)
            self.message.content = "".join(self.text)
            self.message.reasoning = "".join(self.reasoning) or None
            store.append_message(self.agent.session_id, self.message)
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

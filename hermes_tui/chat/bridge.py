"""The bridge between the agent thread and the UI thread.

The agent calls `on_event` up to thousands of times a second. One message per event falls behind
(docs/architecture.md, "Measured facts"), so events go into one ordered, lock-protected queue, coalescing
consecutive text deltas into one append; the UI drains it (`hermes_tui.chat.pipeline`, on the transcript's
pacer while a turn runs). This queue is the one thread boundary between the agent and the widgets. Events that
change what the user must see at once (a tool starts, the turn ends, a question) wake the UI immediately with
a single `EventsReady` message, so ordering is kept (one queue) and latency stays low where it matters. Text
deltas wake it too, but at most `QUIET_WAKE_HZ` times a second: a delta reaches its widget within ~1/30 s
instead of waiting for the next tick, and a burst of thousands of deltas a second still costs the UI a bounded
number of drains. While the UI is idle its drain is paused (`sleep`): then any event wakes it at once.

Questions (clarify, approval) are Futures: posted to the UI, answered by it; the asking thread waits in
short slices and gives up when the request's cancel event (the interrupt) is set or the bridge closes, so no
thread waits forever and the app can always exit.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from textual.message import Message
from textual.message_pump import MessagePump

from agent.api import (
    AgentEvent,
    ApprovalAnswer,
    ApprovalDecision,
    ApprovalRequest,
    ClarifyRequest,
    ReasoningDelta,
    TextDelta,
)
from hermes_tui.reply_wait import NoReply, wait_for_reply
from widgets.support import timing

WAIT_SLICE = timing.QUESTION_WAIT_SLICE
QUIET_WAKE_HZ = timing.QUIET_WAKE_HZ
ANSWER_GRACE = timing.ANSWER_GRACE
_QUIET = (TextDelta, ReasoningDelta)


class _NoAnswer(Enum):
    """Why a question ended without the UI answering (never mistaken for an answer: not a string)."""

    CANCELLED = "cancelled"
    TIMED_OUT = "timed out"


@dataclass
class EventsReady(Message):
    """Something urgent is queued: drain now rather than at the next tick."""


@dataclass
class ClarifyAsked(Message):
    request: ClarifyRequest
    reply: concurrent.futures.Future[str | None] = field(default_factory=concurrent.futures.Future)


@dataclass
class ApprovalAsked(Message):
    request: ApprovalRequest
    reply: concurrent.futures.Future[ApprovalDecision | ApprovalAnswer] = field(
        default_factory=concurrent.futures.Future
    )


class EventQueue:
    """Ordered, thread-safe; `drain()` returns the events with adjacent deltas of one kind merged."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[AgentEvent] = []

    def put(self, event: AgentEvent) -> None:
        with self._lock:
            if self._items and isinstance(event, _QUIET) and type(self._items[-1]) is type(event):
                last = self._items[-1]
                self._items[-1] = type(event)(last.text + event.text)
            else:
                self._items.append(event)

    def drain(self) -> list[AgentEvent]:
        with self._lock:
            items, self._items = self._items, []
        return items

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


class UIBridge:
    """Implements `AgentUI` for the TUI. `target` is the Textual node that receives the messages."""

    def __init__(self, target: MessagePump) -> None:
        self.target = target
        self.queue = EventQueue()
        self._wake_pending = threading.Event()
        self._asleep = threading.Event()
        self._last_quiet_wake = 0.0
        self.closed = threading.Event()

    # -- AgentUI -------------------------------------------------------------
    def on_event(self, event: AgentEvent) -> None:
        self.queue.put(event)
        if self._wake_pending.is_set():
            return
        if isinstance(event, _QUIET) and not self._asleep.is_set():  # asleep: no timer would drain it
            now = time.monotonic()
            if now - self._last_quiet_wake < 1 / QUIET_WAKE_HZ:
                return  # the next delta, or the UI's own timer, picks it up
            self._last_quiet_wake = now
        self._wake_pending.set()
        self.target.post_message(EventsReady())

    def ask_clarify(self, request: ClarifyRequest) -> str | None:
        answer = self._ask(ClarifyAsked(request), request.cancel, request.timeout + ANSWER_GRACE)
        return answer if isinstance(answer, str) else None

    def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision | ApprovalAnswer:
        answer = self._ask(ApprovalAsked(request), request.cancel, request.timeout + ANSWER_GRACE)
        if isinstance(answer, ApprovalDecision | ApprovalAnswer):
            return answer
        return ApprovalDecision.TIMEOUT if answer is _NoAnswer.TIMED_OUT else ApprovalDecision.DENY

    # -- UI side -------------------------------------------------------------
    def drain(self) -> list[AgentEvent]:
        self._wake_pending.clear()
        return self.queue.drain()

    def sleep(self) -> bool:
        """The UI stops its periodic drain: from now on every event wakes it (`EventsReady`), quiet ones
        too, so an idle app runs no timer. False when something was queued meanwhile: drain again.
        (The flag is set before the queue is looked at, and `on_event` queues before it reads the flag,
        so an event is always either seen here or woken for.)"""
        self._asleep.set()
        if len(self.queue):
            self._asleep.clear()
            return False
        return True

    @property
    def is_asleep(self) -> bool:
        """True while the UI's periodic drain is paused."""
        return self._asleep.is_set()

    def wake(self) -> None:
        """The UI drains periodically again (a turn started, or an event woke it)."""
        self._asleep.clear()

    def close(self) -> None:
        self.closed.set()

    # -- internals -------------------------------------------------------------
    def _ask(
        self, message: ClarifyAsked | ApprovalAsked, cancel: threading.Event, limit: float
    ) -> str | ApprovalDecision | ApprovalAnswer | _NoAnswer | None:
        """Post the question and wait in slices; the UI's own countdown normally answers first."""
        self.on_event(_Flush())
        self.target.post_message(message)
        reply: concurrent.futures.Future[Any] = message.reply  # a clarify's or an approval's answer
        answer = wait_for_reply(reply, lambda: cancel.is_set() or self.closed.is_set(), limit, WAIT_SLICE)
        if answer is NoReply.STOPPED:
            return _NoAnswer.CANCELLED
        return _NoAnswer.TIMED_OUT if answer is NoReply.TIMED_OUT else answer


@dataclass(frozen=True)
class _Flush(AgentEvent):
    """Forces a wake so everything queued before a question is on screen when it appears."""

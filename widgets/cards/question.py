"""What every question the agent asks the user has in common: the approval dialog and the clarify card.

The agent thread waits while a question is open, so each question must:

- ignore keys and clicks for `GUARD_SECONDS` after it appears: a user typing in the prompt when it pops up
  must not answer it by accident (Hermes #82647);
- show a countdown when the request has a timeout, and end when it runs out: silence is never consent;
- end when the request's `cancel` event is set (the user interrupted the turn);
- freeze for snapshots: no countdown, no polling, so every picture is the same;
- answer exactly once, even when the countdown and a key arrive in the same frame.

`QuestionCard` does all of that for a `Widget` or a `Screen`. It is a plain mixin, listed first among the
bases: Textual inherits DEFAULT_CSS along the first DOMNode base only, so the card must stay a `Screen` or
`Widget` as far as CSS knows (a DOMNode mixin there would drop the modal's dimmed background). The concrete
card composes its content, calls `_start_question()` from `on_mount`, and turns answers into what its asker
expects by calling `_answer_once()` first: it returns False for every answer after the first.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar, Generic, Protocol, TypeVar

from textual.timer import Timer
from textual.widgets import Static

from agent.api import format_countdown
from widgets.support import timing

__all__ = ["QuestionCard", "QuestionRequest"]


class QuestionRequest(Protocol):
    """What a question needs of its request: `ApprovalRequest` and `ClarifyRequest` both fit."""

    @property
    def timeout(self) -> float: ...

    @property
    def cancel(self) -> threading.Event: ...


RequestT = TypeVar("RequestT", bound=QuestionRequest)

if TYPE_CHECKING:
    from textual.dom import DOMNode as _Node  # what the mixin is used with, for the type checker
else:
    _Node = object


class QuestionCard(Generic[RequestT], _Node):
    """A question with a typing-ahead guard, a countdown, a cancel poll and a single answer."""

    GUARD_SECONDS: ClassVar[float] = timing.QUESTION_GUARD
    TICK_SECONDS: ClassVar[float] = timing.QUESTION_TICK

    URGENT_SECONDS: ClassVar[float] = 10.0
    """Below this many seconds left the countdown gets the `-urgent` class (each card colours it)."""

    COUNTDOWN_ID: ClassVar[str] = ""
    """The id of the `Static` showing the countdown."""

    COUNTDOWN_LABEL: ClassVar[str] = ""
    """Words before the time left: "auto-deny in", "answer within"."""

    def __init__(
        self,
        request: RequestT,
        *,
        frozen: bool = False,
        clock: Callable[[], float] = time.monotonic,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """Build the question.

        Args:
            request: What is asked, with its timeout and cancel event.
            frozen: Do not run the countdown or poll `request.cancel` (deterministic snapshots).
            clock: Monotonic clock in seconds, injectable for tests.
            name: Node name.
            id: Node id.
            classes: Extra CSS classes.
        """
        super().__init__(name=name, id=id, classes=classes)
        self.request: RequestT = request
        self.frozen = frozen
        self._clock = clock
        self._shown_at: float | None = None
        self._armed = False
        self._answered = False
        self._tick_timer: Timer | None = None
        self._last_countdown = ""

    # ---------------------------------------------------------------------------------------------- state

    @property
    def is_armed(self) -> bool:
        """True once the typing-ahead guard is over."""
        return self._armed

    @property
    def is_answered(self) -> bool:
        """True once the question has its (one) answer."""
        return self._answered

    @property
    def accepts_input(self) -> bool:
        """Keys and clicks count: the guard is over and nothing has answered yet."""
        return self._armed and not self._answered

    # ---------------------------------------------------------------------------------------------- lifecycle

    def _start_question(self) -> None:
        """Start the guard, and unless frozen the countdown and cancel poll. Call from `on_mount`."""
        self._shown_at = self._clock()
        self.set_timer(self.GUARD_SECONDS, self.arm, name=f"{type(self).__name__}-guard")
        if not self.frozen:
            self._tick_timer = self.set_interval(
                self.TICK_SECONDS, self._tick, name=f"{type(self).__name__}-countdown"
            )

    def arm(self) -> None:
        """End the typing-ahead guard. Called by a timer; tests and snapshots may call it directly."""
        if self._armed or self._answered:
            return
        self._armed = True
        self._on_armed()

    def _answer_once(self) -> bool:
        """Claim the one answer: True the first time (the countdown stops), False ever after."""
        if self._answered:
            return False
        self._answered = True
        if self._tick_timer is not None:
            self._tick_timer.stop()
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Refuse every action of the card during the guard and after the answer."""
        if not self.accepts_input:
            return False
        return self._allows(action, parameters)

    # ---------------------------------------------------------------------------------------------- countdown

    def _has_timeout(self) -> bool:
        timeout = self.request.timeout
        return timeout is not None and 0 < timeout < math.inf

    def _remaining(self) -> float:
        if self._shown_at is None:
            return self.request.timeout
        return self.request.timeout - (self._clock() - self._shown_at)

    def countdown_text(self, remaining: float) -> str:
        """The countdown line for `remaining` seconds; empty without a timeout."""
        if not self._has_timeout():
            return ""
        return f"{self.COUNTDOWN_LABEL} {format_countdown(remaining)}"

    def _tick(self) -> None:
        """Poll the interrupt flag and repaint the countdown (only when the shown text changes)."""
        if self._answered:
            return
        if self.request.cancel.is_set():
            self._on_cancelled()
            return
        if not self._has_timeout():
            return
        remaining = self._remaining()
        if remaining <= 0:
            self._on_timed_out()
            return
        text = self.countdown_text(remaining)
        if text != self._last_countdown:
            self._last_countdown = text
            countdown = self.query_one(f"#{self.COUNTDOWN_ID}", Static)
            countdown.update(text)
            countdown.set_class(remaining <= self.URGENT_SECONDS, "-urgent")

    # ---------------------------------------------------------------------------------------------- hooks

    def _on_armed(self) -> None:
        """The guard just ended (enable buttons, move the focus)."""

    def _on_cancelled(self) -> None:
        """The request was cancelled (interrupt): answer accordingly."""
        raise NotImplementedError

    def _on_timed_out(self) -> None:
        """The countdown ran out: answer accordingly."""
        raise NotImplementedError

    def _allows(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Whether `action` fits the card's current step (the guard has already been checked)."""
        return True

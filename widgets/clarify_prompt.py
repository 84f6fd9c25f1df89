"""The clarify card: the agent asks the user a question and waits for the answer.

It is a card mounted above the prompt, not a modal: the transcript stays readable and scrollable while the
question is open (a question often refers to something earlier in the conversation). The agent thread is
blocked until the card posts `ClarifyPrompt.Answered`, so the card always ends with exactly one message:
the answer, or `None` on Escape, timeout or interrupt (`request.cancel`).

Choices come from the model (at most 4 in Hermes); "Other (type your answer)" is always added and opens a
one-line input. Digits pick a choice directly, as in the Hermes CLI; Up/Down + Enter and clicks work too.
Like the approval dialog, keys in the first `GUARD_SECONDS` are ignored, so a user typing in the prompt when
the card appears does not answer it by accident.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from agent.ui import ClarifyRequest
from widgets.approval_dialog import format_countdown, literal_text

OTHER_LABEL = "Other (type your answer)"
"""The choice every clarify question gets, as in Hermes."""

AnswerReason = Literal["answered", "dismissed", "timeout", "cancelled"]


class ClarifyPrompt(Widget, can_focus=False):
    """A question card with numbered choices, "Other" free text and a countdown.

    Mount it in the bottom area of the chat screen (above the prompt, outside the scrolling transcript).
    It focuses its choices when mounted. Keys: digits pick a choice, Up/Down + Enter select, Enter in the
    free-text input sends, Escape skips the question (from the free-text input it first goes back to the
    choices).
    """

    GUARD_SECONDS: ClassVar[float] = 0.3
    """Keys in this window after the card appears are ignored (typing-ahead protection)."""

    TICK_SECONDS: ClassVar[float] = 0.1
    """How often the countdown and the interrupt flag are checked."""

    URGENT_SECONDS: ClassVar[float] = 10.0
    """Below this many seconds left the countdown is shown in the warning colour."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *[Binding(str(n), f"pick({n})", f"Choice {n}", show=False) for n in range(1, 10)],
        Binding("escape", "escape", "Skip question", show=False, id="clarify.skip"),
    ]

    DEFAULT_CSS = """
    ClarifyPrompt {
        height: auto;
        margin: 0 1;
        padding: 0 1;
        border: round $primary;
        border-title-color: $primary;
        border-title-style: bold;
        background: $surface;

        #clarify-header {
            height: auto;
        }
        #clarify-question {
            width: 1fr;
            color: $foreground;
            text-style: bold;
        }
        #clarify-countdown {
            width: auto;
            margin-left: 2;
            color: $foreground-muted;
            &.-urgent {
                color: $warning;
                text-style: bold;
            }
        }
        #clarify-choices {
            height: auto;
            max-height: 8;
            margin-top: 1;
            border: none;
            padding: 0;
            background: transparent;
            &:focus {
                border: none;
                background-tint: transparent;
            }
        }
        #clarify-input {
            margin-top: 1;
            display: none;
        }
        &.-free-text #clarify-input {
            display: block;
        }
        #clarify-hint {
            color: $foreground-muted;
        }
        &.-answered {
            opacity: 60%;
        }
    }
    """

    class Answered(Message):
        """The card is finished: `answer` is the user's text, or None if there is no answer."""

        def __init__(self, clarify_prompt: ClarifyPrompt, answer: str | None, reason: AnswerReason) -> None:
            super().__init__()
            self.clarify_prompt = clarify_prompt
            self.answer = answer
            """What the user chose or typed; None on Escape, timeout or interrupt."""
            self.reason: AnswerReason = reason
            """Why the card finished: answered, dismissed (Escape), timeout or cancelled (interrupt)."""

        @property
        def request(self) -> ClarifyRequest:
            """The request this answers (to find the waiting future)."""
            return self.clarify_prompt.request

        @property
        def control(self) -> ClarifyPrompt:
            return self.clarify_prompt

    def __init__(
        self,
        request: ClarifyRequest,
        *,
        frozen: bool = False,
        clock: Callable[[], float] = time.monotonic,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """Build the card for one question.

        Args:
            request: The question, choices, timeout and cancel event.
            frozen: Do not run the countdown or poll `request.cancel` (deterministic snapshots).
            clock: Monotonic clock in seconds, injectable for tests.
            name: Widget name.
            id: Widget id.
            classes: Extra CSS classes.
        """
        super().__init__(name=name, id=id, classes=classes)
        self.request = request
        self.frozen = frozen
        self._clock = clock
        self.choices: tuple[str, ...] = tuple(request.choices)
        self._shown_at: float | None = None
        self._armed = False
        self._done = False
        self._tick_timer: Timer | None = None
        self._last_countdown = ""

    # ----------------------------------------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        self.border_title = "? Hermes asks"
        with Horizontal(id="clarify-header"):
            yield Static(literal_text(self.request.question), id="clarify-question")
            yield Static(self._countdown_text(self.request.timeout), id="clarify-countdown")
        if self.choices:
            options = [
                Option(Text.assemble((f"{number}  ", "bold"), literal_text(choice)), id=f"choice-{number}")
                for number, choice in enumerate(self.choices, 1)
            ]
            options.append(
                Option(Text.assemble((f"{len(self.choices) + 1}  ", "bold"), OTHER_LABEL), id="other")
            )
            yield OptionList(*options, id="clarify-choices")
        yield Input(placeholder="Type your answer, Enter to send", id="clarify-input")
        yield Static(self._hint_text(), id="clarify-hint")

    @property
    def is_armed(self) -> bool:
        """True once the typing-ahead guard is over and the card accepts answers."""
        return self._armed

    @property
    def is_free_text(self) -> bool:
        """True while the free-text input is shown."""
        return self.has_class("-free-text")

    def _hint_text(self) -> Text:
        if not self.choices:
            return Text("Enter to send · Esc to skip the question")
        if self.is_free_text:
            return Text("Enter to send · Esc back to the choices")
        last = len(self.choices) + 1
        return Text(f"1-{last} or ↑↓ Enter to answer · Esc to skip the question")

    def _has_timeout(self) -> bool:
        timeout = self.request.timeout
        return timeout is not None and 0 < timeout < math.inf

    def _countdown_text(self, remaining: float) -> str:
        if not self._has_timeout():
            return ""
        return f"answer within {format_countdown(remaining)}"

    # -------------------------------------------------------------------------------------------- lifecycle

    def on_mount(self) -> None:
        self._shown_at = self._clock()
        if self.choices:
            options = self.query_one("#clarify-choices", OptionList)
            options.highlighted = 0
            options.focus()
        else:
            self.add_class("-free-text")
            self.query_one("#clarify-input", Input).focus()
        self.set_timer(self.GUARD_SECONDS, self.arm, name="clarify-guard")
        if not self.frozen:
            self._tick_timer = self.set_interval(self.TICK_SECONDS, self._tick, name="clarify-countdown")

    def arm(self) -> None:
        """End the typing-ahead guard. Called by a timer; tests and snapshots may call it directly."""
        self._armed = True

    def _tick(self) -> None:
        """Poll the interrupt flag and repaint the countdown (only when the shown text changes)."""
        if self._done:
            return
        if self.request.cancel.is_set():
            self._finish(None, "cancelled")
            return
        if not self._has_timeout() or self._shown_at is None:
            return
        remaining = self.request.timeout - (self._clock() - self._shown_at)
        if remaining <= 0:
            self._finish(None, "timeout")
            return
        text = self._countdown_text(remaining)
        if text != self._last_countdown:
            self._last_countdown = text
            countdown = self.query_one("#clarify-countdown", Static)
            countdown.update(text)
            countdown.set_class(remaining <= self.URGENT_SECONDS, "-urgent")

    def _finish(self, answer: str | None, reason: AnswerReason) -> None:
        """Post the one `Answered` message; later calls (a timer racing a key) are ignored."""
        if self._done:
            return
        self._done = True
        if self._tick_timer is not None:
            self._tick_timer.stop()
        self.add_class("-answered")
        self.post_message(self.Answered(self, answer, reason))

    # ---------------------------------------------------------------------------------------------- actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Ignore keys during the guard, after the answer, and digits beyond the offered choices."""
        if not self._armed or self._done:
            return False
        if action == "pick":
            number = parameters[0] if parameters else 0
            return self.choices != () and isinstance(number, int) and 1 <= number <= len(self.choices) + 1
        return True

    def action_pick(self, number: int) -> None:
        """Pick choice `number` (1-based); the number after the last choice is "Other"."""
        if number == len(self.choices) + 1:
            self.show_free_text()
        else:
            self._finish(self.choices[number - 1], "answered")

    def action_escape(self) -> None:
        """Escape leaves the free-text input (back to the choices), otherwise skips the question."""
        if self.is_free_text and self.choices:
            self.show_choices()
        else:
            self._finish(None, "dismissed")

    def show_free_text(self) -> None:
        """Show and focus the one-line input for an answer that is not among the choices."""
        self.add_class("-free-text")
        self.query_one("#clarify-hint", Static).update(self._hint_text())
        self.query_one("#clarify-input", Input).focus()

    def show_choices(self) -> None:
        """Hide the free-text input and focus the choices again."""
        self.remove_class("-free-text")
        self.query_one("#clarify-hint", Static).update(self._hint_text())
        self.query_one("#clarify-choices", OptionList).focus()

    @on(OptionList.OptionSelected, "#clarify-choices")
    def _option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if not self._armed or self._done:
            return
        self.action_pick(event.option_index + 1)

    @on(Input.Submitted, "#clarify-input")
    def _free_text_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not self._armed or self._done:
            return
        answer = event.value.strip()
        if answer:
            self._finish(answer, "answered")

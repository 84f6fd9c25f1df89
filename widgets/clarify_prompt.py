"""The clarify card: the agent asks the user a question and waits for the answer.

It is a card mounted above the prompt, not a modal: the transcript stays readable and scrollable while the
question is open (a question often refers to something earlier in the conversation). The agent thread is
blocked until the card posts `ClarifyPrompt.Answered`, so the card always ends with exactly one message:
the answer, or `None` on Escape, timeout or interrupt (`request.cancel`).

Choices come from the model (at most 4 in Hermes); "Other (type your answer)" is always added and opens a
one-line input (a request with `free_text_first` opens on the input, its choices one Esc away). Digits pick
a choice directly, as in the Hermes CLI; Up/Down + Enter and clicks work too. Like the approval dialog, keys
in the first `GUARD_SECONDS` are ignored, so a user typing in the prompt when the card appears does not
answer it by accident.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from agent.api import ClarifyRequest
from widgets.cards.look import card_css
from widgets.cards.question import QuestionCard
from widgets.support.text_safety import literal_text

OTHER_LABEL = "Other (type your answer)"
"""The choice every clarify question gets, as in Hermes."""

AnswerReason = Literal["answered", "dismissed", "timeout", "cancelled"]


class ClarifyPrompt(QuestionCard[ClarifyRequest], Widget, can_focus=False):
    """A question card with numbered choices, "Other" free text and a countdown.

    Mount it in the bottom area of the chat screen (above the prompt, outside the scrolling transcript).
    It focuses its choices when mounted. Keys: digits pick a choice, Up/Down + Enter select, Enter in the
    free-text input sends, Escape skips the question (from the free-text input it first goes back to the
    choices).
    """

    COUNTDOWN_ID = "clarify-countdown"
    COUNTDOWN_LABEL = "answer within"

    BINDINGS: ClassVar[list[BindingType]] = [
        *[Binding(str(n), f"pick({n})", f"Choice {n}", show=False) for n in range(1, 10)],
        Binding("escape", "escape", "Skip question", show=False, id="clarify.skip"),
    ]

    DEFAULT_CSS = (
        card_css("ClarifyPrompt")
        + """
    ClarifyPrompt {
        height: auto;
        margin: 0 1;
        padding: 0 1;

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
    )

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
        super().__init__(request, frozen=frozen, clock=clock, name=name, id=id, classes=classes)
        self.choices: tuple[str, ...] = tuple(request.choices)

    # ----------------------------------------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        self.border_title = "? Hermes asks"
        with Horizontal(id="clarify-header"):
            yield Static(literal_text(self.request.question), id="clarify-question")
            yield Static(self.countdown_text(self.request.timeout), id="clarify-countdown")
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

    # -------------------------------------------------------------------------------------------- lifecycle

    def on_mount(self) -> None:
        self._shown_at = self._clock()
        if self.choices:
            options = self.query_one("#clarify-choices", OptionList)
            options.highlighted = 0
            options.focus()
        if not self.choices or self.request.free_text_first:
            self.show_free_text()
        self._start_question()

    def _on_cancelled(self) -> None:
        self._finish(None, "cancelled")

    def _on_timed_out(self) -> None:
        self._finish(None, "timeout")

    def _finish(self, answer: str | None, reason: AnswerReason) -> None:
        """Post the one `Answered` message; later calls (a timer racing a key) are ignored."""
        if not self._answer_once():
            return
        self.add_class("-answered")
        self.post_message(self.Answered(self, answer, reason))

    # ---------------------------------------------------------------------------------------------- actions

    def _allows(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Digits only for the choices offered (and the "Other" after them)."""
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
        if not self.accepts_input:
            return
        self.action_pick(event.option_index + 1)

    @on(Input.Submitted, "#clarify-input")
    def _free_text_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if not self.accepts_input:
            return
        answer = event.value.strip()
        if answer:
            self._finish(answer, "answered")

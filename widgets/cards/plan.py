"""The plan card: a plan-mode turn ended with the model's plan; the user says how to go on.

Three choices, as Claude Code offers them after a plan: switch to `default` and go, switch to `ask` (every
edit and command asks) and go, or keep planning. It is a card above the prompt like the clarify card, with
the same guard: for `GUARD_SECONDS` after it appears keys and clicks are ignored, and what the user types
into it (letters, and digits while they are typing) goes on to the prompt (`aside`), never lost, never a
choice. Nothing waits for it: Esc, or a message sent meanwhile, keeps planning.

It only says what was chosen (`PlanCard.Chosen`: the mode's name, or None to keep planning); switching the
mode and sending the go-ahead is the chat's business.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from widgets.cards.look import card_css
from widgets.cards.question import QuestionCard

__all__ = ["PLAN_CHOICES", "PlanCard", "PlanOffer"]

PLAN_CHOICES: tuple[tuple[str | None, str], ...] = (
    ("default", "Yes, switch to default and go (edits run, risky commands ask)"),
    ("ask", "Yes, switch to ask and go (every edit and command asks)"),
    (None, "No, keep planning"),
)
"""(the mode chosen or None, the label): the card's choices in order, `1` to `3`."""


@dataclass(frozen=True)
class PlanOffer:
    """What the card asks about: nothing waits on it, so no timeout and a cancel nobody sets."""

    timeout: float = 0.0
    cancel: threading.Event = field(default_factory=threading.Event, compare=False)


class PlanCard(QuestionCard[PlanOffer], Widget, can_focus=False):
    """The choices after a plan. Keys (after the guard): `1`-`3`, Up/Down + Enter, Esc keeps planning."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *[Binding(str(n), f"pick({n})", f"Choice {n}", show=False) for n in range(1, len(PLAN_CHOICES) + 1)],
        Binding("escape", "keep_planning", "Keep planning", show=False, id="plan.keep"),
    ]

    DEFAULT_CSS = (
        card_css("PlanCard", "$accent")
        + """
    PlanCard {
        height: auto;
        margin: 0 1;
        padding: 0 1;

        #plan-question {
            color: $foreground;
            text-style: bold;
        }
        #plan-choices {
            height: auto;
            margin-top: 1;
            border: none;
            padding: 0;
            background: transparent;
            &:focus {
                border: none;
                background-tint: transparent;
            }
        }
        #plan-hint {
            color: $foreground-muted;
        }
        &.-answered {
            opacity: 60%;
        }
    }
    """
    )

    class Chosen(Message):
        """The card is done: `mode` is the mode to switch to and go in, or None to keep planning."""

        def __init__(self, card: PlanCard, mode: str | None) -> None:
            super().__init__()
            self.card = card
            self.mode = mode

        @property
        def control(self) -> PlanCard:
            return self.card

    def __init__(
        self,
        *,
        aside: Callable[[events.Key | events.Paste], None] | None = None,
        take_focus: bool = True,
        frozen: bool = False,
        clock: Callable[[], float] = time.monotonic,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """Build the card.

        Args:
            aside: Where typing that is not a choice goes (the chat's prompt); None: nowhere.
            take_focus: Focus the choices when mounted (the chat says no while the user is typing).
            frozen: Deterministic snapshots (no timers but the guard's).
            clock: Monotonic clock in seconds, injectable for tests.
            name: Widget name.
            id: Widget id.
            classes: Extra CSS classes.
        """
        super().__init__(PlanOffer(), frozen=frozen, clock=clock, name=name, id=id, classes=classes)
        self.aside = aside
        self.take_focus = take_focus
        self.chosen: str | None = None

    def compose(self) -> ComposeResult:
        self.border_title = "⏸ The plan is ready"
        yield Static("Would you like to proceed?", id="plan-question")
        options = [
            Option(Text.assemble((f"{number}  ", "bold"), label), id=f"plan-{mode or 'keep'}")
            for number, (mode, label) in enumerate(PLAN_CHOICES, 1)
        ]
        yield OptionList(*options, id="plan-choices")
        yield Static("1-3 or ↑↓ Enter · Esc keeps planning · typing goes to your message", id="plan-hint")

    def on_mount(self) -> None:
        choices = self.query_one("#plan-choices", OptionList)
        choices.highlighted = 0
        if self.take_focus:
            choices.focus()
        self._start_question()

    def focus_choices(self) -> None:
        """Take the keyboard (a click, or the chat once the prompt is empty)."""
        self.query_one("#plan-choices", OptionList).focus()

    def _on_cancelled(self) -> None:  # nothing cancels an offer (no turn waits on it)
        self._finish(None)

    def _on_timed_out(self) -> None:  # no timeout
        self._finish(None)

    def _finish(self, mode: str | None) -> None:
        if not self._answer_once():
            return
        self.chosen = mode
        self.add_class("-answered")
        self.post_message(self.Chosen(self, mode))

    def action_pick(self, number: int) -> None:
        if 1 <= number <= len(PLAN_CHOICES):
            self._finish(PLAN_CHOICES[number - 1][0])

    def action_keep_planning(self) -> None:
        self._finish(None)

    @on(OptionList.OptionSelected, "#plan-choices")
    def _option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.accepts_input:
            self.action_pick(event.option_index + 1)

    def on_key(self, event: events.Key) -> None:
        """A letter (or a digit during the guard) is the user's message going on: it goes to the prompt.
        Not stopped, as the approval dialog's: nothing above binds a plain letter."""
        typing = (
            event.is_printable and event.character and not (event.character.isdigit() and self.accepts_input)
        )
        if (event.key == "backspace" or typing) and self.aside is not None:
            self.aside(event)

    def on_paste(self, event: events.Paste) -> None:
        if self.aside is not None:
            self.aside(event)
        event.stop()

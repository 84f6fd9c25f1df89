"""`/rewind` (and Esc Esc on an empty prompt): pick one of your messages, then what goes back to just before
it: the conversation, the code, or both (Claude Code's rewind).

Two pickers on `PickerScreen`: the messages (newest first, the time and one line of each), then the choice
card. The card says what each choice does; code and both are offered only when a checkpoint was taken
after that message (a turn that changed no file has nothing to restore).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from hermes_tui.screens.picker import PickerScreen
from widgets.support.text_safety import sanitize_display

if TYPE_CHECKING:
    from agent.api import RewindPoint

__all__ = ["RewindChoice", "RewindChoiceScreen", "RewindScreen"]


@dataclass(frozen=True)
class RewindChoice:
    """A message to go back to, and what goes back."""

    point: RewindPoint
    conversation: bool
    code: bool


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"


class RewindScreen(PickerScreen[RewindChoice | None]):
    """This session's messages, newest first; dismisses with the choice made on the card (None: closed)."""

    DEFAULT_CSS = """
    RewindScreen > Vertical { width: 100; padding: 1 2; }
    RewindScreen OptionList { max-height: 20; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, points: list[RewindPoint]) -> None:
        super().__init__()
        self.points = points

    def compose_card(self) -> ComposeResult:
        yield Static(Text("Rewind to just before a message", style="bold"))
        yield OptionList(*[Option(self._row(point), id=str(n)) for n, point in enumerate(self.points)])
        yield Static(
            Text("files: restorable from there · ↑↓ choose · enter pick · esc close"), classes="hint"
        )

    @staticmethod
    def _row(point: RewindPoint) -> Text:
        """One line: the time, `files` when a rewind can restore files from there, the message cut to fit."""
        row = Text(f"{point.when:>13}  ", style="dim", end="")
        row.append("files  " if point.checkpoints else "       ", style="dim")
        row.append(sanitize_display(point.preview))
        return row

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        point = self.points[int(event.option.id or 0)]

        def chosen(choice: RewindChoice | None) -> None:
            if choice is not None:
                self.dismiss(choice)

        self.app.push_screen(RewindChoiceScreen(point), chosen)


class RewindChoiceScreen(PickerScreen[RewindChoice | None]):
    """Conversation, code, both or cancel, for one message (Esc: cancel)."""

    DEFAULT_CSS = """
    RewindChoiceScreen > Vertical { width: 90; padding: 1 2; }
    RewindChoiceScreen .quote { color: $text-muted; margin: 0 0 1 0; }
    """
    CARD_TITLE: ClassVar[str | None] = "Rewind"

    def __init__(self, point: RewindPoint) -> None:
        super().__init__()
        self.point = point

    def compose_card(self) -> ComposeResult:
        point = self.point
        yield Static(Text(f"Back to just before your message of {point.when}:", style="bold"))
        yield Static(Text(f"“{sanitize_display(point.preview)}”"), classes="quote")
        files = (
            f"the files as they were before it ({_plural(len(point.checkpoints), 'checkpoint')})"
            if point.checkpoints
            else "no file was changed since"
        )
        no_files = not point.checkpoints
        yield OptionList(
            Option(
                Text("Conversation — the model forgets it and what came after; it is back in the prompt"),
                id="conversation",
            ),
            Option(Text(f"Code — {files}; the conversation stays"), id="code", disabled=no_files),
            Option(Text("Both — the conversation and the files"), id="both", disabled=no_files),
            Option(Text("Cancel"), id="cancel"),
        )
        yield Static(
            Text("Rewound messages stay in the session, dimmed, and search finds them. esc cancels"),
            classes="hint",
        )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        what = event.option.id
        if what == "cancel":
            self.dismiss(None)
            return
        conversation, code = what in ("conversation", "both"), what in ("code", "both")
        self.dismiss(RewindChoice(self.point, conversation=conversation, code=code))

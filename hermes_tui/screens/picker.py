"""The one picker: a card in the middle of the screen with a list to choose from, Esc to close.

Seven screens (the model, personality, toolsets, processes, scheduled jobs, checkpoints and help) are the
same thing: a card (`widgets.cards.look`) holding a title or a border title, perhaps a filter field, an
`OptionList` without its own border or background, and hints in a muted colour. `PickerScreen` is that
card, its keys and its one CSS block; a picker composes only what goes in the card (`compose_card`) and
states in its own CSS only what differs (its width, how tall its list may grow).

Keys: Esc closes (`action_close`, None unless the picker says otherwise). With a filter field (`FILTERED`),
the field keeps the focus and Up/Down move the list's highlight from it (`action_move`); without one the
list has the focus and its own keys.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList

from widgets.cards.look import card_css

__all__ = ["PickerScreen"]

ResultT = TypeVar("ResultT")


class PickerScreen(ModalScreen[ResultT]):
    """A card with a list; subclasses compose its content in `compose_card`."""

    DEFAULT_CSS = (
        card_css("PickerScreen > Vertical")
        + """
    PickerScreen { align: center middle; }
    PickerScreen > Vertical { width: 80; max-width: 100%; height: auto; max-height: 90%; padding: 0 1; }
    PickerScreen > Vertical > Input { margin: 0 0 1 0; }
    PickerScreen OptionList { height: auto; max-height: 60vh; }
    PickerScreen OptionList, PickerScreen OptionList:focus { border: none; background: transparent; }
    PickerScreen .hint { color: $foreground-muted; }
    """
    )

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("down", "move(1)", show=False),
        Binding("up", "move(-1)", show=False),
    ]

    CARD_TITLE: ClassVar[str | None] = None
    """A title set in the card's border (else the picker's first line is its title)."""
    FILTERED: ClassVar[bool] = False
    """A filter field above the list keeps the focus: Up/Down move the list from it."""

    def compose(self) -> ComposeResult:
        with Vertical() as card:
            if self.CARD_TITLE is not None:
                card.border_title = self.CARD_TITLE
            yield from self.compose_card()

    def compose_card(self) -> ComposeResult:
        """What the card holds: a title, the filter, the list, hints."""
        yield from ()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "move":
            return self.FILTERED  # without a filter the focused list takes Up/Down itself
        return super().check_action(action, parameters)

    def action_move(self, step: int) -> None:
        """Up/Down from the filter field: the list's highlight moves, within its options."""
        listing = self.query(OptionList).first(OptionList) if self.query(OptionList) else None
        if listing is None or not listing.option_count:
            return
        current = listing.highlighted if listing.highlighted is not None else -step
        listing.highlighted = max(0, min(listing.option_count - 1, current + step))

    def action_close(self) -> None:
        self.dismiss()

"""The transcript's markers for what is not on screen: the placeholders standing in for unmounted entries
("↑ N earlier entries", "↓ N later entries") and the bar that says new output arrived below the view.

Separate from `widgets.transcript` so the transcript module keeps to its one job (the window of mounted
entries); they only post messages, the transcript decides what to load."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

__all__ = ["EarlierEntries", "EntriesPlaceholder", "LaterEntries", "NewOutputIndicator"]


class EntriesPlaceholder(Widget, can_focus=True):
    """A one-line placeholder standing in for unmounted entries. Enter or click loads a page of them."""

    FOCUS_ON_CLICK = False  # a click acts on it; the keyboard stays with the prompt (Tab navigates here)

    DEFAULT_CSS = """
    EntriesPlaceholder {
        height: 1;
        margin: 1 0 0 0;
        color: $text-muted;
        text-align: center;
        display: none;
        &.-visible { display: block; }
        &:focus { background: $boost; color: $foreground; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "activate", "Load", show=False)]

    count: reactive[int] = reactive(0)

    ARROW: ClassVar[str] = "↑"
    WHICH: ClassVar[str] = "earlier"
    HOW: ClassVar[str] = "scroll up"

    class Activated(Message):
        """The user asked for the hidden entries (click or Enter)."""

    def render(self) -> Text:
        noun = "entry" if self.count == 1 else "entries"
        return Text(
            f"{self.ARROW} {self.count} {self.WHICH} {noun} — {self.HOW} or press enter to load", end=""
        )

    def watch_count(self, count: int) -> None:
        self.set_class(count > 0, "-visible")

    def action_activate(self) -> None:
        self.post_message(self.Activated())

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Activated())


class EarlierEntries(EntriesPlaceholder):
    """The placeholder above the mounted entries, for the older ones ("↑ N earlier entries")."""

    class Activated(Message):
        """The user asked for the earlier entries (click or Enter)."""


class LaterEntries(EntriesPlaceholder):
    """The placeholder below the mounted window, for newer entries unmounted while the user reads further
    up ("↓ N later entries")."""

    ARROW = "↓"
    WHICH = "later"
    HOW = "scroll down"

    class Activated(Message):
        """The user asked for the later entries (click or Enter)."""


class NewOutputIndicator(Widget):
    """A bar docked at the bottom of the transcript while new output arrives below the view."""

    DEFAULT_CSS = """
    NewOutputIndicator {
        dock: bottom;
        height: 1;
        width: 100%;
        text-align: center;
        background: $primary 25%;
        color: $foreground;
        display: none;
        &.-visible { display: block; }
        &:hover { background: $primary 45%; }
    }
    """

    class Activated(Message):
        """The user clicked the indicator."""

    def render(self) -> Text:
        return Text("↓ new output — press end or click to follow", end="")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Activated())

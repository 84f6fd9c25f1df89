"""F1 / `/help`: every key and command in two columns, grouped, filtered as you type.

The rows come from `hermes_tui.commands` (the registry the prompt's completion and the palette use), so a
command added there shows here without another list to keep in step. Skill descriptions come from files on
disk: they are shown as text, never as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from hermes_tui.screens.picker import PickerScreen
from widgets.support.text_safety import sanitize_display

__all__ = ["HelpScreen", "matching_rows"]

KEY_COLUMN = 20


def matching_rows(rows: Sequence[tuple[str, str, str]], query: str) -> list[tuple[str, str, str]]:
    """Rows whose key, text or group contain every word of `query` (case-insensitive)."""
    words = query.lower().split()
    return [row for row in rows if all(w in " ".join(row).lower() for w in words)]


def _options(rows: Sequence[tuple[str, str, str]]) -> list[Option | None]:
    options: list[Option | None] = []
    group = None
    for row_group, key, text in rows:
        if row_group != group:
            if group is not None:
                options.append(None)  # a separator between groups
            options.append(Option(Text(row_group, style="bold underline"), disabled=True))
            group = row_group
        line = Text(no_wrap=False)
        line.append(f"  {sanitize_display(key):<{KEY_COLUMN}}", style="bold")
        line.append(sanitize_display(text))
        options.append(Option(line))
    return options


class HelpScreen(PickerScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,f1", "close", "Close")]
    FILTERED = True
    DEFAULT_CSS = """
    HelpScreen > Vertical { width: 90; }
    HelpScreen OptionList { max-height: 70vh; }
    HelpScreen #help-empty { color: $text-muted; }
    HelpScreen #help-foot { color: $text-muted; }
    """

    def __init__(self, rows: Sequence[tuple[str, str, str]]) -> None:
        super().__init__()
        self._rows = list(rows)
        self.shown_rows: list[tuple[str, str, str]] = list(rows)
        """The rows the filter leaves shown."""

    def compose_card(self) -> ComposeResult:
        yield Static(Text("Help: keys and commands", style="bold"))
        yield Input(placeholder="Filter: type a word (model, session, newline…)", id="help-filter")
        yield OptionList(*_options(self._rows), id="help-list")
        yield Static("", id="help-empty")
        yield Static("Esc closes · /command runs it from the prompt", id="help-foot")

    def on_mount(self) -> None:
        self.query_one("#help-filter", Input).focus()

    @on(Input.Changed, "#help-filter")
    def _filter(self, event: Input.Changed) -> None:
        rows = self.shown_rows = matching_rows(self._rows, event.value)
        listing = self.query_one("#help-list", OptionList)
        listing.clear_options()
        listing.add_options(_options(rows))
        empty = self.query_one("#help-empty", Static)
        empty.update("" if rows else Text(f"Nothing matches {event.value!r}."))

    def action_move(self, step: int) -> None:
        """Up/Down from the filter scroll the list (its group headings are not options to land on)."""
        listing = self.query_one("#help-list", OptionList)
        listing.scroll_relative(y=step, animate=False)

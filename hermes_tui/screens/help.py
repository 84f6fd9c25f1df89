"""F1 / `/help`: every key and command in two columns, grouped, filtered as you type.

The rows come from `hermes_tui.commands` (the registry the prompt's completion and the palette use), so a
command added there shows here without another list to keep in step. Skill descriptions come from files on
disk: they are shown as text, never as markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from hermes_tui.screens.picker import PickerScreen
from widgets.support.text_safety import sanitize_display

__all__ = ["HelpScreen", "matching_rows"]

KEY_COLUMN_MAX = 24
"""The key column fits the longest key up to this width (a longer key, a skill's name, wraps in it)."""


def matching_rows(rows: Sequence[tuple[str, str, str]], query: str) -> list[tuple[str, str, str]]:
    """Rows whose key, text or group contain every word of `query` (case-insensitive)."""
    words = query.lower().split()
    return [row for row in rows if all(w in " ".join(row).lower() for w in words)]


def key_column(rows: Sequence[tuple[str, str, str]], screen_width: int) -> int:
    """The width of the key column: the longest key of all rows (filtered or not, so it never jumps), at
    most `KEY_COLUMN_MAX` and a third of a narrow screen (a longer key wraps in its column)."""
    longest = max((len(sanitize_display(key)) for _, key, _ in rows), default=0)
    return min(KEY_COLUMN_MAX, longest, max(10, (screen_width - 8) // 3))


def help_line(key: str, text: str, width: int) -> Table:
    """One row as two columns: the key, then its text, which wraps under itself (a hanging indent)."""
    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(width=width + 2, style="bold", overflow="fold")  # the +2: the row's left margin
    grid.add_column(ratio=1, overflow="fold")
    grid.add_row(Text("  " + sanitize_display(key)), Text(sanitize_display(text)))
    return grid


def _options(rows: Sequence[tuple[str, str, str]], width: int) -> list[Option | None]:
    options: list[Option | None] = []
    group = None
    for row_group, key, text in rows:
        if row_group != group:
            if group is not None:
                options.append(None)  # a separator between groups
            options.append(Option(Text(row_group, style="bold underline"), disabled=True))
            group = row_group
        options.append(Option(help_line(key, text, width)))
    return options


class HelpScreen(PickerScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1", "close", "Close"),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
    ]
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
        yield OptionList(*_options(self._rows, self._key_width), id="help-list")
        yield Static("", id="help-empty")
        yield Static("Esc closes · PageUp/PageDown scroll · /command runs it from the prompt", id="help-foot")

    @property
    def _key_width(self) -> int:
        return key_column(self._rows, self.app.size.width)

    def on_mount(self) -> None:
        self.query_one("#help-filter", Input).focus()

    @on(Input.Changed, "#help-filter")
    def _filter(self, event: Input.Changed) -> None:
        self._relist(event.value)

    def _relist(self, query: str) -> None:
        rows = self.shown_rows = matching_rows(self._rows, query)
        listing = self.query_one("#help-list", OptionList)
        listing.clear_options()
        listing.add_options(_options(rows, self._key_width))
        empty = self.query_one("#help-empty", Static)
        empty.update("" if rows else Text(f"Nothing matches {query!r}."))

    def action_move(self, step: int) -> None:
        """Up/Down from the filter scroll the list (its group headings are not options to land on)."""
        listing = self.query_one("#help-list", OptionList)
        listing.scroll_relative(y=step, animate=False)

    def action_page(self, pages: int) -> None:
        """PageUp/PageDown scroll the list a page while the filter keeps the focus."""
        listing = self.query_one("#help-list", OptionList)
        listing.scroll_relative(y=pages * max(1, listing.scrollable_content_region.height - 1), animate=False)

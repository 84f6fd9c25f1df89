"""The session browser's own widgets: the search field and the list of rows."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Input, OptionList

__all__ = ["SearchInput", "SessionList"]


class SearchInput(Input):
    """The search field: Enter resumes the highlighted session (shown in the footer as such)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Resume", key_display="↵"),
        # Up/down/page keys move through the results (a one-line Input has nothing to scroll).
        Binding("down", "screen.cursor_down", "Results", key_display="↓"),
        Binding("up", "screen.cursor_up", show=False),
        Binding("pagedown", "screen.page_down", show=False),
        Binding("pageup", "screen.page_up", show=False),
    ]


class SessionList(OptionList):
    """The rows. A click highlights a row; a double click (or Enter) selects it, which resumes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Resume", key_display="↵"),
        Binding("up", "up_or_leave", "Previous", show=False),
    ]

    class LeftTop(Message):
        """Up was pressed on the first row: the search box above should take the focus."""

    def action_up_or_leave(self) -> None:
        if not self.highlighted:
            self.post_message(self.LeftTop())
        else:
            self.action_cursor_up()

    async def on_click(self, event: events.Click) -> None:
        event.prevent_default()  # not OptionList's click handler, which selects on the first click
        index = event.style.meta.get("option")
        if index is None or not (0 <= index < self.option_count):
            return
        if self.get_option_at_index(index).disabled:
            return
        self.highlighted = index
        if event.chain >= 2:
            self.action_select()

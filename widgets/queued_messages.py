"""Messages the user sent while the agent was busy, waiting for the turn to end.

A queue nobody can see is a queue that surprises (Hermes #28503 dropped queued messages, #64578 stranded
them; Claude Code users pull queued prompts back with Up). So the queue is a visible list above the
prompt: each row can be taken back into the prompt for editing (`e`, Enter or a click) or removed (`x` /
Delete), or delivered to the running turn at once as a steer (`s`); Up on an empty prompt takes the last one
back (`take_last`). The app sends `pop_next()` when a turn ends. Hidden while empty. While anything is
queued, `hint()` is the line of keys the status bar shows, so the queue's keys are never a secret.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from widgets.support.text_safety import literal_text


class QueuedMessages(OptionList):
    """The list of queued messages, oldest first.

    API: `add(text)`, `pop_next() -> str | None`, `take(index) -> str`, `take_last() -> str | None`,
    `clear_all()`, `items`, `hint()`.
    Messages: `QueuedMessages.EditRequested(text)` (the item was removed; the app puts `text` back in the
    prompt) and `QueuedMessages.Changed(items)` after any change.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e", "edit", "Edit", id="queue.edit"),
        Binding("x,delete,backspace", "remove", "Remove", id="queue.remove"),
        Binding("s", "steer", "Steer now", id="queue.steer"),
    ]

    DEFAULT_CSS = """
    QueuedMessages {
        height: auto;
        max-height: 6;
        margin: 0 1;
        padding: 0 1;
        border: none;
        border-left: outer $secondary;
        background: transparent;
        color: $foreground-muted;
        & > .option-list--option-highlighted {
            color: $foreground-muted;
            background: transparent;
            text-style: none;
        }
        &:focus {
            border: none;
            border-left: outer $secondary;
            background-tint: transparent;
            & > .option-list--option-highlighted {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
        }
        &.-empty {
            display: none;
        }
    }
    """

    class EditRequested(Message):
        """The user took a queued message back to edit it; it is no longer queued."""

        def __init__(self, queued_messages: QueuedMessages, text: str) -> None:
            super().__init__()
            self.queued_messages = queued_messages
            self.text = text

        @property
        def control(self) -> QueuedMessages:
            return self.queued_messages

    class SteerRequested(Message):
        """The user wants this queued message delivered to the running turn now (a steer)."""

        def __init__(self, queued_messages: QueuedMessages, text: str) -> None:
            super().__init__()
            self.queued_messages = queued_messages
            self.text = text

        @property
        def control(self) -> QueuedMessages:
            return self.queued_messages

    class Changed(Message):
        """The queue changed (added, removed, popped, edited), or took or lost the focus (its hint)."""

        def __init__(self, queued_messages: QueuedMessages, items: tuple[str, ...]) -> None:
            super().__init__()
            self.queued_messages = queued_messages
            self.items = items

        @property
        def control(self) -> QueuedMessages:
            return self.queued_messages

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._items: list[str] = []
        self.add_class("-empty")

    @property
    def items(self) -> tuple[str, ...]:
        """The queued messages, oldest (next to send) first."""
        return tuple(self._items)

    def add(self, text: str, *, first: bool = False) -> None:
        """Queue `text` at the end (or, `first`, as the next one to send)."""
        self._items.insert(0, text) if first else self._items.append(text)
        self._rebuild()

    def pop_next(self) -> str | None:
        """Take the oldest queued message (the one to send next), or None when the queue is empty."""
        if not self._items:
            return None
        text = self._items.pop(0)
        self._rebuild()
        return text

    def take(self, index: int) -> str:
        """Remove and return the item at `index`."""
        text = self._items.pop(index)
        self._rebuild()
        return text

    def take_last(self) -> str | None:
        """Take the newest queued message (the one typed last), or None when the queue is empty."""
        return self.take(len(self._items) - 1) if self._items else None

    def hint(self) -> str:
        """The queue's keys for the status bar: how to reach it from the prompt, or, focused, what each key
        does; empty while nothing is queued."""
        if not self._items:
            return ""
        if self.has_focus:
            return "queue: e edit · x remove · s steer now · Tab back"
        count = len(self._items)
        return f"{count} queued · ↑ edit last · Alt+↑ manage"

    def on_focus(self) -> None:
        self.post_message(self.Changed(self, self.items))

    def on_blur(self) -> None:
        self.post_message(self.Changed(self, self.items))

    def clear_all(self) -> None:
        """Drop every queued message."""
        self._items.clear()
        self._rebuild()

    def action_edit(self) -> None:
        """Take the highlighted message out of the queue and hand it to the app for editing."""
        if self.highlighted is None or not self._items:
            return
        text = self.take(self.highlighted)
        self.post_message(self.EditRequested(self, text))

    def action_steer(self) -> None:
        """Turn the highlighted queued message into a steer for the running turn."""
        if self.highlighted is None or not self._items:
            return
        text = self.take(self.highlighted)
        self.post_message(self.SteerRequested(self, text))

    def action_remove(self) -> None:
        """Drop the highlighted message."""
        if self.highlighted is None or not self._items:
            return
        self.take(self.highlighted)

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter or a click on a row edits it, like `e`."""
        event.stop()
        if 0 <= event.option_index < len(self._items):
            text = self.take(event.option_index)
            self.post_message(self.EditRequested(self, text))

    def _rebuild(self) -> None:
        """Re-render the rows, keep the highlight in range, hide the widget when empty."""
        highlighted = self.highlighted
        self.set_options(Option(self._row(text)) for text in self._items)
        if self._items:
            self.highlighted = min(highlighted or 0, len(self._items) - 1)
        self.set_class(not self._items, "-empty")
        if not self._items and self.has_focus:
            self.screen.focus_previous()
        self.post_message(self.Changed(self, self.items))

    @staticmethod
    def _row(text: str) -> Text:
        """One line per message: its first line, with a note of how many more lines it has."""
        lines = text.splitlines() or [""]
        row = Text.assemble(("queued: ", "italic"), literal_text(lines[0]))
        if len(lines) > 1:
            row.append(f"  (+{len(lines) - 1} lines)", style="dim")
        row.no_wrap = True
        row.overflow = "ellipsis"
        return row

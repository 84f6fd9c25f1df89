"""The images attached to the next message, as badges above the prompt; each one can be removed.

The bar only shows labels it is given (`set_items`); the screen owns the attachments themselves and
removes one when a badge posts `AttachmentBar.RemoveRequested` (a click, or Delete/Enter on a focused
badge). Empty, the bar takes no room.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from widgets.support.text_safety import sanitize_display

__all__ = ["AttachmentBadge", "AttachmentBar"]


class AttachmentBadge(Static, can_focus=True):
    """One attached image: `📎 shot.png · 1280×720 · 210 KB ✕`."""

    DEFAULT_CSS = """
    AttachmentBadge {
        width: auto;
        height: 1;
        margin: 0 1 0 0;
        padding: 0 1;
        background: $accent 20%;
        color: $text-accent;
        &:hover { background: $accent 35%; }
        &:focus { background: $accent 50%; text-style: bold; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("delete,backspace,enter", "remove", "Remove", show=False),
    ]

    def __init__(self, index: int, label: str) -> None:
        super().__init__(Text(f"📎 {sanitize_display(label)} ✕"))
        self.index = index
        self.tooltip = "Remove this image (click, or Delete)"

    def action_remove(self) -> None:
        self.post_message(AttachmentBar.RemoveRequested(self.index))

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_remove()


class AttachmentBar(Widget):
    """Badges of the images that go with the next message."""

    DEFAULT_CSS = """
    AttachmentBar {
        layout: horizontal;
        height: auto;
        max-height: 3;
        margin: 0 2;
        overflow-x: auto;
        display: none;
        &.-has-items { display: block; }
    }
    """

    class RemoveRequested(Message):
        """The user asked to remove the attachment at `index`."""

        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._labels: tuple[str, ...] = ()

    @property
    def labels(self) -> tuple[str, ...]:
        return self._labels

    def set_items(self, labels: Sequence[str]) -> None:
        """Show these badges (one per attached image, in order)."""
        self._labels = tuple(labels)
        self.remove_children()
        self.mount_all(AttachmentBadge(n, label) for n, label in enumerate(self._labels))
        self.set_class(bool(self._labels), "-has-items")

"""The user's message in the transcript: shown literally, one widget, huge pastes collapsed, attached images
as badges under the text."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.reactive import reactive

from widgets.text_safety import component_text_style, sanitize_display
from widgets.transcript_part import TranscriptPart

__all__ = ["UserMessage"]


class UserMessage(TranscriptPart, can_focus=True):
    """What the user typed, as plain `Text` (a pasted `[bold]` stays literal).

    A message longer than `COLLAPSE_THRESHOLD` lines (a pasted log, a file) or `COLLAPSE_CHARS` characters
    (one huge pasted line wraps to hundreds of rows) would push the reply off screen, so it starts collapsed
    to its first `PREVIEW_LINES` lines (at most `PREVIEW_CHARS` characters); click or Enter expands it.
    """

    DEFAULT_CSS = """
    UserMessage {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        background: $boost;
        border-left: outer $primary;
        color: $foreground;
        &:focus { background: $primary 12%; }
        & > .user-message--more { color: $text-muted; text-style: italic; }
        & > .user-message--image { color: $text-accent; text-style: bold; }
    }
    """

    SHARE_COMPONENT_STYLES: ClassVar[bool] = True
    """Entries of a kind style their component classes alike: matched once (textual_compat)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"user-message--more", "user-message--image"}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle_expanded", "Expand/collapse", show=False),
    ]

    COLLAPSE_THRESHOLD: ClassVar[int] = 40
    """Messages with more lines than this start collapsed."""
    COLLAPSE_CHARS: ClassVar[int] = 4_000
    """Messages with more characters than this start collapsed too."""
    PREVIEW_LINES: ClassVar[int] = 12
    """Lines shown while collapsed."""
    PREVIEW_CHARS: ClassVar[int] = 1_200
    """Characters shown while collapsed, at most."""

    expanded: reactive[bool] = reactive(False, layout=True)
    """Show every line of a long message."""

    def __init__(
        self,
        text: str,
        *,
        images: Sequence[str] = (),
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`images`: a badge label for each attached image (`shot.png · 1280×720 · 210 KB`)."""
        super().__init__(name=name, id=id, classes=classes)
        self._text = sanitize_display(text).rstrip("\n")
        self._lines = self._text.split("\n")
        self._images = tuple(sanitize_display(label) for label in images)

    @property
    def text(self) -> str:
        """The message as displayed (controls stripped, otherwise literal)."""
        return self._text

    @property
    def images(self) -> tuple[str, ...]:
        """The attached images' badge labels."""
        return self._images

    @property
    def line_count(self) -> int:
        return len(self._lines)

    @property
    def is_collapsible(self) -> bool:
        """True when the message is long enough to be collapsed."""
        return len(self._lines) > self.COLLAPSE_THRESHOLD or len(self._text) > self.COLLAPSE_CHARS

    def render(self) -> Text:
        text = self._render_text()
        if self._images:
            style = component_text_style(self, "user-message--image")
            text.append("\n")
            for n, label in enumerate(self._images):
                text.append("   " if n else "")
                text.append(f"📎 {label}", style=style)
        return text

    def _render_text(self) -> Text:
        if not self.is_collapsible:
            return Text(self._text, end="")
        more_style = component_text_style(self, "user-message--more")
        if self.expanded:
            text = Text(self._text, end="")
            text.append("\n▴ collapse (click/enter)", style=more_style)
            return text
        preview = "\n".join(self._lines[: self.PREVIEW_LINES])[: self.PREVIEW_CHARS]
        rest = self._text[len(preview) :]
        lines = rest.count("\n")
        hidden = f"{lines:,} more lines" if lines else f"{len(rest):,} more characters"
        text = Text(preview, end="")
        text.append(f"\n… {hidden} (click/enter to expand)", style=more_style)
        return text

    def action_toggle_expanded(self) -> None:
        """Expand or collapse a long message (no-op for short ones)."""
        if self.is_collapsible:
            self.expanded = not self.expanded

    def on_click(self, event: events.Click) -> None:
        if self.is_collapsible:
            event.stop()
            self.action_toggle_expanded()

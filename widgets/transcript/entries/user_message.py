"""The user's message in the transcript: shown literally, huge pastes collapsed, attached images as badges
under the text. A transcript entry (drawn by the transcript's one view), not a widget."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from widgets.support.text_safety import sanitize_display
from widgets.transcript.entries.base import Entry, pad_line
from widgets.transcript.markdown.render import Line, render_text
from widgets.transcript.record import TranscriptRecord

__all__ = ["UserMessageEntry"]


class UserMessageEntry(Entry):
    """What the user typed, as plain `Text` (a pasted `[bold]` stays literal).

    A message longer than `COLLAPSE_THRESHOLD` lines (a pasted log, a file) or `COLLAPSE_CHARS` characters
    (one huge pasted line wraps to hundreds of rows) would push the reply off screen, so it starts collapsed
    to its first `PREVIEW_LINES` lines (at most `PREVIEW_CHARS` characters); click or Enter expands it.
    """

    KIND: ClassVar[str] = "user"
    STYLE: ClassVar[str] = "transcript--user"
    BORDER: ClassVar[str] = "▌"

    COLLAPSE_THRESHOLD: ClassVar[int] = 40
    """Messages with more lines than this start collapsed."""
    COLLAPSE_CHARS: ClassVar[int] = 4_000
    """Messages with more characters than this start collapsed too."""
    PREVIEW_LINES: ClassVar[int] = 12
    """Lines shown while collapsed."""
    PREVIEW_CHARS: ClassVar[int] = 1_200
    """Characters shown while collapsed, at most."""

    def __init__(
        self, text: str, *, images: Sequence[str] = (), expanded: bool = False, shell: bool = False
    ) -> None:
        """`images`: a badge label for each attached image (`shot.png · 1280×720 · 210 KB`); `shell`: a
        `!command` the user ran, not a message the model was sent (a rewind does not count it)."""
        self.shell = shell
        self._text = sanitize_display(text).rstrip("\n")
        self._lines = self._text.split("\n")
        self._images = tuple(sanitize_display(label) for label in images)
        self._expanded = expanded
        self._cache: tuple[tuple[int, int, bool], list[Line]] | None = None

    @property
    def text(self) -> str:
        """The message as displayed (controls stripped, otherwise literal)."""
        return self._text

    copy_text = text
    CAN_COPY = True

    @property
    def images(self) -> tuple[str, ...]:
        """The attached images' badge labels."""
        return self._images

    @property
    def line_count(self) -> int:
        return len(self._lines)

    @property
    def expanded(self) -> bool:
        return self._expanded

    @property
    def is_collapsible(self) -> bool:
        """True when the message is long enough to be collapsed."""
        return len(self._lines) > self.COLLAPSE_THRESHOLD or len(self._text) > self.COLLAPSE_CHARS

    @property
    def can_toggle(self) -> bool:
        return self.is_collapsible

    def toggle(self) -> bool:
        """Expand or collapse a long message (no-op for short ones)."""
        if not self.is_collapsible:
            return False
        self._expanded = not self._expanded
        self._cache = None
        self.changed()
        return True

    def record(self) -> TranscriptRecord:
        return TranscriptRecord("user", self._text, expanded=self._expanded, images=self._images)

    # ----------------------------------------------------------------------------------------- drawing

    def _style(self, component: str) -> Style:
        painter = self.painter
        return Style() if painter is None else painter.span_style(component)

    def render_text(self) -> Text:
        text = self._message_text()
        if self._images:
            style = self._style("user-message--image")
            text.append("\n")
            for n, label in enumerate(self._images):
                text.append("   " if n else "")
                text.append(f"📎 {label}", style=style)
        return text

    def _message_text(self) -> Text:
        if not self.is_collapsible:
            return Text(self._text, end="")
        more_style = self._style("user-message--more")
        if self._expanded:
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

    def _rendered(self, width: int) -> list[Line]:
        painter = self.painter
        generation = painter.generation if painter is not None else 0
        key = (width, generation, self._expanded)
        if self._cache is None or self._cache[0] != key:
            if painter is None:
                return []
            base = self.base_style
            border = (
                Segment(self.BORDER, self._style("user-message--border") + Style(bgcolor=base.bgcolor)),
            )
            inner = max(1, width - 3)
            lines = render_text(painter.console, self.render_text(), inner, base)
            self._cache = (key, [pad_line(line, width, 1, 1, base, prefix=border) for line in lines])
        return self._cache[1]

    def content_height(self, width: int) -> int:
        return len(self._rendered(width))

    def estimate_content(self, width: int) -> int:
        if self.is_collapsible and not self._expanded:
            return self.PREVIEW_LINES + 1 + bool(self._images)
        inner = max(1, width - 3)
        return sum(max(1, -(-len(line) // inner)) for line in self._lines) + bool(self._images)

    def content_line(self, y: int, width: int) -> Line:
        lines = self._rendered(width)
        return lines[y] if 0 <= y < len(lines) else ()

"""Status notices in the transcript: retries, budget warnings, errors with a fix hint, interrupts."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text

from widgets.support.text_safety import sanitize_display
from widgets.transcript.entries.base import Entry, pad_line
from widgets.transcript.markdown.render import Line, render_text
from widgets.transcript.record import TranscriptRecord

__all__ = ["NoticeEntry"]


class NoticeEntry(Entry):
    """A short notice coloured by kind (component classes `notice--info`, `notice--warn`, `notice--error`,
    `notice--retry`, `notice--interrupted`, `notice--success`), so a theme decides the colours. The text is
    literal (`Text`), never markup.

    `hint` is an optional second part ("set OPENAI_API_KEY or run /setup") shown muted after the message.
    """

    KIND: ClassVar[str] = "notice"

    GLYPHS: ClassVar[dict[str, str]] = {
        "info": "ℹ",
        "warn": "⚠",
        "retry": "↻",
        "error": "✗",
        "interrupted": "■",
        "success": "✓",
    }
    KNOWN_KINDS: ClassVar[frozenset[str]] = frozenset(GLYPHS)

    def __init__(self, kind: str, text: str, *, hint: str | None = None, multiline: bool = False) -> None:
        kind = kind if kind in self.KNOWN_KINDS else "info"
        self._kind = kind
        # A notice is one line: fold newlines so a multi-line provider error cannot flood the transcript.
        # A listing the user asked for (`/plugins`, `/help`) keeps its lines.
        clean = sanitize_display(text)
        self._text = clean.strip("\n").rstrip() if multiline else " ".join(clean.split("\n")).strip()
        self._hint = " ".join(sanitize_display(hint).split("\n")).strip() if hint else None
        self._cache: tuple[tuple[int, int], list[Line]] | None = None

    def style_class(self) -> str:
        return f"notice--{self._kind}"

    @property
    def kind(self) -> str:
        return self._kind

    @property
    def text(self) -> str:
        return self._text

    @property
    def hint(self) -> str | None:
        return self._hint

    def record(self) -> TranscriptRecord:
        return TranscriptRecord("notice", self._text, notice_kind=self._kind, hint=self._hint)

    def render_text(self) -> Text:
        line = Text(end="")
        line.append(f"{self.GLYPHS[self._kind]} ")
        line.append(self._text)
        if self._hint:
            hint = Style() if self.painter is None else self.painter.span_style("notice--hint")
            line.append(f" — {self._hint}", style=hint)
        return line

    def _rendered(self, width: int) -> list[Line]:
        painter = self.painter
        if painter is None:
            return []
        key = (width, painter.generation)
        if self._cache is None or self._cache[0] != key:
            base = self.base_style
            lines = render_text(painter.console, self.render_text(), max(1, width - 2), base)
            self._cache = (key, [pad_line(line, width, 1, 1, base) for line in lines])
        return self._cache[1]

    def content_height(self, width: int) -> int:
        return len(self._rendered(width))

    def estimate_content(self, width: int) -> int:
        inner = max(1, width - 2)
        lines = f"{self._text} — {self._hint or ''}".split("\n")
        return sum(max(1, -(-(len(line) + 2) // inner)) for line in lines)

    def content_line(self, y: int, width: int) -> Line:
        lines = self._rendered(width)
        return lines[y] if 0 <= y < len(lines) else ()

"""One-line status notices in the transcript: retries, budget warnings, errors with a fix hint, interrupts."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.widget import Widget

from widgets.text_safety import component_text_style, sanitize_display

__all__ = ["NoticeLine"]


class NoticeLine(Widget):
    """A short notice coloured by kind (CSS classes `-info`, `-warn`, `-error`, `-retry`, `-interrupted`,
    `-success`), so a theme decides the colours. The text is literal (`Text`), never markup.

    `hint` is an optional second part ("set OPENAI_API_KEY or run /setup") shown muted after the message.
    """

    DEFAULT_CSS = """
    NoticeLine {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        color: $text-muted;
        &.-info { color: $text-muted; }
        &.-warn { color: $text-warning; }
        &.-retry { color: $text-warning; }
        &.-error { color: $text-error; }
        &.-interrupted { color: $text-warning; }
        &.-success { color: $text-success; }
        & > .notice--hint { color: $text-muted; }
    }
    """

    SHARE_COMPONENT_STYLES: ClassVar[bool] = True
    """Entries of a kind style their component classes alike: matched once (textual_compat)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"notice--hint"}

    GLYPHS: ClassVar[dict[str, str]] = {
        "info": "ℹ",
        "warn": "⚠",
        "retry": "↻",
        "error": "✗",
        "interrupted": "■",
        "success": "✓",
    }
    KNOWN_KINDS: ClassVar[frozenset[str]] = frozenset(GLYPHS)

    def __init__(
        self,
        kind: str,
        text: str,
        *,
        hint: str | None = None,
        multiline: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        kind = kind if kind in self.KNOWN_KINDS else "info"
        super().__init__(name=name, id=id, classes=classes)
        self.add_class(f"-{kind}")
        self._kind = kind
        # A notice is one line: fold newlines so a multi-line provider error cannot flood the transcript.
        # A listing the user asked for (`/plugins`, `/help`) keeps its lines.
        clean = sanitize_display(text)
        self._text = clean.strip("\n").rstrip() if multiline else " ".join(clean.split("\n")).strip()
        self._hint = " ".join(sanitize_display(hint).split("\n")).strip() if hint else None

    @property
    def kind(self) -> str:
        return self._kind

    @property
    def text(self) -> str:
        return self._text

    @property
    def hint(self) -> str | None:
        return self._hint

    def render(self) -> Text:
        line = Text(end="")
        line.append(f"{self.GLYPHS[self._kind]} ")
        line.append(self._text)
        if self._hint:
            line.append(f" — {self._hint}", style=component_text_style(self, "notice--hint"))
        return line

"""Plain text that grows at the end, kept as finished lines plus the open last one.

The plain-text counterpart of `BlockDocument` for reasoning and tool output: a line is finished once its
newline has arrived, so it is wrapped and rendered once; only the open line is rendered again. Blank lines
at the start are dropped and blank lines at the end are held back until text follows them (a stream often
ends with a newline or two; they are not worth a line on screen).

Pure Python: testable without a screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["TextLine", "TextLines"]


@dataclass(frozen=True, slots=True, eq=False)
class TextLine:
    """One line of text (no newline). Compared by identity: a finished line is rendered once."""

    text: str
    finished: bool


class TextLines:
    """Finished lines (only ever appended to) and the open last line."""

    __slots__ = ("_finished", "_held", "_open", "_open_line", "_started")

    def __init__(self, text: str = "") -> None:
        self._finished: list[TextLine] = []
        self._held: list[TextLine] = []  # finished blank lines waiting for text after them
        self._open = ""
        self._open_line: TextLine | None = None
        self._started = False  # a non-blank line was seen (leading blank lines are dropped)
        if text:
            self.feed(text)

    @property
    def finished(self) -> Sequence[TextLine]:
        return self._finished

    @property
    def open_line(self) -> TextLine | None:
        """The partial last line, or None when it is empty."""
        if self._open_line is None and self._open.strip():
            self._open_line = TextLine(self._open, False)
        return self._open_line

    @property
    def line_count(self) -> int:
        """Lines shown: the finished ones and the open one."""
        return len(self._finished) + (1 if self._open.strip() else 0)

    def feed(self, text: str) -> None:
        """Append text (already sanitized)."""
        if not text:
            return
        *complete, rest = text.split("\n")
        if complete:
            first = self._open + complete[0]
            for line in (first, *complete[1:]):
                self._finish(line)
            self._open = rest
        else:
            self._open += rest
        self._open_line = None
        if self._held and self._open.strip():
            self._finished.extend(self._held)  # text follows the blank lines: they are shown now
            self._held.clear()

    def close(self) -> None:
        """The text ended: the open line becomes a finished one; held blank lines are dropped."""
        if self._open:
            self._finish(self._open)
            self._open = ""
            self._open_line = None
        self._held.clear()

    def _finish(self, line: str) -> None:
        if not line.strip():
            if self._started:
                self._held.append(TextLine(line, True))
            return
        self._started = True
        if self._held:
            self._finished.extend(self._held)
            self._held.clear()
        self._finished.append(TextLine(line, True))

"""The model's reasoning ("thinking") text: its own entry, collapsed by default.

Reasoning can be long and is secondary to the answer, so it starts collapsed to a single header line that
shows the latest line while it streams. It is plain text (not Markdown): reasoning is often half-formed
markup. Expanded, its lines are cached like a reply's (`LinesEntry` over `TextLines`): a finished line is
wrapped once, only the open line is drawn again, at most `RENDER_HZ` times a second; collapsed, only the
header line is drawn. `append()` only takes a lock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.style import Style
from rich.text import Text

from widgets.support import timing
from widgets.support.text_safety import StreamSanitizer, sanitize_display
from widgets.transcript.entries.base import LinesEntry, LiveUpdates, Painter
from widgets.transcript.markdown.render import Line, render_plain, render_text
from widgets.transcript.markdown.text_lines import TextLine, TextLines
from widgets.transcript.record import TranscriptRecord

__all__ = ["ReasoningEntry"]


class ReasoningEntry(LinesEntry):
    """Streaming, collapsible reasoning text. Click or Enter toggles."""

    KIND: ClassVar[str] = "reasoning"
    STYLE: ClassVar[str] = "reasoning--base"
    RENDER_HZ: ClassVar[float] = timing.RENDER_HZ
    TITLE: ClassVar[str] = "Reasoning"

    def __init__(self, text: str = "", *, finished: bool = False, expanded: bool = False) -> None:
        super().__init__()
        self._pending: list[str] = []
        self._all: list[str] = [text] if text else []
        self._sanitizer = StreamSanitizer()
        self._lines = TextLines(sanitize_display(text))
        self._tail = self._last_line()
        self._finished = finished
        self._expanded = expanded
        self._header: tuple[tuple[object, ...], Line] | None = None
        self._updates: LiveUpdates | None = None
        if finished:
            self._lines.close()

    # ----------------------------------------------------------------------------------------- public API

    def append(self, text: str) -> None:
        """Queue a reasoning delta (UI thread). Cheap: drawn on the next paced update."""
        if text:
            self._pending.append(text)
            self._all.append(text)
            if self._updates is not None:
                self._updates.request()

    def finish(self) -> None:
        """No more reasoning will come: draw the rest."""
        if self._updates is not None:
            self._updates.cancel()
        self._drain()
        if tail := self._sanitizer.flush():
            self._lines.feed(tail)
        self._lines.close()
        self._finished = True
        self._header = None
        self.changed()

    @property
    def text(self) -> str:
        """All reasoning appended so far (sanitized), including what is not drawn yet."""
        if len(self._all) > 1:
            self._all[:] = ["".join(self._all)]
        raw = self._all[0] if self._all else ""
        return sanitize_display(raw)

    copy_text = text
    CAN_COPY = True

    @property
    def shown_text(self) -> str:
        """The reasoning drawn so far (leading and trailing blank lines left out)."""
        lines = [line.text for line in self._lines.finished]
        if (open_line := self._lines.open_line) is not None:
            lines.append(open_line.text)
        return "\n".join(lines)

    @property
    def is_finished(self) -> bool:
        return self._finished

    @property
    def is_drained(self) -> bool:
        return not self._pending

    @property
    def expanded(self) -> bool:
        return self._expanded

    @property
    def can_toggle(self) -> bool:
        return True

    def toggle(self) -> bool:
        self._expanded = not self._expanded
        self._header = None
        self.changed()
        return True

    def record(self) -> TranscriptRecord:
        return TranscriptRecord("reasoning", self.text, expanded=self._expanded)

    def header_text(self, width: int = 80) -> Text:
        """The one-line header as shown (for tests and the collapsed view)."""
        return self._header_content(width)

    # ----------------------------------------------------------------------------------------- the entry

    def attach(self, painter: Painter) -> None:
        super().attach(painter)
        self._updates = LiveUpdates(painter.pacer, self._drain, hz=self.RENDER_HZ)
        if self._pending:
            self._updates.request()

    def detach(self) -> None:
        if self._updates is not None:
            self._updates.cancel()

    def blocks(self) -> tuple[Sequence[TextLine], TextLine | None]:
        return self._lines.finished, self._lines.open_line

    def render_block(self, block: TextLine, width: int) -> list[Line]:
        painter = self.painter
        assert painter is not None
        return render_plain(
            painter.console, block.text, width, self.base_style + self._style("reasoning--body")
        )

    def on_style_change(self) -> None:
        self._header = None

    def header_height(self) -> int:
        return 1

    def render_header(self, y: int, width: int) -> Line:
        key = (
            width,
            self.painter.generation if self.painter else 0,
            self._expanded,
            self._finished,
            self._tail,
        )
        if self._header is None or self._header[0] != key:
            header = self._header_content(width)
            header.truncate(max(1, width), overflow="ellipsis")
            painter = self.painter
            lines = render_text(painter.console, header, width, self.base_style) if painter else [()]
            self._header = (key, lines[0] if lines else ())
        return self._header[1]

    def body_visible(self) -> bool:
        return self._expanded

    def estimate_content(self, width: int) -> int:
        if not self._expanded:
            return 1
        return 1 + max(1, self._lines.line_count)

    # ----------------------------------------------------------------------------------------- internals

    def _style(self, component: str) -> Style:
        return Style() if self.painter is None else self.painter.span_style(component)

    def _last_line(self) -> str:
        open_line = self._lines.open_line
        if open_line is not None:
            return open_line.text
        finished = self._lines.finished
        return finished[-1].text if finished else ""

    def _drain(self) -> None:
        if not self._pending:
            return
        raw = "".join(self._pending)
        self._pending.clear()
        chunk = self._sanitizer.feed(raw)
        if not chunk:
            return
        self._lines.feed(chunk)
        tail = self._last_line()
        if tail != self._tail:
            self._tail = tail
            self._header = None
            if not self._expanded:
                self.changed(0)
        if self._expanded:
            self.refresh_changed()

    def _header_content(self, width: int) -> Text:
        title_style = self._style("reasoning--title")
        meta_style = self._style("reasoning--meta")
        header = Text(no_wrap=True, overflow="ellipsis", end="")
        header.append("▾ " if self._expanded else "▸ ", style=meta_style)
        header.append(self.TITLE, style=title_style)
        if self._expanded:
            return header
        if not self._finished:
            header.append(" … ", style=meta_style)
            header.append(self._tail.strip(), style=self._style("reasoning--body"))
        else:
            lines = self.shown_rows(width)
            header.append(
                f" · {lines} line{'s' if lines != 1 else ''} (click/enter to show)", style=meta_style
            )
        return header

    def shown_rows(self, width: int) -> int:
        """The rows the expanded text takes at `width`: what the collapsed label counts, so a long line
        that wraps to three rows is "3 lines", as the user will see it (the text's lines when not drawn)."""
        if width <= 0 or self.painter is None:
            return self._lines.line_count
        finished, open_block = self.blocks()
        return self._stack.sync(
            finished, open_block, (width, self.painter.generation), self.base_style
        ).new_height

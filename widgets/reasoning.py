"""The model's reasoning ("thinking") text: its own block, collapsed by default, one widget.

Reasoning can be long and is secondary to the answer, so it starts collapsed to a single header line that
shows the latest line while it streams. It is plain text (not Markdown): reasoning is often half-formed
markup. Expanded, its lines are cached strips like a reply's (`LineView` over `TextLines`): a finished line
is wrapped once, only the open line is drawn again, at most `RENDER_HZ` times a second; collapsed, only the
header line is drawn. `append()` only takes a lock.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.strip import Strip

from widgets.markdown_view.render import Line, render_plain
from widgets.markdown_view.text_lines import TextLine, TextLines
from widgets.markdown_view.view import LineView, LiveUpdates
from widgets.text_safety import StreamSanitizer, component_text_style, sanitize_display

__all__ = ["ReasoningBlock"]


class ReasoningBlock(LineView, can_focus=True):
    """Streaming, collapsible reasoning text. Click or Enter toggles."""

    FOCUS_ON_CLICK = False  # a click acts on it; the keyboard stays with the prompt (Tab navigates here)

    DEFAULT_CSS = """
    ReasoningBlock {
        height: auto;
        margin: 1 0 0 0;
        padding: 0 1;
        color: $text-muted;
        &:focus { background: $boost; }
        & > .reasoning--title { color: $text-secondary; text-style: bold; }
        & > .reasoning--meta { color: $text-muted; }
        & > .reasoning--body { color: $text-muted; text-style: italic; }
    }
    """

    SHARE_COMPONENT_STYLES: ClassVar[bool] = True
    """Entries of a kind style their component classes alike: matched once (textual_compat)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"reasoning--title", "reasoning--meta", "reasoning--body"}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle_expanded", "Show/hide reasoning", show=False),
    ]

    RENDER_HZ: ClassVar[float] = 15.0
    TITLE: ClassVar[str] = "Reasoning"

    expanded: reactive[bool] = reactive(False, layout=True)
    """Show the whole reasoning text instead of the one-line header."""

    def __init__(
        self,
        text: str = "",
        *,
        finished: bool = False,
        expanded: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._lock = threading.Lock()
        self._pending: list[str] = []
        self._all: list[str] = [text] if text else []
        self._sanitizer = StreamSanitizer()
        self._lines = TextLines(sanitize_display(text))
        self._tail = self._last_line()
        self._finished = finished
        self._header: tuple[tuple[object, ...], Strip] | None = None
        self._updates = LiveUpdates(self, self._drain, hz=self.RENDER_HZ)
        if finished:
            self._lines.close()
        self.set_reactive(ReasoningBlock.expanded, expanded)

    # ----------------------------------------------------------------------------------------- public API

    def append(self, text: str) -> None:
        """Queue a reasoning delta. Cheap and thread-safe."""
        if text:
            with self._lock:
                self._pending.append(text)
                self._all.append(text)
            self._updates.request()

    def finish(self) -> None:
        """No more reasoning will come: draw the rest."""
        self._updates.cancel()
        self._drain()
        if tail := self._sanitizer.flush():
            self._lines.feed(tail)
        self._lines.close()
        self._finished = True
        self._header = None
        self.refresh_changed()
        self.refresh_header()

    @property
    def text(self) -> str:
        """All reasoning appended so far (sanitized), including what is not drawn yet."""
        with self._lock:
            if len(self._all) > 1:
                self._all[:] = ["".join(self._all)]
            raw = self._all[0] if self._all else ""
        return sanitize_display(raw)

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
        with self._lock:
            return not self._pending

    def header_text(self) -> Text:
        """The one-line header as shown (for tests and the collapsed view)."""
        return self._header_content(self.size.width)

    def action_toggle_expanded(self) -> None:
        self.expanded = not self.expanded

    # ----------------------------------------------------------------------------------------- LineView

    def blocks(self) -> tuple[Sequence[TextLine], TextLine | None]:
        return self._lines.finished, self._lines.open_line

    def render_block(self, block: TextLine, width: int) -> list[Line]:
        style = self.base_style + component_text_style(self, "reasoning--body")
        return render_plain(self.app.console, block.text, width, style)

    def on_style_change(self) -> None:
        self._header = None

    def header_height(self) -> int:
        return 1

    def render_header(self, y: int, width: int) -> Strip:
        return self._header_strip(width)

    def body_visible(self) -> bool:
        return self.expanded

    # ----------------------------------------------------------------------------------------- internals

    def on_unmount(self) -> None:
        self._updates.cancel()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_toggle_expanded()

    def watch_expanded(self) -> None:
        self._header = None

    def _last_line(self) -> str:
        open_line = self._lines.open_line
        if open_line is not None:
            return open_line.text
        finished = self._lines.finished
        return finished[-1].text if finished else ""

    def _drain(self) -> None:
        with self._lock:
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
            self.refresh_header()
        self.refresh_changed()

    def _header_content(self, width: int) -> Text:
        title_style = component_text_style(self, "reasoning--title")
        meta_style = component_text_style(self, "reasoning--meta")
        header = Text(no_wrap=True, overflow="ellipsis", end="")
        header.append("▾ " if self.expanded else "▸ ", style=meta_style)
        header.append(self.TITLE, style=title_style)
        if self.expanded:
            return header
        if not self._finished:
            header.append(" … ", style=meta_style)
            header.append(self._tail.strip(), style=component_text_style(self, "reasoning--body"))
        else:
            lines = self.shown_rows(width)
            header.append(
                f" · {lines} line{'s' if lines != 1 else ''} (click/enter to show)", style=meta_style
            )
        return header

    def shown_rows(self, width: int) -> int:
        """The rows the expanded text takes at `width`: what the collapsed label counts, so a long line
        that wraps to three rows is "3 lines", as the user will see it (the text's lines when not laid
        out yet)."""
        if width <= 0 or not self.is_attached:
            return self._lines.line_count
        return self.sync_lines(width).new_height

    def _header_strip(self, width: int) -> Strip:
        key = (width, self._style_generation, self.expanded, self._finished, self._tail)
        if self._header is None or self._header[0] != key:
            header = self._header_content(width)
            header.truncate(max(1, width), overflow="ellipsis")
            lines = self.app.console.render_lines(
                header, self.app.console.options.update(width=max(1, width), height=None), pad=False
            )
            strip = Strip(lines[0] if lines else []).apply_style(self.base_style)
            self._header = (key, strip)
        return self._header[1]

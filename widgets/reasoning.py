"""The model's reasoning ("thinking") text: its own block, collapsed by default, one widget.

Reasoning can be long and is secondary to the answer, so it starts collapsed to a single header line that
shows the latest line while it streams. It is plain text (not Markdown): reasoning is often half-formed
markup, and plain text costs one widget whether streaming or finished. Deltas use the same buffered pattern
as `AssistantMessage`: `append()` only takes a lock; a 15 Hz timer drains and repaints.
"""

from __future__ import annotations

import threading
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from widgets.text_safety import StreamSanitizer, component_text_style, sanitize_display

__all__ = ["ReasoningBlock"]


class ReasoningBlock(Widget, can_focus=True):
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

    COMPONENT_CLASSES: ClassVar[set[str]] = {"reasoning--title", "reasoning--meta", "reasoning--body"}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle", "Show/hide reasoning", show=False),
    ]

    FLUSH_HZ: ClassVar[float] = 15.0
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
        self._shown_parts: list[str] = [sanitize_display(text)] if text else []
        self._tail = self._shown_parts[-1][-400:] if self._shown_parts else ""
        self._finished = finished
        self._timer: Timer | None = None
        self.set_reactive(ReasoningBlock.expanded, expanded)

    # ----------------------------------------------------------------------------------------- public API

    def append(self, text: str) -> None:
        """Queue a reasoning delta. Cheap and thread-safe."""
        if text:
            with self._lock:
                self._pending.append(text)
                self._all.append(text)

    def finish(self) -> None:
        """No more reasoning will come: draw the rest and stop the timer."""
        self._stop_timer()
        self._drain()
        if tail := self._sanitizer.flush():
            self._add_shown(tail)
        self._finished = True
        self.refresh(layout=True)

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
        """The reasoning drawn so far."""
        if len(self._shown_parts) > 1:
            self._shown_parts[:] = ["".join(self._shown_parts)]
        return self._shown_parts[0] if self._shown_parts else ""

    @property
    def is_finished(self) -> bool:
        return self._finished

    @property
    def is_drained(self) -> bool:
        with self._lock:
            return not self._pending

    def action_toggle(self) -> None:
        self.expanded = not self.expanded

    # ----------------------------------------------------------------------------------------- internals

    def on_mount(self) -> None:
        if not self._finished:
            self._timer = self.set_interval(1 / self.FLUSH_HZ, self._drain, name="reasoning-drain")

    def on_unmount(self) -> None:
        self._stop_timer()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_toggle()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _add_shown(self, chunk: str) -> None:
        self._shown_parts.append(chunk)
        self._tail = (self._tail + chunk)[-400:]

    def _drain(self) -> None:
        with self._lock:
            if not self._pending:
                return
            raw = "".join(self._pending)
            self._pending.clear()
        chunk = self._sanitizer.feed(raw)
        if chunk:
            self._add_shown(chunk)
            # Collapsed, only the header line changes: no layout pass needed.
            self.refresh(layout=self.expanded)

    def _header(self) -> Text:
        title_style = component_text_style(self, "reasoning--title")
        meta_style = component_text_style(self, "reasoning--meta")
        header = Text(no_wrap=True, overflow="ellipsis", end="")
        header.append("▾ " if self.expanded else "▸ ", style=meta_style)
        header.append(self.TITLE, style=title_style)
        if self.expanded:
            return header
        if not self._finished:
            last_line = next((ln for ln in reversed(self._tail.splitlines()) if ln.strip()), "")
            header.append(" … ", style=meta_style)
            header.append(last_line.strip(), style=component_text_style(self, "reasoning--body"))
        else:
            lines = self.shown_text.strip().count("\n") + 1 if self.shown_text.strip() else 0
            header.append(
                f" · {lines} line{'s' if lines != 1 else ''} (click/enter to show)", style=meta_style
            )
        return header

    def render(self) -> Text:
        header = self._header()
        if not self.expanded:
            return header
        body_style = component_text_style(self, "reasoning--body")
        text = Text(end="")
        text.append_text(header)
        text.append("\n")
        text.append(self.shown_text.strip("\n"), style=body_style)
        return text

"""The subagents of one `delegate_task` call (or the script of an `execute_code` call), nested inside its
tool panel.

Drawn by its tool panel (a transcript entry), below the panel's body; not a widget. One block per child:
a line with its status and goal, then, while it runs, its latest tool calls (each with its own status and
time) and the last line of its streaming text, collapsed to one muted line. A finished
child keeps its line and a one-line summary of its answer (the full answer is the panel's result), so a
batch of three stays a few lines tall. Fed by the turn view from `ChildStarted`, `ChildEvent` and
`ChildFinished` on the UI thread; model and tool text is shown as plain `Text`, controls made visible.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Protocol

from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from agent.api import (
    AgentEvent,
    ApiCallStarted,
    ChildFinished,
    ChildStarted,
    StatusNotice,
    TextDelta,
    ToolFinished,
    ToolStarted,
    format_elapsed,
)
from widgets.support.text_safety import sanitize_display
from widgets.transcript.markdown.render import Line, render_text

if TYPE_CHECKING:
    from widgets.transcript.entries.base import Painter


class Owner(Protocol):
    def nested_changed(self) -> None: ...


__all__ = ["ChildProgress", "SubagentList"]

TOOL_LINES = 4  # a running child's latest tool calls shown; the count says how many there were
_DONE = {"completed": "✓", "budget_exhausted": "✓", "interrupted": "⊘"}


def _line(text: str) -> str:
    return " ".join(sanitize_display(text).split())


@dataclass
class _ToolLine:
    call_id: str
    name: str
    summary: str
    status: str = "running"
    duration: float | None = None


@dataclass
class ChildProgress:
    """What is known of one child (plain data: the widget renders it)."""

    index: int
    goal: str
    model: str = ""
    label: str = ""  # "" for a subagent, "script" for execute_code's
    status: str = "running"
    api_calls: int = 0
    tools: list[_ToolLine] = field(default_factory=list)
    tool_count: int = 0
    text_tail: str = ""
    notice: str = ""
    summary: str = ""
    duration: float | None = None
    error: str | None = None

    @property
    def finished(self) -> bool:
        return self.status != "running"

    def apply(self, event: AgentEvent) -> None:
        if isinstance(event, ApiCallStarted):
            self.api_calls += 1
            self.text_tail = ""
        elif isinstance(event, ToolStarted):
            self.tool_count += 1
            self.tools.append(_ToolLine(event.call_id, event.name, _line(event.summary)))
            del self.tools[:-TOOL_LINES]
        elif isinstance(event, ToolFinished):
            for tool in self.tools:
                if tool.call_id == event.call_id:
                    tool.status, tool.duration = event.status, event.duration
        elif isinstance(event, TextDelta):
            lines = [part for part in (self.text_tail + event.text).split("\n") if part.strip()]
            self.text_tail = _line(lines[-1])[-200:] if lines else ""
        elif isinstance(event, StatusNotice):
            self.notice = _line(event.text)


class SubagentList:
    """The children of a `delegate_task` call, drawn below its panel's body with a border of their own."""

    TOOL_GLYPHS: ClassVar[dict[str, tuple[str, str]]] = {
        "running": ("⠋", "running"),
        "ok": ("✓", "ok"),
        "error": ("✗", "error"),
        "cancelled": ("⊘", "cancelled"),
        "denied": ("⊘", "error"),
    }

    def __init__(self) -> None:
        self.children_progress: dict[int, ChildProgress] = {}
        self.owner: Owner | None = None
        self._painter: Painter | None = None
        self._cache: tuple[tuple[int, int], list[Line]] | None = None

    def refresh(self) -> None:
        """What is shown changed: the panel draws it again."""
        self._cache = None
        if self.owner is not None:
            self.owner.nested_changed()

    # ------------------------------------------------------------------ updates (UI thread)

    def child_started(self, event: ChildStarted) -> None:
        self.children_progress[event.child] = ChildProgress(
            event.child, _line(event.goal), event.model, event.label
        )
        self.refresh()

    def child_event(self, child: int, event: AgentEvent) -> None:
        progress = self.children_progress.get(child)
        if progress is None:
            progress = self.children_progress[child] = ChildProgress(child, "")
        progress.apply(event)
        self.refresh()

    def child_finished(self, event: ChildFinished) -> None:
        progress = self.children_progress.get(event.child)
        if progress is None:
            progress = self.children_progress[event.child] = ChildProgress(event.child, "")
        progress.status = event.status
        progress.summary = _line(event.summary)
        progress.duration = event.duration
        progress.error = event.error
        progress.api_calls = max(progress.api_calls, event.api_calls)
        progress.tool_count = max(progress.tool_count, event.tool_calls)
        self.refresh()

    def cancel_running(self) -> None:
        """The turn ended: a child still shown running was cut off with it."""
        for progress in self.children_progress.values():
            if not progress.finished:
                progress.status = "interrupted"
        self.refresh()

    # ------------------------------------------------------------------ rendering

    def _style(self, name: str) -> Style:
        return Style() if self._painter is None else self._painter.span_style(f"subagents--{name}")

    def lines(self, width: int, painter: Painter) -> list[Line]:
        """The list's rows at `width` cells, its border included."""
        key = (width, painter.generation)
        if self._cache is None or self._cache[0] != key:
            self._painter = painter
            base = painter.base_style
            border = (Segment("│", painter.span_style("subagents--border") + Style(bgcolor=base.bgcolor)),)
            body = render_text(painter.console, self.render(), max(1, width - 2), base)
            rows = [(*border, Segment(" ", base), *line) for line in body] if self.children_progress else []
            self._cache = (key, rows)
        return self._cache[1]

    def render(self) -> Text:
        out = Text(end="")
        total = len(self.children_progress)
        for number, progress in enumerate(sorted(self.children_progress.values(), key=lambda p: p.index)):
            if number:
                out.append("\n")
            out.append_text(self._child_text(progress, total))
        return out

    def _child_text(self, progress: ChildProgress, total: int) -> Text:
        text = Text(end="")
        if progress.finished:
            glyph = _DONE.get(progress.status, "✗")
            kind = {"✓": "ok", "⊘": "cancelled"}.get(glyph, "error")
        else:
            glyph, kind = "◐", "running"
        text.append(f"{glyph} ", style=self._style(kind))
        label = progress.label or (f"subagent {progress.index + 1}" if total > 1 else "subagent")
        text.append(f"{label}: ", style=self._style("muted"))
        text.append(progress.goal or "…", style=self._style("goal"))
        facts = [progress.status.replace("_", " ")] if progress.finished else []
        if progress.tool_count:
            facts.append(f"{progress.tool_count} tool" + ("s" if progress.tool_count != 1 else ""))
        if progress.duration is not None:
            facts.append(format_elapsed(progress.duration))
        if facts:
            text.append(f"  {' · '.join(facts)}", style=self._style("muted"))
        if progress.finished:
            tail = progress.error if progress.error and not progress.summary else progress.summary
            if tail:
                text.append("\n  ")
                text.append(tail, style=self._style("error" if kind == "error" else "text"))
            return text
        hidden = progress.tool_count - len(progress.tools)
        if hidden > 0:
            plural = "s" if hidden != 1 else ""
            text.append(f"\n  … {hidden} earlier tool call{plural}", style=self._style("muted"))
        for tool in progress.tools:
            glyph, kind = self.TOOL_GLYPHS.get(tool.status, ("✗", "error"))
            text.append("\n  ")
            text.append(f"{glyph} ", style=self._style(kind))
            text.append(tool.name, style=self._style("goal"))
            if tool.summary:
                text.append(f"  {tool.summary[:100]}")
            if tool.duration is not None:
                text.append(f"  {format_elapsed(tool.duration)}", style=self._style("muted"))
        if progress.notice:
            text.append(f"\n  {progress.notice}", style=self._style("muted"))
        if progress.text_tail:
            text.append(f"\n  “{progress.text_tail}”", style=self._style("text"))
        return text

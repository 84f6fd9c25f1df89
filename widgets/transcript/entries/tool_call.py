"""One tool call in the transcript: a one-line header and a collapsible body, one entry of the transcript.

Lifecycle, driven by the app from agent events:

- `ToolCallEntry(call_id, name, index)` on `ToolCallStarted`: state `preparing` ("preparing terminal…").
- `set_started(arguments, summary)` on `ToolStarted`: state `running`, a live elapsed time (~4 Hz).
- `append_output(chunk)` on `ToolOutput`: cheap (UI thread); the transcript's pacer draws it (~12 Hz).
- `set_progress(progress, total, message)` on `ToolProgress` (an MCP server's progress notifications): the
  header shows the message and `progress/total` beside the elapsed time while the tool runs.
  While running the body shows the last `TAIL_LINES` lines (tail-limited) unless expanded; at most
  `MAX_OUTPUT_CHARS` of output are kept in memory, with a note saying how much was dropped. Each output
  line is wrapped once and cached, only the open last line is drawn again, so a long expanded output
  streams as cheaply as the tail.
- `set_finished(status, duration, result, data)` on `ToolFinished`: `ok | error | cancelled | denied`, the
  final duration, and the result: a coloured diff for write_file/patch, the task list for todo, the result
  text otherwise. Errors and denials open expanded, and so do file edits with a diff (`expand_diffs`, the
  `display.expand_diffs` setting: what changed in a file is what the user most wants to check); other
  successes collapse to the header.

Click the header, or Enter/Space with the transcript's cursor on it, to expand/collapse (the chat screen
adds Ctrl+O for the focused or latest panel and Ctrl+T for all panels of the last turn). Everything from
the tool or the model is shown as plain `Text` with terminal escapes stripped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from agent.api import format_elapsed
from widgets.support.text_safety import StreamSanitizer, sanitize_display
from widgets.transcript.entries.base import Entry, pad_line
from widgets.transcript.entries.subagents import SubagentList
from widgets.transcript.markdown.lines import LineStack
from widgets.transcript.markdown.render import Line, render_plain, render_text
from widgets.transcript.markdown.text_lines import TextLine, TextLines
from widgets.transcript.record import ToolSnapshot, TranscriptRecord

__all__ = ["DEFAULT_TOOL_ICONS", "FINAL_STATUSES", "ToolCallEntry", "ToolSnapshot", "stable_icon"]

FINAL_STATUSES: frozenset[str] = frozenset({"ok", "error", "cancelled", "denied"})

DEFAULT_TOOL_ICONS: Mapping[str, str] = MappingProxyType(
    {
        "terminal": "💻",
        "shell": "🐚",  # the user's own `!` command
        "read_file": "📖",
        "write_file": "📝",
        "patch": "🔧",
        "search_files": "🔎",
        "clarify": "❓",
        "todo": "📋",
        "memory": "🧠",
        "session_search": "📜",
        "skills_list": "📚",
        "skill_view": "📚",
        "skill_manage": "🧰",
        "execute_code": "🐍",  # Hermes' icons for the script, the scheduled jobs and the browser
        "cronjob": "⏰",
        "browser_navigate": "🌐",
        "browser_snapshot": "🌐",
        "browser_click": "🌐",
        "browser_type": "🌐",
        "browser_scroll": "🌐",
        "browser_back": "🌐",
        "browser_press": "🌐",
        "browser_get_images": "🌐",
        "browser_vision": "🌐",
        "browser_console": "🌐",
    }
)
"""Icon per tool name, before a theme's or a plugin's (`hermes_tui.tool_icons.icon_table` merges them).
Emoji that are two cells wide on their own (Emoji_Presentation), never a text symbol made an emoji by VS16
(U+FE0F, as in ✍️ or ⚙️): Rich counts those as two cells while tmux and many terminals draw the symbol in
one, so the rest of the row moved one cell left."""


@dataclass(frozen=True, slots=True, eq=False)
class _BodyText:
    """A block of the body drawn from a `Text` (the finished body, a note line). Identity = version."""

    text: Text


class ToolCallEntry(Entry):
    """A tool call: header `▸ 💻 terminal  ls -la  1.2s ✓` and a collapsible body."""

    KIND: ClassVar[str] = "tool"
    STYLE: ClassVar[str] = "transcript--tool"
    BODY_INDENT: ClassVar[int] = 2
    """Cells before the body's border (under the header's chevron)."""

    FALLBACK_ICON: ClassVar[str] = "🧩"

    STATUS_GLYPHS: ClassVar[dict[str, str]] = {
        "ok": "✓",
        "error": "✗ failed",
        "cancelled": "⊘ cancelled",
        "denied": "⊘ denied",
    }
    SPINNER_FRAMES: ClassVar[tuple[str, ...]] = ("⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏")
    TODO_GLYPHS: ClassVar[dict[str, str]] = {
        "pending": "☐",
        "in_progress": "◐",
        "completed": "☑",
        "cancelled": "☒",
    }

    DIFF_TOOLS: ClassVar[frozenset[str]] = frozenset({"write_file", "patch", "skill_manage"})
    EXPANDED_ON_SUCCESS: ClassVar[frozenset[str]] = frozenset({"todo", "shell", "clarify"})
    """Tools whose successful result is worth showing without a click (`shell`: the user asked to see it;
    `clarify`: the answer the user gave, which the header's question alone hid)."""

    TAIL_LINES: ClassVar[int] = 30
    MAX_OUTPUT_CHARS: ClassVar[int] = 200_000
    HEADER_EVERY: ClassVar[int] = 3
    """Repaint the header's elapsed time every Nth pacer tick (12 Hz / 3 = 4 Hz)."""
    ANIMATE: ClassVar[bool] = True
    """False freezes the live elapsed time at 0.0s (snapshot tests)."""
    PROGRESS_MESSAGE_CELLS: ClassVar[int] = 40
    """The longest progress message the header shows (the summary keeps the rest of the line)."""

    def __init__(
        self,
        call_id: str,
        name: str,
        index: int = 0,
        *,
        clock: Callable[[], float] = time.monotonic,
        expand_diffs: bool = True,
        icons: Mapping[str, str] = DEFAULT_TOOL_ICONS,
    ) -> None:
        self._expand_diffs = expand_diffs
        self._icons = icons
        self._call_id = call_id
        self._tool_name = name
        self._index = index
        self._clock = clock
        self._status = "preparing"
        self._summary = ""
        self._arguments: dict[str, Any] = {}
        self._started_at: float | None = None
        self._duration: float | None = None
        self._result = ""
        self._data: dict[str, Any] = {}
        self._expanded = False
        self._user_expanded: bool | None = None
        # Output: `append_output` queues it; the pacer's next tick draws it.
        self._out_pending: list[str] = []
        self._sanitizer = StreamSanitizer()
        self._output_parts: list[str] = []
        self._output_len = 0
        self._output_lines = TextLines()
        self._dropped_chars = 0
        self._dropped_lines = 0
        self._ticks = 0
        self._version = 0
        self._body_cache: tuple[tuple[int, bool, int], Text] | None = None
        self._body_block: _BodyText | None = None
        self._note_cache: tuple[tuple[str, int], _BodyText] | None = None
        self._stack: LineStack[object] = LineStack(self._render_body_block)
        self._line_cache: dict[object, list[Line]] = {}
        self._line_cache_key: tuple[int, int] | None = None
        self._window: tuple[object, ...] = ()
        self._header_line: tuple[tuple[object, ...], Line] | None = None
        self._nested: SubagentList | None = None
        self._progress: tuple[float, float | None, str] | None = None

    @classmethod
    def from_snapshot(
        cls,
        snapshot: ToolSnapshot,
        *,
        expand_diffs: bool = True,
        icons: Mapping[str, str] = DEFAULT_TOOL_ICONS,
    ) -> ToolCallEntry:
        """A finished panel rebuilt from a snapshot (e.g. a stored session's call)."""
        panel = cls(snapshot.call_id, snapshot.name, snapshot.index, expand_diffs=expand_diffs, icons=icons)
        panel._summary = snapshot.summary
        panel._arguments = dict(snapshot.arguments)
        if snapshot.output:
            panel._output_parts = [snapshot.output]
            panel._output_len = len(snapshot.output)
            panel._output_lines = TextLines(snapshot.output)
        panel._dropped_chars = snapshot.dropped_chars
        panel._dropped_lines = snapshot.dropped_lines
        panel._user_expanded = snapshot.expanded
        if snapshot.expanded is not None:
            panel._expanded = snapshot.expanded
        panel._apply_finished(snapshot.status, snapshot.duration, snapshot.result, snapshot.data)
        return panel

    # ----------------------------------------------------------------------------------------- state

    @property
    def call_id(self) -> str:
        return self._call_id

    @property
    def tool_name(self) -> str:
        return self._tool_name

    @property
    def index(self) -> int:
        return self._index

    @property
    def status(self) -> str:
        """`preparing`, `running`, `ok`, `error`, `cancelled` or `denied`."""
        return self._status

    @property
    def is_finished(self) -> bool:
        return self._status in FINAL_STATUSES

    @property
    def summary(self) -> str:
        return self._summary

    @property
    def arguments(self) -> dict[str, Any]:
        return self._arguments

    @property
    def result(self) -> str:
        return self._result

    @property
    def data(self) -> dict[str, Any]:
        return self._data

    @property
    def duration(self) -> float | None:
        """Final duration once finished, else the live elapsed time (None while preparing)."""
        if self._duration is not None:
            return self._duration
        if self._started_at is None:
            return None
        return self._clock() - self._started_at if self.ANIMATE else 0.0

    @property
    def output(self) -> str:
        """The output kept so far (the last `MAX_OUTPUT_CHARS` at most)."""
        if len(self._output_parts) > 1:
            self._output_parts[:] = ["".join(self._output_parts)]
        return self._output_parts[0] if self._output_parts else ""

    @property
    def copy_text(self) -> str:
        """The output (a command's, a file's), else the result line (the cursor reaches a panel as one
        that opens: `CAN_COPY` stays off)."""
        return self.output or self._result

    @property
    def dropped_chars(self) -> int:
        return self._dropped_chars

    @property
    def is_live(self) -> bool:
        """True until the tool finishes: the transcript's pacer drains its output and moves its clock."""
        return not self.is_finished

    @property
    def has_body(self) -> bool:
        """Is there anything to show below the header?"""
        if self._output_len:
            return True
        if not self.is_finished:
            return False
        return bool(self._diff() or self._todos() or self._result.strip())

    @property
    def body_visible(self) -> bool:
        """Is the body shown (expanded, or the live tail of a running command)?"""
        return self._body_shown()

    @property
    def expanded(self) -> bool:
        """Show the full body instead of the header (or the live tail while running)."""
        return self._expanded

    def snapshot(self) -> ToolSnapshot:
        """A plain-data copy of this panel (what the transcript keeps when it unmounts the panel)."""
        self._drain_output()
        return ToolSnapshot(
            call_id=self._call_id,
            name=self._tool_name,
            index=self._index,
            status=self._status,
            summary=self._summary,
            arguments=dict(self._arguments),
            duration=self._duration,
            result=self._result,
            data=dict(self._data),
            output=self.output,
            dropped_chars=self._dropped_chars,
            dropped_lines=self._dropped_lines,
            expanded=self._user_expanded,
        )

    # ----------------------------------------------------------------------------------------- updates

    def set_call_id(self, call_id: str) -> None:
        """Give a panel created before its id was known (ToolCallStarted without id) its real call id."""
        self._call_id = call_id

    def set_started(self, arguments: Mapping[str, Any], summary: str) -> None:
        """The tool started running (ToolStarted): arguments, one-line summary, and the elapsed clock."""
        self._arguments = dict(arguments)
        self._summary = _one_line(summary)
        if self._status == "preparing":
            self._status = "running"
            self._started_at = self._clock()
        self._changed()

    def set_progress(self, progress: float, total: float | None, message: str = "") -> None:
        """The tool's own progress (ToolProgress), shown in the header while it runs."""
        self._progress = (progress, total, _one_line(sanitize_display(message or "")))
        self._header_line = None
        self.changed(0, 1)

    @property
    def progress_text(self) -> str:
        """What the header shows of the tool's progress ("indexing · 3/10"), "" when it reported none."""
        if self._progress is None or self._status != "running":
            return ""
        progress, total, message = self._progress
        amount = _number(progress) + (f"/{_number(total)}" if total else "")
        if len(message) > self.PROGRESS_MESSAGE_CELLS:
            message = message[: self.PROGRESS_MESSAGE_CELLS - 1] + "…"
        return f"{message} · {amount}" if message else amount

    def append_output(self, chunk: str) -> None:
        """Queue a chunk of live output (UI thread). Cheap; drawn on the pacer's next tick."""
        if chunk:
            self._out_pending.append(chunk)

    def set_todos(self, items: Iterable[Mapping[str, Any]]) -> None:
        """Show an updated task list (TodoUpdated) in a todo panel."""
        self._data = {**self._data, "todos": [dict(item) for item in items]}
        self._changed()

    def set_finished(
        self,
        status: str,
        duration: float | None,
        result: str,
        data: Mapping[str, Any] | None = None,
    ) -> None:
        """The tool finished (ToolFinished): final status, duration and result; stops the timers."""
        self._drain_output()
        if tail := self._sanitizer.flush():
            self._add_output(tail)
        self._output_lines.close()
        self._apply_finished(status, duration, result, data or {})

    def _apply_finished(
        self, status: str, duration: float | None, result: str, data: Mapping[str, Any]
    ) -> None:
        status = status if status in FINAL_STATUSES else "error"
        self._status = status
        if duration is None and self._started_at is not None:
            duration = self._clock() - self._started_at
        self._duration = duration
        self._result = sanitize_display(shown_result(self._tool_name, result or ""))
        self._data = dict(data)
        if self._user_expanded is None:
            shown_on_success = self._tool_name in self.EXPANDED_ON_SUCCESS or (
                self._expand_diffs and bool(self._diff())
            )
            default = status in ("error", "denied") or (status == "ok" and shown_on_success and self.has_body)
            self._expanded = default
        self._changed()

    def nest(self, nested: SubagentList) -> SubagentList:
        """Show `nested` below the body (a delegate_task call's subagents); the first one nested stays."""
        if self._nested is None:
            self._nested = nested
            nested.owner = self
            self._changed()
        return self._nested

    @property
    def nested(self) -> SubagentList | None:
        return self._nested

    def nested_changed(self) -> None:
        self._changed()

    # ----------------------------------------------------------------------------------------- actions

    def set_expanded(self, expanded: bool) -> bool:
        """Show or hide the body as the user asked (kept in the panel's record); False when there is
        nothing to show or it already was so."""
        if expanded == self._expanded or (expanded and not self.has_body):
            return False
        self._user_expanded = expanded
        self._expanded = expanded
        self._changed()
        return True

    @property
    def can_toggle(self) -> bool:
        return self.has_body

    def toggle(self) -> bool:
        """Expand or collapse the body (False when there is nothing to show)."""
        return self.set_expanded(not self._expanded)

    def click(self, y: int, x: int) -> bool:
        """A click on the header toggles the body (a click on the body itself does nothing)."""
        return y == 0 and self.toggle()

    def record(self) -> TranscriptRecord:
        return TranscriptRecord("tool", tool=self.snapshot())

    def on_style_change(self) -> None:
        """Styles changed (theme switch): the cached body holds colours of the old theme."""
        self._body_cache = None
        self._body_block = None
        self._note_cache = None
        self._header_line = None

    # ----------------------------------------------------------------------------------------- the pacer

    def tick(self, frame: int) -> None:
        """The transcript's pacer (12 Hz while the tool runs): new output, else the clock now and then."""
        self._ticks += 1
        if self._drain_output():
            self._output_changed()
        elif self._ticks % self.HEADER_EVERY == 0:
            self._header_line = None
            self.changed(0, 1)  # the header's clock

    # ----------------------------------------------------------------------------------------- output

    def _drain_output(self) -> bool:
        if not self._out_pending:
            return False
        raw = "".join(self._out_pending)
        self._out_pending.clear()
        chunk = self._sanitizer.feed(raw)
        if chunk:
            self._add_output(chunk)
        return bool(chunk)

    def _add_output(self, chunk: str) -> None:
        self._output_parts.append(chunk)
        self._output_len += len(chunk)
        self._output_lines.feed(chunk)
        if self._output_len > self.MAX_OUTPUT_CHARS:
            # Keep ~90% of the cap, starting on a line boundary, so we do not re-trim on every chunk.
            text = "".join(self._output_parts)
            cut = len(text) - int(self.MAX_OUTPUT_CHARS * 0.9)
            newline = text.find("\n", cut)
            if newline != -1 and newline - cut < 4096:
                cut = newline + 1
            self._dropped_lines += text.count("\n", 0, cut)
            self._dropped_chars += cut
            self._output_parts = [text[cut:]]
            self._output_len = len(text) - cut
            self._output_lines = TextLines(text[cut:])

    @property
    def icons(self) -> Mapping[str, str]:
        """The icon table this panel draws its header with (the theme's and plugins', given by the view)."""
        return self._icons

    def set_icons(self, icons: Mapping[str, str]) -> None:
        """Another table (the theme changed): the header is drawn again with it."""
        if icons is not self._icons:
            self._icons = icons
            self._header_line = None
            self.changed(0)

    # ----------------------------------------------------------------------------------------- drawing

    def _changed(self) -> None:
        """Data or expansion changed: the body and the header are drawn again."""
        self._version += 1
        self._body_cache = None
        self._header_line = None
        self.changed(0)

    def _output_changed(self) -> None:
        """New output lines while running: only the body's changed lines are drawn again."""
        self._body_cache = None
        self._header_line = None
        if not self._body_shown():
            self.changed(0)  # the chevron shows there is a body now
            return
        key = self._stack.key
        if key is None:
            self.changed(0)
            return
        finished, open_block = self.body_blocks_cached()
        change = self._stack.sync(finished, open_block, key, self._body_style())
        self.changed(1 + change.first)

    def _body_shown(self) -> bool:
        running_tail = self._status == "running" and self._output_len > 0
        return self.has_body and (self._expanded or running_tail)

    def _body_style(self) -> Style:
        return self.base_style + self._style("body")

    def _body_width(self, width: int) -> int:
        return max(1, width - 1 - self.BODY_INDENT - 2 - 1)  # padding, indent, border + padding, padding

    def _border(self) -> Line:
        status = self._status if self._status in ("error", "denied", "running") else "body"
        style = self._style(f"border-{status}") + Style(bgcolor=self.base_style.bgcolor)
        base = self.base_style
        return (Segment(" " * (1 + self.BODY_INDENT), base), Segment("│", style), Segment(" ", base))

    def body_blocks_cached(self) -> tuple[Sequence[object], object | None]:
        finished, open_block = self.body_blocks()
        head = tuple(finished[:2])
        if head != self._window[:2] or len(finished) < len(self._window):
            self._stack.invalidate()  # the tail slid (or the body changed): re-assemble from the cache
        self._window = tuple(finished)
        return finished, open_block

    def _render_body_block(self, block: object, width: int) -> list[Line]:
        painter = self.painter
        assert painter is not None
        key = (width, painter.generation)
        if key != self._line_cache_key:
            self._line_cache.clear()
            self._line_cache_key = key
        cached = self._line_cache.get(block)
        if cached is None:
            base = self._body_style()
            if isinstance(block, TextLine):
                cached = render_plain(painter.console, block.text, width, base)
            else:
                assert isinstance(block, _BodyText)
                cached = render_text(painter.console, block.text, width, base)
            if isinstance(block, TextLine) and block.finished:
                if len(self._line_cache) > 4 * self.TAIL_LINES + 1024:
                    self._line_cache.clear()
                self._line_cache[block] = cached
        return cached

    def _body_lines(self, width: int) -> int:
        if not self._body_shown():
            return 0
        painter = self.painter
        if painter is None:
            return 0
        finished, open_block = self.body_blocks_cached()
        return self._stack.sync(
            finished, open_block, (self._body_width(width), painter.generation)
        ).new_height

    def _nested_lines(self, width: int) -> list[Line]:
        if self._nested is None or self.painter is None:
            return []
        return self._nested.lines(width - 1 - self.BODY_INDENT - 1, self.painter)

    def content_height(self, width: int) -> int:
        return 1 + self._body_lines(width) + len(self._nested_lines(width))

    def estimate_content(self, width: int) -> int:
        if not self._body_shown() and self._nested is None:
            return 1
        return self.content_height(width)

    def content_line(self, y: int, width: int) -> Line:
        base = self.base_style
        if y == 0:
            return pad_line(self._header(width - 2), width, 1, 1, base)
        body = self._body_lines(width)
        if y <= body:
            line = self._stack.line(y - 1) or ()
            return pad_line(line, width, 0, 1, base, prefix=self._border())
        nested = self._nested_lines(width)
        index = y - 1 - body
        line = nested[index] if 0 <= index < len(nested) else ()
        return pad_line(line, width, 1 + self.BODY_INDENT, 1, base)

    def _header(self, width: int) -> Line:
        painter = self.painter
        key = (width, painter.generation if painter else 0, self._version, self._ticks // self.HEADER_EVERY)
        if self._header_line is None or self._header_line[0] != key:
            text = self.render_header(width)
            lines = render_text(painter.console, text, width, self.base_style) if painter else [()]
            self._header_line = (key, lines[0] if lines else ())
        return self._header_line[1]

    def rendered_body(self) -> str:
        """The body as shown (for tests)."""
        return self.render_body().plain

    def _style(self, component: str) -> Style:
        return Style() if self.painter is None else self.painter.span_style(f"tool-panel--{component}")

    def _diff(self) -> str:
        if self._tool_name not in self.DIFF_TOOLS:
            return ""
        diff = self._data.get("diff")
        return sanitize_display(diff) if isinstance(diff, str) else ""

    def _todos(self) -> list[Mapping[str, Any]]:
        todos = self._data.get("todos")
        if not isinstance(todos, list | tuple):
            return []
        return [item for item in todos if isinstance(item, Mapping)]

    def render_header(self, width: int) -> Text:
        """The one-line header, fitted to `width` cells: the summary is truncated with … first."""
        icon = stable_icon(self._icons.get(self._tool_name, self.FALLBACK_ICON))
        left = Text(end="")
        chevron = ("▾ " if self.expanded else "▸ ") if self.has_body else "  "
        left.append(chevron, style=self._style("chevron"))
        left.append(f"{icon} ")
        right = Text(end="")
        if self._status == "preparing":
            left.append(f"preparing {self._tool_name}…", style=self._style("preparing"))
            frame = self.SPINNER_FRAMES[self._ticks % len(self.SPINNER_FRAMES)] if self.ANIMATE else "…"
            right.append(frame, style=self._style("running"))
        else:
            left.append(self._tool_name, style=self._style("name"))
            duration = self.duration
            if progress := self.progress_text:
                right.append(f"{progress}  ", style=self._style("time"))
            if duration is not None:
                right.append(format_elapsed(duration), style=self._style("time"))
            if self._status == "running":
                frame = self.SPINNER_FRAMES[self._ticks % len(self.SPINNER_FRAMES)] if self.ANIMATE else "⠋"
                right.append(f" {frame}", style=self._style("running"))
            else:
                exit_code = self._data.get("exit_code")
                if isinstance(exit_code, int) and exit_code != 0 and self._status in ("ok", "error"):
                    failed = self._status == "error"
                    right.append(
                        f" {'✗ ' if failed else ''}exit {exit_code}",
                        style=self._style("error" if failed else "cancelled"),
                    )
                else:
                    right.append(f" {self.STATUS_GLYPHS[self._status]}", style=self._style(self._status))
        used = left.cell_len + right.cell_len
        room = width - used - 3  # two spaces before the summary, at least one before the right part
        line = Text(no_wrap=True, overflow="ellipsis", end="")
        line.append_text(left)
        if self._summary and room >= 4:
            summary = Text(self._summary, style=self._style("summary"), no_wrap=True, end="")
            if summary.cell_len > room:
                summary.truncate(room, overflow="ellipsis")
            line.append("  ")
            line.append_text(summary)
        gap = max(1, width - line.cell_len - right.cell_len)
        line.append(" " * gap)
        line.append_text(right)
        return line

    def body_blocks(self) -> tuple[Sequence[object], object | None]:
        """What the body draws: the output's lines while running (the last `TAIL_LINES` unless expanded,
        after a note on what is hidden), the finished body as one block afterwards."""
        if self.is_finished or not self._output_len:
            body = self.render_body()  # cached per version: the same block until something changes
            if self._body_block is None or self._body_block.text is not body:
                self._body_block = _BodyText(body)
            return [self._body_block], None
        lines = self._output_lines
        finished: list[object] = list(lines.finished)
        open_line = lines.open_line
        note = self._hidden_note(len(finished) + (open_line is not None), tail_mode=not self.expanded)
        if not self.expanded and len(finished) + (open_line is not None) > self.TAIL_LINES:
            finished = finished[len(finished) + (open_line is not None) - self.TAIL_LINES :]
        if note:
            finished.insert(0, self._note_block(note))
        return finished, open_line

    def _note_block(self, note: str) -> _BodyText:
        key = (note, self._version)
        if self._note_cache is None or self._note_cache[0] != key:
            self._note_cache = (key, _BodyText(Text(note, style=self._style("note"), end="")))
        return self._note_cache[1]

    def _hidden_note(self, shown_lines: int, *, tail_mode: bool) -> str:
        """The note above the output: how many lines the tail hides, or how much output was not kept."""
        if tail_mode:
            if shown_lines > self.TAIL_LINES:
                hidden = shown_lines - self.TAIL_LINES + self._dropped_lines
                return f"… {hidden} earlier lines (enter to expand)"
            if self._dropped_lines:
                return f"… {self._dropped_lines} earlier lines not kept"
            return ""
        if self._dropped_chars:
            kept_kb = self.MAX_OUTPUT_CHARS // 1000
            return (
                f"… {self._dropped_chars // 1000} KB ({self._dropped_lines} lines) of earlier output not kept"
                f" (only the last ~{kept_kb} KB are)"
            )
        return ""

    def render_body(self) -> Text:
        """The body: output (tail-limited unless expanded), then the diff / task list / result."""
        tail_mode = not self.expanded
        key = (self._version, tail_mode, self.TAIL_LINES)
        if self._body_cache is not None and self._body_cache[0] == key:
            return self._body_cache[1]
        body = Text(end="")
        sections: list[Text] = []
        if self._output_len:
            sections.append(self._output_text(tail_mode))
        if self.is_finished:
            failed = self._status != "ok"
            diff, todos = self._diff(), self._todos()
            result = self._result.strip("\n")
            extra = _result_extra(result, self.output) if self._output_len else result
            extra_style = self._style("error-text") if failed else self._style("note")
            if diff:
                extra = _without_diff(extra, diff)  # write_file/patch results end with the same diff
            if diff or todos:
                if extra and (failed or diff):  # a todo result is the same list as plain text
                    sections.append(Text(extra, style=extra_style, end=""))
                sections.append(self._diff_text(diff) if diff else self._todo_text(todos))
            elif extra:
                plain = not failed and not self._output_len
                sections.append(Text(extra, style=Style() if plain else extra_style, end=""))
        for number, section in enumerate(sections):
            if number:
                body.append("\n")
            body.append_text(section)
        self._body_cache = (key, body)
        return body

    def _output_text(self, tail_mode: bool) -> Text:
        output = self.output.rstrip("\n")
        text = Text(end="")
        shown = output.count("\n") + 1
        if note := self._hidden_note(shown, tail_mode=tail_mode):
            text.append(note + "\n", style=self._style("note"))
        if tail_mode and shown > self.TAIL_LINES:
            output = "\n".join(output.rsplit("\n", self.TAIL_LINES)[1:])
        text.append(output)
        return text

    def _diff_text(self, diff: str) -> Text:
        styles = {
            "add": self._style("diff-add"),
            "del": self._style("diff-del"),
            "hunk": self._style("diff-hunk"),
            "meta": self._style("diff-meta"),
        }
        text = Text(end="")
        for number, line in enumerate(diff.rstrip("\n").split("\n")):
            if number:
                text.append("\n")
            if line.startswith(("+++", "---", "diff ", "index ")):
                text.append(line, style=styles["meta"])
            elif line.startswith("@@"):
                text.append(line, style=styles["hunk"])
            elif line.startswith("+"):
                text.append(line, style=styles["add"])
            elif line.startswith("-"):
                text.append(line, style=styles["del"])
            else:
                text.append(line)
        return text

    def _todo_text(self, todos: list[Mapping[str, Any]]) -> Text:
        component = {
            "pending": "todo-pending",
            "in_progress": "todo-active",
            "completed": "todo-done",
            "cancelled": "todo-cancelled",
        }
        text = Text(end="")
        for number, item in enumerate(todos):
            status = str(item.get("status", "pending"))
            status = status if status in self.TODO_GLYPHS else "pending"
            content = item.get("content") or item.get("text") or item.get("title") or item.get("task") or ""
            if number:
                text.append("\n")
            style = self._style(component[status])
            text.append(f"{self.TODO_GLYPHS[status]} ", style=style)
            text.append(_one_line(str(content)), style=style)
        return text


def stable_icon(icon: str) -> str:
    """An icon as wide on screen as Rich measures it: VS16 (U+FE0F) dropped, so a theme's or plugin's
    `⚙️` is the one-cell `⚙` for Rich and the terminal alike (with VS16, Rich counts two cells and many
    terminals draw one)."""
    return icon.replace("\ufe0f", "")


def _number(value: float) -> str:
    """A progress count as people write it: 3, 2.5 (servers send floats)."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _one_line(text: str) -> str:
    """A summary fits on one line: controls stripped, newlines shown as ↵."""
    return sanitize_display(text).strip().replace("\n", " ↵ ").replace("\t", " ")


def _without_diff(result: str, diff: str) -> str:
    """A file edit's result without the copy of the diff the model got in it (the panel draws the diff,
    coloured, from the call's data): "Patched a.py: 1 replacement." instead of that line and the diff."""
    first = diff.lstrip("\n").split("\n", 1)[0]
    if not first:
        return result
    at = result.find(first)
    return result[:at].rstrip("\n") if at >= 0 else result


def _result_extra(result: str, output: str) -> str:
    """What a tool's result adds to the output we already streamed (e.g. `[exit code: 1]`, an error)."""
    if not output.strip():
        return result
    shown = output.rstrip("\n")
    if result.startswith(shown):
        return result[len(shown) :].strip("\n")
    if result.strip() in output:
        return ""
    # A terminal-shaped result (output, then `[...]` notes) whose output was trimmed differently from ours:
    # keep only its bracketed trailer. Anything else (an error message) is shown whole.
    trailer: list[str] = []
    for line in reversed(result.split("\n")):
        if not (line.startswith("[") and line.endswith("]")):
            break
        trailer.append(line)
    return "\n".join(reversed(trailer)) if trailer else result


def shown_result(tool: str, result: str) -> str:
    """A result as the panel reads it: the clarify tool's JSON (what the model is sent, in Hermes' form)
    as the question and the user's answer, not as raw JSON."""
    if tool != "clarify":
        return result
    from agent.api import clarify_answer  # the tool's payload is read where the tool writes it

    answered = clarify_answer(result)
    if answered is None:
        return result
    question, answer = answered
    return f"{question}\n→ {answer}".strip()

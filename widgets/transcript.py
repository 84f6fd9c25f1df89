"""The scrolling transcript: one Line-API view over the whole conversation.

Why it is built this way (design.md §4, §9): layout cost grows with the number of mounted widgets, not
with bytes, and a conversation of a thousand entries as a thousand widgets needed a window of mounted
entries, placeholders and eight workarounds on Textual's internals. Here the transcript is ONE widget, as
Textual scales `Log`, `OptionList` and `DataTable`: its entries are models (`widgets.transcript_entry`:
a user message, a reply, reasoning, a tool call, a notice), each with a line cache, laid out on one
virtual canvas (`widgets.transcript_layout.EntryHeights`); the view owns `virtual_size` and
`render_line`. An entry not drawn at the current width has an estimated height, made exact when it
first comes into view (`_settle`, before each paint), without moving what the user is looking at (the
top line in view is the anchor). The scrollbar covers the whole conversation; Home/End and Ctrl+Home/
Ctrl+End go to its first and latest entry at once.

- Following: while the view is at the bottom it follows new content; scrolling up stops that (the
  "↓ new output" bar, drawn over the last row, says when more arrives below), reaching the bottom again or
  `scroll_to_latest()` (End) follows again.
- Focus: the keyboard stays with the prompt (a click acts where it lands: a tool call's header toggles
  it). Tab into the transcript shows a cursor over the entries (OptionList-style): Up/Down move it,
  Enter/Space open or close a tool call or reasoning, `y` (or Enter on a message) copies the entry.
- Time: one pacer (`self.pacer`, `widgets.pacer`, `PACER_HZ`) drives what moves (running tool calls'
  output and clocks, the spinner, the app's drain of the agent's events during a turn) while something
  does, and stops at rest; streaming replies and reasoning render through `LiveUpdates` on its deadlines.
- Selection: every line carries its canvas offsets, so a mouse selection spans entries and copies what
  the user sees.

The transcript renders; it never drives the agent. The app calls `add_user`, `start_assistant`,
`start_reasoning`, `add_tool_panel`, `add_notice`, `show_spinner`/`hide_spinner` from its event handlers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping, Sequence
from typing import ClassVar, TypeVar

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from widgets import timing
from widgets.assistant_message import MARKDOWN_CLASSES, AssistantMessage, build_markdown_style, markdown_css
from widgets.markdown_view.render import Line, MarkdownStyle, render_text
from widgets.notice import NoticeLine
from widgets.pacer import Pacer
from widgets.reasoning import ReasoningBlock
from widgets.spinner import Spinner
from widgets.tool_panel import DEFAULT_TOOL_ICONS, ToolPanel
from widgets.transcript_entry import Entry, blank_line, pad_line
from widgets.transcript_layout import EntryHeights
from widgets.transcript_record import EntryKind, TranscriptRecord
from widgets.user_message import UserMessage

__all__ = ["EntryKind", "Transcript", "TranscriptRecord"]

E = TypeVar("E", bound=Entry)


class _Done:
    """An awaitable that is already complete (the transcript's changes take effect at once)."""

    def __await__(self) -> Generator[None, None, None]:
        return
        yield


_DONE = _Done()


_STYLES = """
Transcript {
    height: 1fr;
    padding: 0;
    scrollbar-size-vertical: 1;
    scrollbar-gutter: stable;  /* the width never changes when the scrollbar comes: no re-wrap mid-stream */
    color: $foreground;
    & > .transcript--reply { color: $foreground; }
    & > .transcript--cursor { background: $primary 15%; }
    & > .transcript--new-output { background: $primary 25%; color: $foreground; }
    & > .transcript--user { background: $boost; color: $foreground; }
    & > .user-message--border { color: $primary; }
    & > .user-message--more { color: $text-muted; text-style: italic; }
    & > .user-message--image { color: $text-accent; text-style: bold; }
    & > .reasoning--base { color: $text-muted; }
    & > .reasoning--title { color: $text-secondary; text-style: bold; }
    & > .reasoning--meta { color: $text-muted; }
    & > .reasoning--body { color: $text-muted; text-style: italic; }
    & > .notice--info { color: $text-muted; }
    & > .notice--warn { color: $text-warning; }
    & > .notice--retry { color: $text-warning; }
    & > .notice--error { color: $text-error; }
    & > .notice--interrupted { color: $text-warning; }
    & > .notice--success { color: $text-success; }
    & > .notice--hint { color: $text-muted; }
    & > .transcript--tool { color: $foreground; }
    & > .tool-panel--body { color: $foreground 80%; }
    & > .tool-panel--border-body { color: $foreground 20%; }
    & > .tool-panel--border-error { color: $error 70%; }
    & > .tool-panel--border-denied { color: $error 70%; }
    & > .tool-panel--border-running { color: $accent 60%; }
    & > .tool-panel--chevron { color: $text-muted; }
    & > .tool-panel--name { color: $text-primary; text-style: bold; }
    & > .tool-panel--summary { color: $foreground 85%; }
    & > .tool-panel--preparing { color: $text-muted; text-style: italic; }
    & > .tool-panel--time { color: $text-muted; }
    & > .tool-panel--running { color: $accent; }
    & > .tool-panel--ok { color: $success; }
    & > .tool-panel--error { color: $error; }
    & > .tool-panel--cancelled { color: $warning; }
    & > .tool-panel--denied { color: $error; }
    & > .tool-panel--note { color: $text-muted; text-style: italic; }
    & > .tool-panel--error-text { color: $text-error; }
    & > .tool-panel--diff-add { color: $success; }
    & > .tool-panel--diff-del { color: $error; }
    & > .tool-panel--diff-hunk { color: $accent; }
    & > .tool-panel--diff-meta { color: $text-muted; text-style: bold; }
    & > .tool-panel--todo-pending { color: $foreground; }
    & > .tool-panel--todo-active { color: $accent; text-style: bold; }
    & > .tool-panel--todo-done { color: $success; }
    & > .tool-panel--todo-cancelled { color: $text-muted; text-style: strike; }
    & > .subagents--border { color: $accent 40%; }
    & > .subagents--goal { color: $foreground; text-style: bold; }
    & > .subagents--running { color: $accent; }
    & > .subagents--ok { color: $success; }
    & > .subagents--error { color: $error; }
    & > .subagents--cancelled { color: $warning; }
    & > .subagents--muted { color: $text-muted; }
    & > .subagents--text { color: $text-muted; text-style: italic; }
    & > .spinner--glyph { color: $accent; }
    & > .spinner--face { color: $secondary; }
    & > .spinner--verb { color: $foreground; text-style: italic; }
    & > .spinner--elapsed { color: $text-muted; }
    & > .spinner--hint { color: $text-muted; }
    & > .spinner--stall { color: $text-warning; }
}
"""


def _component_classes() -> set[str]:
    names = {
        line.strip().split("{")[0].strip().removeprefix("& > .")
        for line in _STYLES.splitlines()
        if line.strip().startswith("& > .")
    }
    return names | set(MARKDOWN_CLASSES)


def without_render_indent(text: str, first_column: int) -> str:
    """A mouse copy without the indent the transcript draws (its margin, a reply's indent, a code block's
    padding): the spaces every selected line shares are dropped, so a code block pastes as written, its own
    indentation kept. The first line starts where the drag did (`first_column`): only the part of the
    shared indent left of that column was selected, and only that is dropped from it."""
    lines = text.split("\n")
    if len(lines) < 2:
        return text
    rest = [line for line in lines[1:] if line.strip()]
    if not rest:
        return text
    first = lines[0]
    first_indent = len(first) - len(first.lstrip(" "))
    common = min(len(line) - len(line.lstrip(" ")) for line in rest)
    if first.strip():  # where the first line's text is on screen counts too
        common = min(common, first_column + first_indent)
    cut = min(max(0, common - first_column), first_indent)
    return "\n".join([first[cut:], *(line[common:] if line.strip() else "" for line in lines[1:])])


class Transcript(ScrollView, can_focus=True):
    """The conversation: user messages, replies, reasoning, tool calls, notices and a spinner at the end."""

    FOCUS_ON_CLICK = False  # a click acts on it; the keyboard stays with the prompt (Tab navigates here)

    DEFAULT_CSS = _STYLES + markdown_css("Transcript")
    COMPONENT_CLASSES: ClassVar[set[str]] = _component_classes()

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Previous entry", show=False),
        Binding("down", "cursor_down", "Next entry", show=False),
        Binding("enter", "activate_cursor", "Expand/collapse or copy", show=False),
        Binding("space", "toggle_cursor", "Expand/collapse", show=False),
        Binding("y", "copy_cursor", "Copy", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home,ctrl+home", "scroll_to_first", "First", show=False),
        Binding("end,ctrl+end", "scroll_to_latest", "Latest", show=False),
    ]

    PACER_HZ: ClassVar[float] = timing.PACER_HZ
    SETTLE_SCREENS: ClassVar[int] = 1
    """Entries this many screens above and below the view are measured exactly with it (so a page up or
    down lands on exact heights)."""
    NEW_OUTPUT: ClassVar[str] = "↓ new output — ctrl+end or click to follow"
    MARGIN: ClassVar[int] = 1
    """Cells left and right of the entries, and blank lines below the last: drawn by the transcript itself
    (not CSS padding, so `render_lines` hands Textual finished strips: see there)."""
    DRAWN_KEPT: ClassVar[int] = 2048
    """Canvas lines whose strips are kept (`_drawn`): when the view scrolls (following a growing reply,
    paging), the lines that stay in view are not drawn again, as `Log` keeps its lines."""

    expand_diffs: bool = True
    """File edits' panels open with their diff shown (the `display.expand_diffs` setting)."""
    show_reasoning: bool = True
    """The model's thinking is shown (Hermes' `display.show_reasoning`, `/reasoning show|hide`): hidden, a
    turn's reasoning and a resumed session's are left out."""
    tool_icons: Mapping[str, str] = DEFAULT_TOOL_ICONS
    """The icon table new tool panels get (the theme's and the plugins'); `set_tool_icons` changes it."""

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._entries: list[Entry] = []
        self._index: dict[int, int] = {}  # id(entry) -> its position
        self._heights = EntryHeights()
        self._width = 0  # the content width every height is for (0: not laid out yet)
        self._following = True
        self._new_output = False
        self._cursor: int | None = None
        self._scrolling = False  # the view moves itself (following, an anchor kept): not the user
        self._panels: dict[str, ToolPanel] = {}
        self._live: list[Entry] = []
        self.pacer = Pacer(self, self.PACER_HZ)
        """The one clock of what moves on screen (`widgets.pacer`)."""
        self._frame = 0
        self._generation = 0
        self._styles: dict[tuple[str, bool], Style] = {}
        self._signature: tuple[Style, ...] | None = None
        self._styles_stale = True
        self._base: Style | None = None
        self._markdown: MarkdownStyle | None = None
        self._spinner = Spinner(on_change=self._spinner_changed)
        self._spinner.painter = self
        self._drawn: dict[int, Strip] = {}  # canvas line -> its strip, offsets applied (`render_line`)

    # ----------------------------------------------------------------------------------------- app API

    def add_user(self, text: str, images: Sequence[str] = ()) -> UserMessage:
        """Show the user's message (`images`: badge labels), and follow the bottom again (the user acted)."""
        message = self._add(UserMessage(text, images=images))
        self.scroll_to_latest()
        return message

    def start_assistant(self) -> AssistantMessage:
        """A new streaming reply segment; feed it with `append()` and end it with `finish()`."""
        return self._add(AssistantMessage())

    def start_reasoning(self) -> ReasoningBlock:
        """A new streaming reasoning block (collapsed); feed it with `append()`, end with `finish()`."""
        return self._add(ReasoningBlock())

    def add_tool_panel(self, call_id: str, name: str, index: int = 0) -> ToolPanel:
        """A panel for a tool call, placed in the model's call order among the current call's panels.

        Idempotent per `call_id`: a second call returns the existing panel.
        """
        if call_id and (existing := self._panels.get(call_id)) is not None:
            return existing
        panel = ToolPanel(call_id, name, index, expand_diffs=self.expand_diffs, icons=self.tool_icons)
        if call_id:
            self._panels[call_id] = panel
        before = self._panel_successor(index)
        return self._add(panel, at=None if before is None else self._position(before))

    def set_tool_icons(self, icons: Mapping[str, str]) -> None:
        """The icon table changed (a theme, the session's plugins): new panels and those shown use it."""
        self.tool_icons = icons
        for entry in self._entries:
            if isinstance(entry, ToolPanel):
                entry.set_icons(icons)

    def tool_panel(self, call_id: str, *, index: int | None = None) -> ToolPanel | None:
        """The panel for `call_id`; with `index`, also a panel created without an id at that index (its id
        is then set to `call_id`)."""
        panel = self._panels.get(call_id)
        if panel is not None or index is None:
            return panel
        for candidate in reversed(self._current_panels()):
            if candidate.index == index and not candidate.call_id:
                candidate.set_call_id(call_id)
                if call_id:
                    self._panels[call_id] = candidate
                return candidate
        return None

    def last_turn_panels(self) -> list[ToolPanel]:
        """The tool panels of the last turn: those after the last user message."""
        panels: list[ToolPanel] = []
        for entry in reversed(self._entries):
            if isinstance(entry, UserMessage):
                break
            if isinstance(entry, ToolPanel):
                panels.append(entry)
        panels.reverse()
        return panels

    def latest_panel(self) -> ToolPanel | None:
        """The newest tool panel with something to show below its header."""
        for entry in reversed(self._entries):
            if isinstance(entry, ToolPanel) and entry.has_body:
                return entry
        return None

    def toggle_panel(self) -> ToolPanel | None:
        """Expand or collapse the panel under the cursor (when the transcript has the focus), else the
        latest one with a body; the panel, if any."""
        cursor = self.cursor_entry if self.has_focus else None
        panel = cursor if isinstance(cursor, ToolPanel) else self.latest_panel()
        if panel is None or not panel.set_expanded(not panel.expanded):
            return None
        if panel.expanded:
            self.scroll_to_entry(panel)
        return panel

    def toggle_last_turn_panels(self) -> int:
        """Expand every panel of the last turn if any is collapsed, else collapse them all; how many
        changed (0: the last turn has no panel with a body)."""
        panels = [panel for panel in self.last_turn_panels() if panel.has_body]
        expand = any(not panel.expanded for panel in panels)
        return sum(panel.set_expanded(expand) for panel in panels)

    def add_notice(
        self, kind: str, text: str, hint: str | None = None, *, multiline: bool = False
    ) -> NoticeLine:
        """A notice (info, warn, retry, error, interrupted, success); `multiline` for a listing."""
        return self._add(NoticeLine(kind, text, hint=hint, multiline=multiline))

    def show_spinner(self) -> Spinner:
        """Show the thinking spinner below the last entry and start it."""
        self._spinner.display = True
        self._spinner.start()
        self._sync_pacer()
        return self._spinner

    def hide_spinner(self) -> None:
        """Stop and hide the spinner."""
        self._spinner.stop()
        self._spinner.display = False

    @property
    def spinner(self) -> Spinner:
        return self._spinner

    @property
    def entries(self) -> Sequence[Entry]:
        """Every entry, oldest first."""
        return self._entries

    def entries_of(self, kind: type[E]) -> list[E]:
        """The entries of one kind, oldest first."""
        return [entry for entry in self._entries if isinstance(entry, kind)]

    @property
    def entry_count(self) -> int:
        return len(self._entries)

    def records(self) -> list[TranscriptRecord]:
        """Every entry as plain data, oldest first (for export/copy and tests)."""
        return [record for entry in self._entries if (record := entry.record()) is not None]

    def load_history(self, records: Iterable[TranscriptRecord]) -> Awaitable[None]:
        """Replace the transcript with a stored session and show its end. Entries added right after the
        call follow the history. (Awaitable for callers written against a slower past; done at once.)"""
        self._reset()
        shown = (r for r in records if self.show_reasoning or r.kind != "reasoning")
        entries = [self._entry_from_record(record) for record in shown]
        for entry in entries:
            self._append_entry(entry, estimate=True)
        self._regroup(0, len(self._entries))
        self._changed_height()
        self.scroll_to_latest()
        return _DONE

    def clear(self) -> Awaitable[None]:
        """Remove every entry (a new session)."""
        self._reset()
        self._changed_height()
        self.scroll_to_latest()
        return _DONE

    # ----------------------------------------------------------------------------------------- scrolling

    @property
    def is_following(self) -> bool:
        """True while the view sticks to the bottom (new content scrolls into view)."""
        return self._following

    @property
    def new_output_shown(self) -> bool:
        """The "↓ new output" bar is shown (output arrived below the view while the user reads above)."""
        return self._new_output and not self._following

    def scroll_to_latest(self) -> Awaitable[None]:
        """Jump to the newest content and follow it again. (Awaitable for older callers.)"""
        self._following = True
        self._new_output = False
        self._scroll_end()
        return _DONE

    def action_scroll_to_latest(self) -> None:
        self.scroll_to_latest()

    def scroll_to_first(self) -> None:
        """Jump to the first entry (the view stops following)."""
        self._following = False
        self._set_scroll(0)

    def action_scroll_to_first(self) -> None:
        self.scroll_to_first()

    def action_page_up(self) -> None:
        self._page(-1)

    def action_page_down(self) -> None:
        self._page(1)

    def go(self, where: str) -> None:
        """Where the prompt's PageUp/PageDown and Ctrl+Home/Ctrl+End send the view (`page_up`,
        `page_down`, `first`, `latest`)."""
        if where == "first":
            self.scroll_to_first()
        elif where == "latest":
            self.scroll_to_latest()
        else:
            self._page(-1 if where == "page_up" else 1)

    def page(self, direction: int) -> None:
        """Scroll a page up (-1) or down (1): the prompt's PageUp/PageDown come here too."""
        self._page(direction)

    def _page(self, direction: int) -> None:
        height = max(1, self._rows - 1)
        self.scroll_to(y=self.scroll_y + direction * height, animate=False, immediate=True)

    def scroll_to_entry(self, entry: Entry) -> None:
        """Bring `entry` into view (its top, or as much of it as fits)."""
        index = self._index.get(id(entry))
        if index is None or self._width <= 0:
            return
        self._measure(index)
        top = self._heights.offset(index) + entry.gap
        bottom = self._heights.offset(index + 1)
        view = self._rows
        y = self.scroll_y
        if top < y:
            target = top
        elif bottom > y + view:
            target = min(top, bottom - view)
        else:
            return
        self._following = False
        self._set_scroll(target)

    # ----------------------------------------------------------------------------------------- the cursor

    @property
    def cursor_entry(self) -> Entry | None:
        """The entry under the keyboard cursor (shown while the transcript has the focus): the last one in
        view that opens or can be copied, until the user moves it."""
        if self._cursor is None or not 0 <= self._cursor < len(self._entries):
            candidates = self._selectable()
            self._cursor = self._last_in_view(candidates) if candidates and self.has_focus else None
        return None if self._cursor is None else self._entries[self._cursor]

    def select(self, entry: Entry) -> None:
        """Put the keyboard cursor on `entry` (shown while the transcript has the focus)."""
        index = self._index.get(id(entry))
        if index is not None:
            self._move_cursor(index)

    def row_of(self, entry: Entry) -> int | None:
        """The row of the view where `entry`'s first line (after its gap) is, if it is in view."""
        index = self._index.get(id(entry))
        if index is None:
            return None
        row = self._heights.offset(index) + entry.gap - int(self.scroll_y)
        return row if 0 <= row < self._rows else None

    def _selectable(self) -> list[int]:
        """The entries the cursor visits: those that open and close, and those with text to copy."""
        return [
            i
            for i, entry in enumerate(self._entries)
            if entry.visible and (entry.can_toggle or entry.CAN_COPY)
        ]

    def _move_cursor(self, index: int | None) -> None:
        old, self._cursor = self._cursor, index
        for position in {old, index}:
            if position is not None and 0 <= position < len(self._entries):
                self._refresh_entry(position)
        if index is not None:
            self.scroll_to_entry(self._entries[index])

    def action_cursor_up(self) -> None:
        candidates = self._selectable()
        if not candidates:
            self._page(-1)
            return
        if self.cursor_entry is None or self._cursor is None:
            return
        earlier = [i for i in candidates if i < self._cursor]
        self._move_cursor(earlier[-1] if earlier else self._cursor)

    def action_cursor_down(self) -> None:
        candidates = self._selectable()
        if not candidates:
            self._page(1)
            return
        if self.cursor_entry is None or self._cursor is None:
            return
        later = [i for i in candidates if i > self._cursor]
        self._move_cursor(later[0] if later else self._cursor)

    def action_toggle_cursor(self) -> None:
        entry = self.cursor_entry
        if entry is None:
            return
        if entry.toggle() and isinstance(entry, ToolPanel) and entry.expanded:
            self.scroll_to_entry(entry)

    def action_activate_cursor(self) -> None:
        """Enter: open or close the entry under the cursor; one that does not open (a message) is copied."""
        entry = self.cursor_entry
        if entry is not None and entry.can_toggle:
            self.action_toggle_cursor()
        else:
            self.action_copy_cursor()

    def action_copy_cursor(self) -> None:
        """`y`: the entry under the cursor to the terminal's clipboard (OSC 52), whole, as the Ctrl+C copy
        of a selection does."""
        entry = self.cursor_entry
        text = entry.copy_text if entry is not None else ""
        if not text:
            self.notify("Nothing to copy here", timeout=timing.COPY_TOAST)
            return
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {len(text):,} characters", timeout=timing.COPY_TOAST)

    def _last_in_view(self, candidates: list[int]) -> int:
        bottom = self.scroll_y + self._rows
        shown = [i for i in candidates if self._heights.offset(i) < bottom]
        return shown[-1] if shown else candidates[0]

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # ----------------------------------------------------------------------------------------- mouse

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if self.new_output_shown and offset.y >= self._rows:
            event.stop()
            self.scroll_to_latest()
            return
        y = int(self.scroll_y) + offset.y
        index = self._heights.index_at(y)
        if index < 0 or y >= self._heights.total:
            return
        entry = self._entries[index]
        line = y - self._heights.offset(index) - entry.gap
        if line >= 0 and entry.click(line, offset.x - self.MARGIN):
            event.stop()
            if self.has_focus:
                self._move_cursor(index)

    # ----------------------------------------------------------------------------------------- painter

    @property
    def console(self) -> Console:
        return self.app.console

    @property
    def generation(self) -> int:
        return self._generation

    @property
    def base_style(self) -> Style:
        """The view's own colour and background (`rich_style` walks every ancestor: kept until styles
        change, as it is under every row)."""
        if self._base is None:
            self._base = self.rich_style
        return self._base

    @property
    def scrolls(self) -> bool:
        return self.max_scroll_y > 0

    @property
    def markdown_style(self) -> MarkdownStyle:
        """The replies' Markdown look, built once per style generation and shared by every reply."""
        if self._markdown is None:
            self._markdown = build_markdown_style(self, self.entry_style("transcript--reply"))
        return self._markdown

    def span_style(self, component: str) -> Style:
        """A component's style for a span of text: its attributes, and its colour blended (Textual's
        partial style cannot blend `$text-muted` or a colour with alpha; the full one carries the
        background too, which would paint over the cursor's)."""
        key = (component, False)
        style = self._styles.get(key)
        if style is None:
            partial = self.get_component_rich_style(component, partial=True)
            if partial.color is not None:
                partial = partial + Style(color=self.get_component_rich_style(component).color)
            style = self._styles[key] = partial
        return style

    def entry_style(self, component: str) -> Style:
        """An entry's own style: the view's, with the component's colour, attributes and background."""
        key = (component, True)
        style = self._styles.get(key)
        if style is None:
            full = self.get_component_rich_style(component)
            style = self.base_style + self.span_style(component) + Style(bgcolor=full.bgcolor)
            self._styles[key] = style
        return style

    def input_pending(self) -> bool:
        pending: Callable[[], bool] | None = getattr(self.app, "input_pending", None)
        return bool(pending is not None and pending())

    def entry_changed(self, entry: Entry, first: int = 0, last: int | None = None) -> None:
        index = self._index.get(id(entry))
        if index is None or self._width <= 0:
            if index is not None:
                self.refresh()
            return
        top = self._heights.offset(index)
        bottom = top + self._heights.height(index)
        delta = self._measure(index, force=True)
        gap = entry.gap
        if delta:
            if not self._following and bottom <= self.scroll_y:
                self._shift(delta)  # above the view: what the user reads stays where it is
            self._changed_height(from_line=top + gap + first)
            self._note_new_output(top + self._heights.height(index))
            return
        height = self._heights.height(index) - gap - first
        count = height if last is None else min(height, last - first)
        if count > 0:
            self._forget_drawn(top + gap + first, top + gap + first + count)
            self.refresh_lines(top + gap + first, count)
            self._note_new_output(top + gap + first + count)

    def remove_entry(self, entry: Entry) -> None:
        index = self._index.get(id(entry))
        if index is None:
            return
        entry.detach()
        del self._entries[index]
        self._heights.remove(index)
        if isinstance(entry, ToolPanel) and self._panels.get(entry.call_id) is entry:
            del self._panels[entry.call_id]
        if entry in self._live:
            self._live.remove(entry)
        if self._cursor is not None and self._cursor >= index:
            self._cursor = max(0, self._cursor - 1) if self._entries else None
        self._reindex(index)
        self._regroup(index - 1, index + 1)
        self._changed_height(from_line=self._heights.offset(index) if index < len(self._entries) else 0)

    # ----------------------------------------------------------------------------------------- Textual

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles_stale = True  # looked at before the next paint (component styles come after this)
        self.refresh()

    def _check_styles(self) -> None:
        """Styles were updated (a theme, a hot reload, the focus): a new generation only if what entries
        draw with changed (a focus change usually changes nothing they use, and costs nothing then)."""
        if not self._styles_stale:
            return
        self._styles_stale = False
        self._styles = {}
        self._base = None
        signature = (
            self.rich_style,
            *(self.get_component_rich_style(name) for name in sorted(self.COMPONENT_CLASSES)),
        )
        if signature != self._signature:
            self._signature = signature
            self._generation += 1
            self._forget_drawn(0)
            self._markdown = None
            for entry in self._entries:
                entry.on_style_change()

    def on_mount(self) -> None:
        self._spinner.animation_level = self.app.animation_level
        self.pacer.start()

    def on_unmount(self) -> None:
        self.pacer.stop()
        for entry in self._entries:
            entry.detach()

    def on_resize(self, event: events.Resize) -> None:
        self._settle()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._scrolling:
            return
        if new_value >= self.max_scroll_y:
            if not self._following:
                self._following = True
                self._new_output = False
                self.refresh()
        elif new_value < old_value and self._following:
            self._following = False

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines in `crop`, drawn by `render_line` and handed over as they are, with the app's line
        filters: the transcript has no padding, border or tint for Textual's styles cache to add, and that
        cache is keyed by the row of the view, so every scroll (each time a followed reply grows) drew
        every row through it again (a quarter of the UI thread while streaming); `_drawn` keeps the
        canvas's lines across scrolls instead."""
        self._settle()
        filters = self.get_line_filters()
        background = self.background_colors[1]
        x1, x2 = crop.column_span
        full = (x1, x2) == (0, self.size.width)
        region = self.scrollable_content_region  # looked up once a pass, not once a row
        base, selection = self.base_style, self.text_selection
        drawn_width = self._drawn_width
        strips: list[Strip] = []
        for y in crop.line_range:
            strip = self._row(y, base, drawn_width, region.height, selection)
            for line_filter in filters:
                strip = strip.apply_filter(line_filter, background)
            strips.append(strip if full else strip.crop(x1, x2))
        return strips

    @property
    def _rows(self) -> int:
        """Rows of the view that show the canvas (the last `MARGIN` are the margin above the prompt)."""
        return max(1, self.scrollable_content_region.height - self.MARGIN)

    @property
    def entry_width(self) -> int:
        """The width entries are drawn at: the view's, less the margins."""
        return max(1, self.scrollable_content_region.width - 2 * self.MARGIN)

    @property
    def _drawn_width(self) -> int:
        """The width of the rows Textual composes: the widget's, less a scrollbar shown (the gutter kept
        for it while there is none is a blank cell of the row)."""
        shown = self.styles.scrollbar_size_vertical if self.show_vertical_scrollbar else 0
        return max(1, self.size.width - shown)

    def render_line(self, y: int) -> Strip:
        region = self.scrollable_content_region
        return self._row(y, self.base_style, self._drawn_width, region.height, self.text_selection)

    def _row(self, y: int, base: Style, full: int, view: int, selection: Selection | None) -> Strip:
        """Row `y` of the view, `full` cells wide (`view` rows tall), the margins drawn here."""
        width = self._width or max(1, full - 2 * self.MARGIN)
        if y >= view - self.MARGIN:  # the margin above the prompt, where "↓ new output" shows
            if self.new_output_shown:
                return self._new_output_strip(full)
            return Strip(blank_line(full, base), full)
        canvas_y = int(self.scroll_y) + y
        drawn = self._drawn.get(canvas_y)
        if drawn is not None and selection is None and not self._cursor_shown_at(canvas_y):
            return drawn  # the view scrolled: the same canvas line, drawn before
        total = self._heights.total
        line: Line | None = None
        cursor = False
        if canvas_y < total:
            index = self._heights.index_at(canvas_y)
            if not self._heights.is_exact(index):
                self._measure(index)
                total = self._heights.total
            entry = self._entries[index]
            offset = canvas_y - self._heights.offset(index)
            if offset < self._heights.height(index):
                line = entry.line(offset, width)
                cursor = self.has_focus and offset >= entry.gap and entry is self.cursor_entry
        elif self._spinner.display and canvas_y - total == 1:
            line = pad_line(self._spinner_line(width - 2), width, 1, 1, base)
        segments: Line = line or blank_line(width, base)
        if cursor:
            segments = tuple(Segment.apply_style(segments, post_style=self._cursor_style()))
        margin = (Segment(" " * self.MARGIN, base),)
        strip = Strip((*margin, *segments, Segment(" " * max(0, full - width - self.MARGIN), base)), full)
        plain = not cursor and canvas_y < total
        if selection is not None and (span := selection.get_span(canvas_y)) is not None:
            strip = self._select(strip, *span)
            plain = False
        strip = strip.apply_offsets(0, canvas_y)
        if plain:
            if len(self._drawn) >= self.DRAWN_KEPT:
                self._drawn.clear()
            self._drawn[canvas_y] = strip
        return strip

    def _cursor_shown_at(self, canvas_y: int) -> bool:
        """The keyboard cursor's highlight is on this canvas line (never drawn from `_drawn`)."""
        if not self.has_focus or self._cursor is None or not 0 <= self._cursor < len(self._entries):
            return False
        top = self._heights.offset(self._cursor)
        return top <= canvas_y < top + self._heights.height(self._cursor)

    def _forget_drawn(self, start: int, end: int | None = None) -> None:
        """Canvas lines from `start` (to `end`) changed or moved: draw them again."""
        drawn = self._drawn
        if not drawn:
            return
        if start <= 0 and end is None:
            drawn.clear()
            return
        for y in [y for y in drawn if y >= start and (end is None or y < end)]:
            del drawn[y]

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        start = 0 if selection.start is None else selection.start.y
        end = self._heights.total if selection.end is None else selection.end.y
        width = self._width or 80
        rows: list[str] = []
        for y in range(0, end + 1):
            rows.append(self._line_text(y, width) if y >= start else "")
        first_column = 0 if selection.start is None else selection.start.x
        return without_render_indent(selection.extract("\n".join(rows)), first_column), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    # ----------------------------------------------------------------------------------------- internals

    def _line_text(self, y: int, width: int) -> str:
        if y >= self._heights.total:
            return ""
        index = self._heights.index_at(y)
        self._measure(index)
        offset = y - self._heights.offset(index)
        entry = self._entries[index]
        text = "".join(segment.text for segment in entry.line(offset, width))
        return (" " * self.MARGIN + text).rstrip()  # as drawn: the selection's columns count the margin

    def _select(self, strip: Strip, start: int, end: int) -> Strip:
        """`strip` with characters [start, end) (end -1: to the end) in the screen's selection style."""
        text = Text.assemble(
            *((segment.text, segment.style or "") for segment in strip if segment.text), end=""
        )
        text.stylize(self._selection_style(), start, len(text) if end < 0 else end)
        return Strip(text.render(self.app.console))

    def _selection_style(self) -> Style:
        """The screen's selection background, and its foreground only where the theme sets one: Textual's
        default foreground is `transparent` (keep the text's colour), which as a whole Rich style painted
        the text in the background's colour, so a selection showed as a blank bar in every theme."""
        screen = self.screen
        full = screen.get_component_rich_style("screen--selection")
        foreground = screen.get_component_styles("screen--selection").color
        return Style(bgcolor=full.bgcolor, color=full.color if foreground.a > 0 else None)

    def _cursor_style(self) -> Style:
        bgcolor = self.get_component_rich_style("transcript--cursor").bgcolor
        return Style(bgcolor=bgcolor)

    def _new_output_strip(self, width: int) -> Strip:
        style = self.get_component_rich_style("transcript--new-output")
        label = self.NEW_OUTPUT[:width]
        left = max(0, (width - len(label)) // 2)
        return Strip([Segment(" " * left + label + " " * max(0, width - left - len(label)), style)], width)

    def _spinner_line(self, width: int) -> Line:
        text = self._spinner.render()
        text.truncate(max(1, width), overflow="ellipsis")
        lines = render_text(self.app.console, text, max(1, width), self.base_style)
        return lines[0] if lines else ()

    def _spinner_changed(self) -> None:
        self._sync_pacer()
        if not self.is_mounted:
            return
        if self._spinner.display != self._spinner_shown:
            self._changed_height()
        elif self._spinner.display:
            self.refresh_lines(self._heights.total + 1)

    @property
    def _spinner_shown(self) -> bool:
        return self.virtual_size.height > self._heights.total + self.MARGIN

    def _position(self, entry: Entry) -> int:
        return self._index[id(entry)]

    def _reindex(self, start: int = 0) -> None:
        for position in range(start, len(self._entries)):
            self._index[id(self._entries[position])] = position
        live = {id(entry) for entry in self._entries}
        for key in [key for key in self._index if key not in live]:
            del self._index[key]

    def _append_entry(self, entry: Entry, *, estimate: bool, at: int | None = None) -> None:
        position = len(self._entries) if at is None else at
        self._entries.insert(position, entry)
        entry.attach(self)
        if isinstance(entry, ToolPanel) and entry.call_id:
            self._panels.setdefault(entry.call_id, entry)
        width = self._width
        if width > 0 and not estimate:
            self._heights.insert(position, entry.measure(width), exact=True)
        else:  # not laid out yet: the first paint estimates every height at the real width
            self._heights.insert(position, entry.estimate(width) if width > 0 else 0, exact=False)
        if at is None:
            self._index[id(entry)] = position
        else:
            self._reindex(position)
        if entry.is_live:
            self._live.append(entry)

    def _add(self, entry: E, *, at: int | None = None) -> E:
        self._append_entry(entry, estimate=False, at=at)
        position = self._index[id(entry)]
        self._regroup(position, position + 2)
        if self._cursor is not None and at is not None and self._cursor >= position:
            self._cursor += 1
        self._changed_height(from_line=self._heights.offset(position))
        self._note_new_output(self._heights.offset(position) + self._heights.height(position))
        self._sync_pacer()
        return entry

    def _note_new_output(self, end: int) -> None:
        """Output changed below the view while the user reads above: the bar says so. `end` is the canvas
        line after the change: a reply whose first lines are in view grows below it too (a wheel notch up
        mid-stream), so what counts is where the change ends, not where its entry starts."""
        if self._following or self._new_output or not self.is_mounted:
            return
        if end > self.scroll_y + self._rows:
            self._new_output = True
            self.refresh_lines(int(self.scroll_y) + self._rows)

    def _entry_from_record(self, record: TranscriptRecord) -> Entry:
        if record.kind == "user":
            return UserMessage(record.text, images=record.images, expanded=record.expanded)
        if record.kind == "assistant":
            return AssistantMessage(record.text, finished=True)
        if record.kind == "reasoning":
            return ReasoningBlock(record.text, finished=True, expanded=record.expanded)
        if record.kind == "tool" and record.tool is not None:
            return ToolPanel.from_snapshot(record.tool, expand_diffs=self.expand_diffs, icons=self.tool_icons)
        # Only a multi-line notice keeps a newline in its text.
        return NoticeLine(record.notice_kind, record.text, hint=record.hint, multiline="\n" in record.text)

    def _reset(self) -> None:
        self._forget_drawn(0)
        for entry in self._entries:
            entry.detach()
        self._entries = []
        self._index = {}
        self._heights.clear()
        self._panels = {}
        self._live = []
        self._cursor = None
        self._new_output = False

    def _current_panels(self) -> list[ToolPanel]:
        """The trailing run of tool panels of the current model call (indices strictly increasing)."""
        panels: list[ToolPanel] = []
        for entry in reversed(self._entries):
            if not isinstance(entry, ToolPanel):
                break
            if panels and entry.index >= panels[-1].index:
                break
            panels.append(entry)
        panels.reverse()
        return panels

    def _panel_successor(self, index: int) -> ToolPanel | None:
        """The current-call panel the new panel must go before to keep call order, if any."""
        for panel in self._current_panels():
            if panel.index > index:
                return panel
        return None

    def _regroup(self, start: int, end: int) -> None:
        """Consecutive tool panels sit together (no blank line between them)."""
        start, end = max(0, start), min(len(self._entries), end)
        for position in range(start, end):
            entry = self._entries[position]
            previous = self._entries[position - 1] if position else None
            grouped = isinstance(entry, ToolPanel) and isinstance(previous, ToolPanel)
            if grouped != entry.grouped:
                entry.grouped = grouped
                if self._width > 0 and self._heights.is_exact(position):
                    self._heights.set(position, entry.measure(self._width), exact=True)
                else:
                    self._heights.set(position, entry.estimate(self._width or 80), exact=False)

    def _measure(self, index: int, *, force: bool = False) -> int:
        """Make entry `index`'s height exact at the current width; returns by how much it changed."""
        if self._width <= 0 or (self._heights.is_exact(index) and not force):
            return 0
        delta = self._heights.set(index, self._entries[index].measure(self._width), exact=True)
        if delta:
            self._forget_drawn(self._heights.offset(index))  # this entry and all after it moved
        return delta

    def _refresh_entry(self, index: int) -> None:
        self.refresh_lines(self._heights.offset(index), self._heights.height(index))

    def _set_scroll(self, y: float) -> None:
        """Move the view (not a user's scroll)."""
        self._scrolling = True
        try:
            self.scroll_to(y=y, animate=False, immediate=True, force=True)
        finally:
            self._scrolling = False

    def _shift(self, delta: int) -> None:
        self._set_scroll(self.scroll_y + delta)

    def _scroll_end(self) -> None:
        if self.is_mounted:
            self._set_scroll(self.max_scroll_y)

    def _changed_height(self, from_line: int = 0) -> None:
        """The canvas changed height: a new virtual size, the view kept at the bottom while following."""
        self._forget_drawn(from_line)
        self._set_canvas_height()
        if self._following and self.scroll_y != self.max_scroll_y:
            self._scroll_end()  # the scroll repaints the whole view (Textual's `watch_scroll_y`)
            self.refresh()
        else:
            # Only the lines from the change down: while a reply fills a view that does not scroll yet,
            # a whole-view repaint per line rewrote every row to the terminal (measured at 200 chunks/s:
            # every frame 37 rows, 58 KiB/s).
            bottom = int(self.scroll_y) + self.size.height  # to the view's end: the canvas may be shorter
            if bottom > from_line:
                self.refresh_lines(from_line, bottom - from_line)

    def _set_canvas_height(self) -> bool:
        """The virtual size for the canvas's height (the entries, and the spinner's two lines when shown);
        True if it changed.

        Only a change that shows or hides the scrollbar asks for a layout: setting `virtual_size` as the
        reactive it is lays out the whole screen and repaints every widget on it, once per line a reply
        grows (measured: a third of the UI thread while streaming). Otherwise the scrollbar is told its new
        proportions directly, and the transcript repaints only itself."""
        spinner = 2 if self._spinner.display else 0
        size = Size(max(self._width, 1), self._heights.total + spinner + self.MARGIN)
        old = self.virtual_size
        if old == size:
            return False
        view = self.scrollable_content_region.height
        if old.width != size.width or (old.height > view) != (size.height > view) or not self.is_mounted:
            self.virtual_size = size
            return True
        self.set_reactive(Transcript.virtual_size, size)
        scrollbar = self.vertical_scrollbar
        scrollbar.window_virtual_size = size.height
        scrollbar.window_size = view
        return True

    def _settle(self) -> None:
        """Before a paint: heights for the current width, the entries in view (and a screen around them)
        measured exactly, and the view kept on the line the user was reading (or at the bottom)."""
        width = self.entry_width
        if self.scrollable_content_region.width <= 0:
            return
        self._check_styles()
        view = max(1, self.scrollable_content_region.height)
        anchor = None if self._following else self._heights.anchor_at(int(self.scroll_y))
        changed = False
        if width != self._width:
            self._width = width
            self._heights.forget_exact([entry.estimate(width) for entry in self._entries])
            self._forget_drawn(0)
            changed = True
        if not self._entries:
            if changed:
                self._changed_height()
            return
        if self._following:
            # From the end up, until the view and a screen above it are exact.
            index, covered = len(self._entries) - 1, 0
            while index >= 0 and covered < view * (1 + self.SETTLE_SCREENS):
                changed |= bool(self._measure(index))
                covered += self._heights.height(index)
                index -= 1
        else:
            top = self._heights.y_of(anchor) if anchor is not None else int(self.scroll_y)
            first = self._heights.index_at(max(0, top - view * self.SETTLE_SCREENS))
            index = first
            while index < len(self._entries) and self._heights.offset(index) < top + view * (
                1 + self.SETTLE_SCREENS
            ):
                changed |= bool(self._measure(index))
                index += 1
        changed |= self._set_canvas_height()
        if self._following:
            if self.scroll_y != self.max_scroll_y:
                self._scroll_end()
        elif anchor is not None:
            target = self._heights.y_of(anchor)
            if target != int(self.scroll_y):
                self._set_scroll(target)
                changed = True
        if changed:
            self.refresh()

    # ----------------------------------------------------------------------------------------- the pacer

    def _sync_pacer(self) -> None:
        self._live = [entry for entry in self._live if entry.is_live]
        wanted = bool(self._live) or self._spinner.is_animating
        self.pacer.tick_for("transcript", self._tick if wanted else None)

    def _tick(self) -> None:
        self._frame += 1
        for entry in list(self._live):
            entry.tick(self._frame)
        spinner = self._spinner
        if spinner.is_animating:
            every = max(1, round(self.PACER_HZ / spinner.fps))
            if self._frame % every == 0:
                spinner.tick()
                self.refresh_lines(self._heights.total + 1)
        self._sync_pacer()

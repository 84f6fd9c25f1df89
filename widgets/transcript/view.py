"""The scrolling transcript: one Line-API view over the whole conversation.

Why it is built this way (docs/architecture.md, "The transcript"): layout cost grows with the number of
mounted widgets, not with bytes, and a conversation of a thousand entries as a thousand widgets needed a
window of mounted entries, placeholders and eight workarounds on Textual's internals. Here the transcript is
ONE widget, as Textual scales `Log`, `OptionList` and `DataTable`: its entries are models
(`widgets.transcript.entries`: a user message, a reply, reasoning, a tool call, a notice), each with a line
cache, laid out on one virtual canvas (`widgets.transcript.model`: the entries, the tool calls by id, their
heights); the view owns `virtual_size` and `render_line`, and the collaborators it holds do one thing each:
`EntryCursor` (`cursor`), `CanvasSelection` (`selection`), `StyleLender` (`styles`: what entries draw with),
`EntryFactory` (`factory`) and `Motion` (`motion`: what moves, on the pacer). An entry not drawn at the
current width has an estimated height, made exact when it first comes into view (`_settle`, before each
paint), without moving what the user is looking at (the top line in view is the anchor). The scrollbar covers
the whole conversation; Home/End and Ctrl+Home/Ctrl+End go to its first and latest entry at once.

- Following: while the view is at the bottom it follows new content; scrolling up stops that (the
  "↓ new output" bar, drawn over the last row, says when more arrives below), reaching the bottom again or
  `scroll_to_latest()` (End) follows again.
- Focus: the keyboard stays with the prompt (a click acts where it lands: a tool call's header toggles
  it). Tab into the transcript shows a cursor over the entries (OptionList-style): Up/Down move it,
  Enter/Space open or close a tool call or reasoning, `y` (or Enter on a message) copies the entry.
- Time: one pacer (`self.pacer`, `widgets.transcript.pacer`, `PACER_HZ`) drives what moves (running tool
  calls' output and clocks, the thinking line, the app's drain of the agent's events during a turn) while
  something does, and stops at rest; streaming replies and reasoning render through `LiveUpdates` on its
  deadlines.
- Selection: every line carries its canvas offsets, so a mouse selection spans entries and copies what
  the user sees.

The transcript renders; it never drives the agent. The app calls `add_user`, `start_assistant`,
`start_reasoning`, `add_tool_panel`, `add_notice`, `show_spinner`/`hide_spinner` from its event handlers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping, Sequence
from typing import ClassVar, TypeVar

from rich.segment import Segment
from rich.style import Style
from textual import events, on
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from widgets.support import timing
from widgets.transcript.cursor import EntryCursor
from widgets.transcript.entries.base import Entry, blank_line, pad_line
from widgets.transcript.entries.notice import NoticeEntry
from widgets.transcript.entries.reasoning import ReasoningEntry
from widgets.transcript.entries.reply import ReplyEntry
from widgets.transcript.entries.thinking import ThinkingLine
from widgets.transcript.entries.tool_call import DEFAULT_TOOL_ICONS, ToolCallEntry
from widgets.transcript.entries.user_message import UserMessageEntry
from widgets.transcript.factory import EntryFactory
from widgets.transcript.markdown.render import Line
from widgets.transcript.model import TranscriptModel
from widgets.transcript.motion import Motion
from widgets.transcript.pacer import Pacer
from widgets.transcript.record import EntryKind, TranscriptRecord
from widgets.transcript.selection import CanvasSelection
from widgets.transcript.styles import COMPONENT_CLASSES, TRANSCRIPT_CSS, StyleLender

__all__ = ["EntryKind", "Transcript", "TranscriptRecord"]

E = TypeVar("E", bound=Entry)


class _Done:
    """An awaitable that is already complete (the transcript's changes take effect at once)."""

    def __await__(self) -> Generator[None, None, None]:
        return
        yield


_DONE = _Done()


class _DrawnLines(dict[int, Strip]):
    """Canvas line -> its strip, offsets applied: kept across scrolls, as `Log` keeps its lines."""

    def forget(self, start: int, end: int | None = None) -> None:
        """Canvas lines from `start` (to `end`) changed or moved: draw them again."""
        if not self:
            return
        if start <= 0 and end is None:
            self.clear()
            return
        for y in [y for y in self if y >= start and (end is None or y < end)]:
            del self[y]


class Transcript(ScrollView, can_focus=True):
    """The conversation: user messages, replies, reasoning, tool calls, notices and a spinner at the end."""

    FOCUS_ON_CLICK = False  # a click acts on it; the keyboard stays with the prompt (Tab navigates here)

    DEFAULT_CSS = TRANSCRIPT_CSS
    COMPONENT_CLASSES: ClassVar[set[str]] = set(COMPONENT_CLASSES)

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Previous entry", show=False),
        Binding("down", "cursor(1)", "Next entry", show=False),
        Binding("enter", "activate_cursor", "Expand/collapse or copy", show=False),
        Binding("space", "toggle_cursor", "Expand/collapse", show=False),
        Binding("y", "copy_cursor", "Copy", show=False),
        Binding("pageup", "go('page_up')", "Page up", show=False),
        Binding("pagedown", "go('page_down')", "Page down", show=False),
        Binding("home,ctrl+home", "go('first')", "First", show=False),
        Binding("end,ctrl+end", "go('latest')", "Latest", show=False),
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
        self._drawn = _DrawnLines()
        self.model = TranscriptModel(moved=self._drawn.forget)
        """The entries, the tool calls by id and where each is on the canvas (`widgets.transcript.model`)."""
        self._following = True
        self._new_output = False
        self._scrolling = False  # the view moves itself (following, an anchor kept): not the user
        self.pacer = Pacer(self, self.PACER_HZ)
        """The one clock of what moves on screen (`widgets.transcript.pacer`)."""
        self.painter = StyleLender(self, self)
        """What the entries draw with (`widgets.transcript.styles`)."""
        self.cursor = EntryCursor(self, self.model)
        self.factory = EntryFactory(self)
        self._selection = CanvasSelection(self, self.model, self.MARGIN)
        self._spinner = ThinkingLine(on_change=self._spinner_changed)
        self._spinner.painter = self.painter
        self.motion = Motion(  # the spinner's row is the one under the entries
            self.pacer, self.PACER_HZ, self._spinner, lambda: self.refresh_lines(self.model.heights.total + 1)
        )

    # ----------------------------------------------------------------------------------------- app API

    def add_user(self, text: str, images: Sequence[str] = (), *, shell: bool = False) -> UserMessageEntry:
        """Show the user's message (`images`: badge labels; `shell`: a `!command`, not a message to the
        model), and follow the bottom again (the user acted)."""
        message = self._add(UserMessageEntry(text, images=images, shell=shell))
        self.scroll_to_latest()
        return message

    def start_assistant(self) -> ReplyEntry:
        """A new streaming reply segment; feed it with `append()` and end it with `finish()`."""
        return self._add(ReplyEntry())

    def start_reasoning(self) -> ReasoningEntry:
        """A new streaming reasoning block (collapsed); feed it with `append()`, end with `finish()`."""
        return self._add(ReasoningEntry())

    def add_tool_panel(self, call_id: str, name: str, index: int = 0) -> ToolCallEntry:
        """A tool call's entry, placed in the model's call order among the current call's.

        Idempotent per `call_id`: a second call returns the existing entry.
        """
        if call_id and (existing := self.model.tool_call(call_id)) is not None:
            return existing
        return self._add(self.factory.tool_call(call_id, name, index), at=self.model.call_position(index))

    def set_tool_icons(self, icons: Mapping[str, str]) -> None:
        """The icon table changed (a theme, the session's plugins): new panels and those shown use it."""
        self.tool_icons = icons
        self.model.set_tool_icons(icons)

    def tool_panel(self, call_id: str, *, index: int | None = None) -> ToolCallEntry | None:
        """The entry of call `call_id`; with `index`, also one made without an id at that index (its id is
        then set to `call_id`)."""
        return self.model.tool_call(call_id, index=index)

    def toggle_panel(self) -> ToolCallEntry | None:
        """Expand or collapse the panel under the cursor (when the transcript has the focus), else the
        latest one with a body; the panel, if any."""
        cursor = self.cursor.entry if self.has_focus else None
        panel = cursor if isinstance(cursor, ToolCallEntry) else self.model.latest_call_with_body()
        if panel is None or not panel.set_expanded(not panel.expanded):
            return None
        if panel.expanded:
            self.scroll_to_entry(panel)
        return panel

    def toggle_last_turn_panels(self) -> int:
        """Expand every panel of the last turn if any is collapsed, else collapse them all; how many
        changed (0: the last turn has no panel with a body)."""
        return self.model.toggle_last_turn_calls()

    def add_notice(
        self, kind: str, text: str, hint: str | None = None, *, multiline: bool = False
    ) -> NoticeEntry:
        """A notice (info, warn, retry, error, interrupted, success); `multiline` for a listing."""
        return self._add(NoticeEntry(kind, text, hint=hint, multiline=multiline))

    def show_spinner(self) -> ThinkingLine:
        """Show the thinking line below the last entry and start it."""
        self._spinner.display = True
        self._spinner.start()
        self.motion.sync()
        return self._spinner

    def hide_spinner(self) -> None:
        """Stop and hide the thinking line."""
        self._spinner.stop()
        self._spinner.display = False

    @property
    def spinner(self) -> ThinkingLine:
        return self._spinner

    @property
    def entries(self) -> Sequence[Entry]:
        """Every entry, oldest first."""
        return self.model.entries

    def entries_of(self, kind: type[E]) -> list[E]:
        """The entries of one kind, oldest first."""
        return self.model.of_kind(kind)

    def records(self) -> list[TranscriptRecord]:
        """Every entry as plain data, oldest first (for export/copy and tests)."""
        return self.model.records()

    def mark_rewound(self, from_user: int) -> int:
        """A rewind: the `from_user`-th live user message and every entry after it drawn dimmed from now on
        (`TranscriptModel.mark_rewound`); how many entries that marked."""
        start, marked = self.model.mark_rewound(from_user)
        if marked:
            self._drawn.forget(self.model.heights.offset(start))
            self.refresh()
        return marked

    def load_history(self, records: Iterable[TranscriptRecord]) -> Awaitable[None]:
        """Replace the transcript with a stored session and show its end. Entries added right after the
        call follow the history. (Awaitable for callers written against a slower past; done at once.)"""
        self._reset()
        entries = self.factory.from_records(records)
        for entry in entries:
            entry.attach(self.painter)
            self.motion.add(entry)
        self.model.extend(entries)
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
        self._set_scroll(self.max_scroll_y)
        return _DONE

    def scroll_to_first(self) -> None:
        """Jump to the first entry (the view stops following)."""
        self._following = False
        self._set_scroll(0)

    def action_go(self, where: str) -> None:
        self.go(where)

    def go(self, where: str) -> None:
        """Where PageUp/PageDown and Home/End (and the prompt's PageUp/PageDown, Ctrl+Home/Ctrl+End) send
        the view: `page_up`, `page_down`, `first`, `latest`."""
        if where == "first":
            self.scroll_to_first()
        elif where == "latest":
            self.scroll_to_latest()
        else:
            self.page(-1 if where == "page_up" else 1)

    def page(self, direction: int) -> None:
        """Scroll a page up (-1) or down (1)."""
        height = max(1, self.rows - 1)
        self.scroll_to(y=self.scroll_y + direction * height, animate=False, immediate=True)

    def scroll_to_entry(self, entry: Entry) -> None:
        """Bring `entry` into view (its top, or as much of it as fits)."""
        target = self.model.reveal(entry, self.scroll_y, self.rows)
        if target is not None:
            self._following = False
            self._set_scroll(target)

    # ----------------------------------------------------------------------------------------- the cursor

    @property
    def cursor_entry(self) -> Entry | None:
        """The entry under the keyboard cursor (shown while the transcript has the focus)."""
        return self.cursor.entry

    def select(self, entry: Entry) -> None:
        """Put the keyboard cursor on `entry` (shown while the transcript has the focus)."""
        self.cursor.select(entry)

    def row_of(self, entry: Entry) -> int | None:
        """The row of the view where `entry`'s first line (after its gap) is, if it is in view."""
        index = self.model.position(entry)
        if index is None:
            return None
        row = self.model.heights.offset(index) + entry.gap - int(self.scroll_y)
        return row if 0 <= row < self.rows else None

    def action_cursor(self, direction: int) -> None:
        """Up (-1) / Down (1): the previous or next entry that opens or can be copied."""
        self.cursor.step(direction)

    def action_toggle_cursor(self) -> None:
        entry = self.cursor.entry
        if entry is None:
            return
        if entry.toggle() and isinstance(entry, ToolCallEntry) and entry.expanded:
            self.scroll_to_entry(entry)

    def action_activate_cursor(self) -> None:
        """Enter: open or close the entry under the cursor; one that does not open (a message) is copied."""
        entry = self.cursor.entry
        if entry is not None and entry.can_toggle:
            self.action_toggle_cursor()
        else:
            self.action_copy_cursor()

    def action_copy_cursor(self) -> None:
        """`y`: the entry under the cursor to the terminal's clipboard (OSC 52), whole, as the Ctrl+C copy
        of a selection does."""
        entry = self.cursor.entry
        text = entry.copy_text if entry is not None else ""
        if not text:
            self.notify("Nothing to copy here", timeout=timing.COPY_TOAST)
            return
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {len(text):,} characters", timeout=timing.COPY_TOAST)

    @on(events.Focus)
    @on(events.Blur)
    def _cursor_shows_with_focus(self) -> None:
        self.refresh()

    # ----------------------------------------------------------------------------------------- mouse

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if self.new_output_shown and offset.y >= self.rows:
            event.stop()
            self.scroll_to_latest()
            return
        heights = self.model.heights
        y = int(self.scroll_y) + offset.y
        index = heights.index_at(y)
        if index < 0 or y >= heights.total:
            return
        entry = self.model[index]
        line = y - heights.offset(index) - entry.gap
        if line >= 0 and entry.click(line, offset.x - self.MARGIN):
            event.stop()
            if self.has_focus:
                self.cursor.move_to(index)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        return self._selection.text(selection)

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()

    # ----------------------------------------------------------------------------------------- entries' owner

    def input_pending(self) -> bool:
        pending: Callable[[], bool] | None = getattr(self.app, "input_pending", None)
        return bool(pending is not None and pending())

    def entry_changed(self, entry: Entry, first: int = 0, last: int | None = None) -> None:
        """`entry`'s content lines from `first` (to `last`) changed, its height perhaps too (the painter's
        report)."""
        model = self.model
        index = model.position(entry)
        if index is None or model.width <= 0:
            if index is not None:
                self.refresh()
            return
        top = model.heights.offset(index)
        bottom = top + model.heights.height(index)
        delta = model.measure(index, force=True)
        gap = entry.gap
        if delta:
            if not self._following and bottom <= self.scroll_y:
                self._set_scroll(self.scroll_y + delta)  # above the view: what the user reads stays put
            self._changed_height(from_line=top + gap + first)
            self._note_new_output(top + model.heights.height(index))
            return
        height = model.heights.height(index) - gap - first
        count = height if last is None else min(height, last - first)
        if count > 0:
            self._drawn.forget(top + gap + first, top + gap + first + count)
            self.refresh_lines(top + gap + first, count)
            self._note_new_output(top + gap + first + count)

    def remove_entry(self, entry: Entry) -> None:
        """Take `entry` out (a withdrawn stream)."""
        index = self.model.remove(entry)
        if index is None:
            return
        entry.detach()
        self.motion.discard(entry)
        self.cursor.removed(index)
        self._changed_height(from_line=self.model.heights.offset(index) if index < len(self.model) else 0)

    # ----------------------------------------------------------------------------------------- Textual

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.painter.styles_updated()  # looked at before the next paint (component styles come after this)
        self.refresh()

    def call_after(self, delay: float, callback: Callable[[], object]) -> asyncio.TimerHandle:
        """The pacer's one-shot: asyncio's timer, which runs late rather than never. Textual 8.2.8's
        `set_timer` skips the only tick of a one-shot that starts later than its delay, so on a loaded
        machine a reply's next render was sometimes never scheduled again, and a delay of 0 raised
        ZeroDivisionError in the timer's task. Like Textual's timer, it calls `callback` at once, not
        behind this widget's queued messages (a burst's renders would wait for its drains)."""
        return asyncio.get_running_loop().call_later(max(0.0, delay), self._deadline, callback)

    def _deadline(self, callback: Callable[[], object]) -> None:
        try:
            callback()
        except Exception as error:  # raised again where Textual's handlers report it (the app's crash path)
            self.call_next(_raise, error)

    def on_mount(self) -> None:
        self._spinner.animation_level = self.app.animation_level
        self.pacer.start()

    def on_unmount(self) -> None:
        self.pacer.stop()
        for entry in self.model.entries:
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
        base, selection = self.painter.base_style, self.text_selection
        drawn_width = self._drawn_width
        strips: list[Strip] = []
        for y in crop.line_range:
            strip = self._row(y, base, drawn_width, region.height, selection)
            for line_filter in filters:
                strip = strip.apply_filter(line_filter, background)
            strips.append(strip if full else strip.crop(x1, x2))
        return strips

    @property
    def rows(self) -> int:
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
        return self._row(y, self.painter.base_style, self._drawn_width, region.height, self.text_selection)

    def _row(self, y: int, base: Style, full: int, view: int, selection: Selection | None) -> Strip:
        """Row `y` of the view, `full` cells wide (`view` rows tall), the margins drawn here."""
        model = self.model
        width = model.width or max(1, full - 2 * self.MARGIN)
        if y >= view - self.MARGIN:  # the margin above the prompt, where "↓ new output" shows
            if self.new_output_shown:
                return self.painter.bar(self.NEW_OUTPUT, full)
            return Strip(blank_line(full, base), full)
        canvas_y = int(self.scroll_y) + y
        drawn = self._drawn.get(canvas_y)
        if drawn is not None and selection is None and not self.cursor.shown_at(canvas_y):
            return drawn  # the view scrolled: the same canvas line, drawn before
        heights = model.heights
        total = heights.total
        line: Line | None = None
        cursor = False
        rewound = False
        if canvas_y < total:
            index = heights.index_at(canvas_y)
            if not heights.is_exact(index):
                model.measure(index)
                total = heights.total
            entry = model[index]
            offset = canvas_y - heights.offset(index)
            if offset < heights.height(index):
                line = entry.line(offset, width)
                cursor = self.has_focus and offset >= entry.gap and entry is self.cursor.entry
                rewound = entry.rewound and offset >= entry.gap
        elif self._spinner.display and canvas_y - total == 1:
            line = pad_line(self._spinner.line(width - 2), width, 1, 1, base)
        segments: Line = line or blank_line(width, base)
        if rewound:
            segments = tuple(Segment.apply_style(segments, post_style=self.painter.rewound_style()))
        if cursor:
            segments = tuple(Segment.apply_style(segments, post_style=self.painter.cursor_style()))
        margin = (Segment(" " * self.MARGIN, base),)
        strip = Strip((*margin, *segments, Segment(" " * max(0, full - width - self.MARGIN), base)), full)
        plain = not cursor and canvas_y < total
        if selection is not None and (span := selection.get_span(canvas_y)) is not None:
            strip = self._selection.paint(strip, *span)
            plain = False
        strip = strip.apply_offsets(0, canvas_y)
        if plain:
            if len(self._drawn) >= self.DRAWN_KEPT:
                self._drawn.clear()
            self._drawn[canvas_y] = strip
        return strip

    # ----------------------------------------------------------------------------------------- internals

    def _spinner_changed(self) -> None:
        self.motion.sync()
        if not self.is_mounted:
            return
        shown = self.virtual_size.height > self.model.heights.total + self.MARGIN
        if self._spinner.display != shown:
            self._changed_height()
        elif self._spinner.display:
            self.motion.thinking_moved()

    def _add(self, entry: E, *, at: int | None = None) -> E:
        entry.attach(self.painter)
        model = self.model
        position = model.insert(entry, at)
        self.motion.add(entry)
        model.regroup(position, position + 2)
        if at is not None:
            self.cursor.inserted(position)
        self._changed_height(from_line=model.heights.offset(position))
        self._note_new_output(model.heights.offset(position) + model.heights.height(position))
        self.motion.sync()
        return entry

    def _note_new_output(self, end: int) -> None:
        """Output changed below the view while the user reads above: the bar says so. `end` is the canvas
        line after the change: a reply whose first lines are in view grows below it too (a wheel notch up
        mid-stream), so what counts is where the change ends, not where its entry starts."""
        if self._following or self._new_output or not self.is_mounted:
            return
        if end > self.scroll_y + self.rows:
            self._new_output = True
            self.refresh_lines(int(self.scroll_y) + self.rows)

    def _reset(self) -> None:
        self._drawn.forget(0)
        for entry in self.model.clear():
            entry.detach()
        self.motion.clear()
        self.cursor.index = None
        self._new_output = False

    def _set_scroll(self, y: float) -> None:
        """Move the view (not a user's scroll)."""
        if not self.is_mounted:
            return
        self._scrolling = True
        try:
            self.scroll_to(y=y, animate=False, immediate=True, force=True)
        finally:
            self._scrolling = False

    def _changed_height(self, from_line: int = 0) -> None:
        """The canvas changed height: a new virtual size, the view kept at the bottom while following."""
        self._drawn.forget(from_line)
        self._set_canvas_height()
        if self._following and self.scroll_y != self.max_scroll_y:
            self._set_scroll(self.max_scroll_y)  # the scroll repaints the whole view (`watch_scroll_y`)
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
        size = Size(max(self.model.width, 1), self.model.heights.total + spinner + self.MARGIN)
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
        if self.scrollable_content_region.width <= 0:
            return
        model = self.model
        if self.painter.restyle():  # a new style generation: every line is drawn again
            self._drawn.forget(0)
            for entry in model.entries:
                entry.on_style_change()
        view = max(1, self.scrollable_content_region.height)
        anchor = None if self._following else model.heights.anchor_at(int(self.scroll_y))
        changed = model.relayout(self.entry_width)
        if not len(model):
            if changed:
                self._changed_height()
            return
        top = (
            None
            if self._following
            else model.heights.y_of(anchor)
            if anchor is not None
            else int(self.scroll_y)
        )
        changed |= model.settle(view, top=top, screens=self.SETTLE_SCREENS)
        changed |= self._set_canvas_height()
        if self._following:
            if self.scroll_y != self.max_scroll_y:
                self._set_scroll(self.max_scroll_y)
        elif anchor is not None:
            target = model.heights.y_of(anchor)
            if target != int(self.scroll_y):
                self._set_scroll(target)
                changed = True
        if changed:
            self.refresh()


def _raise(error: Exception) -> None:
    raise error

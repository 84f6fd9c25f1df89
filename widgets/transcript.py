"""The scrolling transcript: owns the entries, sticks to the bottom, and keeps the widget count bounded.

Why it is built this way (design.md §9, textual8.md §5):

- Layout cost grows with the number of mounted widgets, not with bytes. So every entry is ~1 widget (a
  reply is one line-cached `AssistantMessage`, streaming or finished), and only a window of about
  `MAX_MOUNTED` entries around the view is mounted. The entries outside it are kept as plain
  `TranscriptRecord`s behind two placeholder lines: "↑ N earlier entries" at the top and "↓ N later
  entries" below the window. Scrolling near either placeholder (or activating it) re-mounts the next
  `PAGE_SIZE` entries on that side and unmounts as many from the far side, so a page costs the same at
  the first message as at the last. Which entries go is decided by `widgets/transcript_window.py` from
  plain data (what the last layout said about each entry), testable without a screen; this widget turns
  its `Cut`s into records and removals. The view never jumps: the scroll offset is corrected in the same
  layout pass that moves the entries (`arrange`, with `corrected_scroll()`).
- Live entries (a streaming reply, a running tool panel) are never unmounted: when the user scrolls up
  while a turn runs, the live end of the transcript stays mounted below the "↓ later" placeholder (the
  "tail") and only the finished entries between are unmounted.
- `layout: stream` (the fast vertical layout for chat transcripts) and `anchor()`: the view follows new
  content while the user is at the bottom, stops following when they scroll up, and `scroll_to_latest()`
  (or End, or the "↓ new output" bar) goes back and follows again; from far up it re-mounts only the last
  page and keeps everything before it as records.
- A resumed session mounts only its last `HISTORY_TAIL` entries (`load_history`).
- Nothing the user could scroll to is lost: every entry is either mounted or one page-load away, and
  `records()` returns all of them in order.

The sequence of entries is always `_archived` (records) + `_mounted` (the window) + `_later` (records) +
`_tail` (mounted live end); `_tail` is empty whenever `_later` is.

The transcript renders; it never drives the agent. The app calls `add_user`, `start_assistant`,
`start_reasoning`, `add_tool_panel`, `add_notice`, `show_spinner`/`hide_spinner` from its event handlers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Generator, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import chain
from typing import ClassVar, Literal, Protocol, TypeVar

from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.geometry import Region, Size
from textual.layout import DockArrangeResult
from textual.scrollbar import ScrollBar
from textual.widget import Widget

from widgets.assistant_message import AssistantMessage
from widgets.markdown_view.view import LineView
from widgets.notice import NoticeLine
from widgets.reasoning import ReasoningBlock
from widgets.spinner import Spinner
from widgets.tool_panel import ToolPanel
from widgets.transcript_markers import EarlierEntries, EntriesPlaceholder, LaterEntries, NewOutputIndicator
from widgets.transcript_part import TranscriptPart
from widgets.transcript_record import EntryKind, TranscriptRecord
from widgets.transcript_window import (
    Cut,
    Entry,
    WindowState,
    corrected_scroll,
    plan_bottom,
    plan_prune,
    plan_top,
)
from widgets.user_message import UserMessage

__all__ = [
    "EarlierEntries",
    "EntriesPlaceholder",
    "EntryKind",
    "LaterEntries",
    "NewOutputIndicator",
    "Transcript",
    "TranscriptRecord",
]

W = TypeVar("W", bound=Widget)


class _Done:
    """An awaitable that is already complete (needs no event loop, unlike `AwaitComplete.nothing()`)."""

    def __await__(self) -> Generator[None, None, None]:
        return
        yield


_DONE = _Done()


class BusyCollector(Protocol):
    """The garbage collector's pause while the UI is busy (the app's `TurnCollector`): page loads are busy.

    Each page mounts widgets that outlive it, which is what triggers the collector's full passes (0.4 s
    each over a long session); with this they wait until the user has stopped scrolling."""

    def pause(self, holder: str = ...) -> None: ...

    def resume(self, later: Callable[[Callable[[], None]], object], holder: str = ...) -> None: ...


class Transcript(VerticalScroll, can_focus=True):
    """The conversation: user messages, replies, reasoning, tool panels, notices and a spinner at the end."""

    FOCUS_ON_CLICK = False  # a click acts on it; the keyboard stays with the prompt (Tab navigates here)

    DEFAULT_CSS = """
    Transcript {
        layout: stream;
        height: 1fr;
        padding: 0 1 1 1;
        scrollbar-size-vertical: 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("end", "scroll_to_latest", "Latest", show=False),
    ]

    BLANK: ClassVar[bool] = True  # the container draws nothing itself (textual 7.1+ fast path)

    MAX_MOUNTED: ClassVar[int] = 150
    """At most about this many entries are mounted; the ones farthest from the view are unmounted first."""
    PAGE_SIZE: ClassVar[int] = 50
    """Entries re-mounted per page when scrolling up or down; also the pruning hysteresis."""
    FOLLOW_MOUNTED: ClassVar[int] = 30
    """While the view follows the bottom, at most about this many entries stay mounted (then down to
    `PAGE_SIZE / 2` fewer, but never the last two screens). Only the last screen is in view, and every
    layout (each time a streaming reply grows) costs in proportion to the mounted widgets: at the 301st
    turn with 50-75 mounted, layout was a fifth of the UI thread while a reply streamed. Scrolling up
    re-mounts pages as usual, up to `MAX_MOUNTED`."""
    HISTORY_TAIL: ClassVar[int] = 50
    """Entries a resumed session mounts up front (and `scroll_to_latest` from far up)."""
    LOAD_MARGIN: ClassVar[int] = 3
    """Load the next page when the view is within this many lines of a placeholder."""

    PAGES_AT_REST: ClassVar[float] = 1.0
    """Seconds without a page load after which the collector may run again (see `BusyCollector`)."""

    expand_diffs: bool = True
    """File edits' panels open with their diff shown (the `display.expand_diffs` setting)."""
    collector: BusyCollector | None = None
    """Told when pages load, if set (the chat screen sets it)."""

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._archived: list[TranscriptRecord] = []  # before the window
        self._mounted: list[Widget] = []  # the window
        self._later: list[TranscriptRecord] = []  # after the window
        self._tail: list[Widget] = []  # the live end, mounted below the "later" placeholder
        self._panels: dict[str, ToolPanel] = {}
        self._placeholder = EarlierEntries()
        self._later_placeholder = LaterEntries()
        self._spinner = Spinner()
        self._indicator = NewOutputIndicator()
        self._loading = False  # a page load was requested and has not finished (debounces scroll events)
        self._jumps = 0  # `scroll_to_latest` jumps so far: a page asked for before one is not loaded
        self._window_lock = asyncio.Lock()  # one window change at a time
        self._prune_scheduled = False
        self._composed = False
        self._deferred: list[Widget] = []  # added after compose but before the spinner was mounted
        self._pending_view: tuple[Widget, int] | None = None  # (entry, its y before entries moved)
        self._placed: dict[Widget, Region] = {}  # where the last layout put each child (virtual coordinates)
        self._arranged_width = 0  # the width of the last layout (a new one lets entries out of view estimate)

    # ----------------------------------------------------------------------------------------- app API

    def add_user(self, text: str, images: Sequence[str] = ()) -> UserMessage:
        """Show the user's message (`images`: badge labels), and follow the bottom again (the user acted)."""
        message = UserMessage(text, images=images)
        self._add(message)
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
        panel = ToolPanel(call_id, name, index, expand_diffs=self.expand_diffs)
        if call_id:
            self._panels[call_id] = panel
        before = self._panel_successor(index)
        if before is None:
            self._add(panel)
        else:
            self._add(panel, before=before)
        self._regroup_tail_panels()
        return panel

    def tool_panel(self, call_id: str, *, index: int | None = None) -> ToolPanel | None:
        """The mounted panel for `call_id`; with `index`, also a panel created without an id at that index
        (its id is then set to `call_id`)."""
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
        """The mounted tool panels of the last turn: those after the last user message at the live end."""
        panels: list[ToolPanel] = []
        for widget in reversed(self._live_end):
            if isinstance(widget, UserMessage):
                break
            if isinstance(widget, ToolPanel):
                panels.append(widget)
        panels.reverse()
        return panels

    def latest_panel(self) -> ToolPanel | None:
        """The newest mounted tool panel with something to show below its header."""
        for widget in reversed([*self._mounted, *self._tail]):
            if isinstance(widget, ToolPanel) and widget.has_body:
                return widget
        return None

    def toggle_panel(self, focused: Widget | None) -> ToolPanel | None:
        """Expand or collapse the panel in focus, else the latest one with a body; the panel, if any."""
        panel = focused if isinstance(focused, ToolPanel) else self.latest_panel()
        if panel is None or not panel.set_expanded(not panel.expanded):
            return None
        if panel.expanded:
            self.call_after_refresh(panel.scroll_visible, animate=False)
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
        """A one-line notice (info, warn, retry, error, interrupted, success); `multiline` for a listing."""
        return self._add(NoticeLine(kind, text, hint=hint, multiline=multiline))

    def show_spinner(self) -> Spinner:
        """Show the thinking spinner at the end of the transcript and start it."""
        self._spinner.display = True
        self._spinner.start()
        return self._spinner

    def hide_spinner(self) -> None:
        """Stop and hide the spinner."""
        self._spinner.stop()
        self._spinner.display = False

    @property
    def spinner(self) -> Spinner:
        return self._spinner

    def scroll_to_latest(self) -> Awaitable[None]:
        """Jump to the newest content and follow it again.

        When the user had scrolled far up (later entries are unmounted), the last page is re-mounted and
        everything before it becomes earlier records. Optionally await the result to know the jump is done.
        """
        if not self.is_mounted:
            return _DONE  # on_mount anchors
        self._indicator.remove_class("-visible")
        self._pending_view = None
        if not self.is_anchored:
            self.anchor()
        self.scroll_end(animate=False, immediate=False)  # also re-engages a released anchor at once
        if self._later:
            return AwaitComplete(self._jump_to_latest())
        return _DONE

    def action_scroll_to_latest(self) -> None:
        self.scroll_to_latest()

    @property
    def is_following(self) -> bool:
        """True while the view sticks to the bottom (anchored and not released by the user scrolling up)."""
        return self.is_anchored and not self.anchor_released()

    def anchor_released(self) -> bool:
        """The user scrolled away from the anchored bottom. Textual 8.2.8 has no public accessor
        (`is_anchored` stays True): where `textual_compat` is active it reads Textual's own flag; here,
        the view is released when it is not at the bottom."""
        return self.scroll_y < self.max_scroll_y

    def follow_at_bottom(self) -> None:
        """Anchored but released: follow again once the user reaches the bottom, without scrolling there.
        Plain Textual has no way to say it (`anchor()` scrolls to the end): where `textual_compat` is
        active it sets Textual's flags; here, End or the "↓ new output" bar follows again."""

    def list_grown_entries(self) -> None:
        """Before a layout: make sure it re-measures every entry whose inside changed. Plain Textual lists
        only those that asked; `textual_compat.stream_layout` adds those whose child asked first (Textual
        8.2.8's `Screen._on_layout` misses them, and an expanded panel kept its old height)."""

    @property
    def entry_count(self) -> int:
        """All entries, mounted or kept as records."""
        return len(self._archived) + len(self._mounted) + len(self._later) + len(self._tail)

    @property
    def mounted_entry_count(self) -> int:
        """Entries currently mounted as widgets."""
        return len(self._mounted) + len(self._tail)

    @property
    def archived_entry_count(self) -> int:
        """Entries kept as plain records behind the placeholders (earlier and later ones)."""
        return len(self._archived) + len(self._later)

    @property
    def earlier_entry_count(self) -> int:
        """Entries kept as records above the mounted ones (behind "↑ N earlier entries")."""
        return len(self._archived)

    @property
    def later_entry_count(self) -> int:
        """Entries kept as records below the mounted window (behind "↓ N later entries")."""
        return len(self._later)

    def records(self) -> list[TranscriptRecord]:
        """Every entry as plain data, oldest first (for export/copy and tests)."""
        return [
            *self._archived,
            *self._records_of(self._mounted),
            *self._later,
            *self._records_of(self._tail),
        ]

    def load_history(self, records: Iterable[TranscriptRecord]) -> AwaitComplete:
        """Replace the transcript with a stored session: mount only the last `HISTORY_TAIL` entries, keep
        the rest behind the placeholder. Await it to know the tail is mounted.

        The entries are replaced at once; entries added right after the call (before it is awaited) follow
        the history."""
        records = list(records)
        tail = records[-self.HISTORY_TAIL :] if self.HISTORY_TAIL > 0 else []
        stale = self._reset()
        self._archived = records[: len(records) - len(tail)]
        widgets = self._widgets_from_records(tail)
        self._mounted = widgets
        self._regroup(self._mounted, 0, len(widgets))
        self._update_counts()
        return AwaitComplete(self._replace_history(stale, widgets))

    async def _replace_history(self, stale: list[Widget], widgets: list[Widget]) -> None:
        with self._collector_waits():
            await self._replace(stale, widgets, follow=True)

    def clear(self) -> AwaitComplete:
        """Remove every entry (a new session). Entries added right after the call are kept."""
        stale = self._reset()
        self._update_counts()
        return AwaitComplete(self._replace(stale, [], follow=False))

    def load_earlier(self) -> AwaitComplete:
        """Re-mount the previous page of unmounted entries (what scrolling to the top does)."""
        return AwaitComplete(self._load_page("earlier"))

    def load_later(self) -> AwaitComplete:
        """Re-mount the next page of entries unmounted below the view (what scrolling down to the "↓ later
        entries" placeholder does)."""
        return AwaitComplete(self._load_page("later"))

    # ----------------------------------------------------------------------------------------- lifecycle

    def compose(self) -> ComposeResult:
        self._composed = True
        yield self._placeholder
        yield from self._mounted  # entries the app added before the transcript was mounted
        yield self._later_placeholder
        yield self._spinner
        yield self._indicator

    def on_mount(self) -> None:
        self._spinner.display = False
        if self._deferred:
            deferred, self._deferred = self._deferred, []
            for widget in deferred:
                if widget in self._mounted:
                    entries = self._mounted
                elif widget in self._tail:
                    entries = self._tail
                else:
                    continue  # cleared meanwhile
                position = entries.index(widget)
                following = entries[position + 1 :]
                anchor = next((w for w in following if w.parent is self), self._spinner)
                self.mount(widget, before=anchor)
        self.anchor()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if not self._loading and not self.is_following:
            if self._archived and new_value <= self.LOAD_MARGIN:
                self._request_page("earlier")
            elif self._later and self._near_later_placeholder(new_value):
                self._request_page("later")
        if self.is_following and self._indicator.has_class("-visible"):
            self._indicator.remove_class("-visible")

    def on_earlier_entries_activated(self, message: EarlierEntries.Activated) -> None:
        message.stop()
        self._request_page("earlier")

    def on_later_entries_activated(self, message: LaterEntries.Activated) -> None:
        message.stop()
        self._request_page("later")

    def on_new_output_indicator_activated(self, message: NewOutputIndicator.Activated) -> None:
        message.stop()
        self.scroll_to_latest()

    # ----------------------------------------------------------------------------------------- entries

    @property
    def _live_end(self) -> list[Widget]:
        """The mounted list new entries are appended to: the tail while there is a gap, else the window."""
        return self._tail if self._later else self._mounted

    def _add(self, widget: W, *, before: Widget | None = None) -> W:
        entries = self._live_end
        if before is not None and before.parent is not self and self._spinner.parent is self:
            before = None  # not mounted yet (a history still being mounted): the new entry goes last
        if before is not None and before in entries:
            entries.insert(entries.index(before), widget)
        else:
            before = None
            entries.append(widget)
        if not self._composed:
            return widget  # compose() yields it
        if self._spinner.parent is not self:
            self._deferred.append(widget)  # on_mount() mounts it
            return widget
        self.mount(widget, before=before if before is not None else self._spinner)
        if not self.is_following:
            self._indicator.add_class("-visible")
        self._schedule_prune()
        return widget

    def _current_panels(self) -> list[ToolPanel]:
        """The trailing run of tool panels of the current model call (indices strictly increasing)."""
        panels: list[ToolPanel] = []
        for widget in reversed(self._live_end):
            if not isinstance(widget, ToolPanel):
                break
            if panels and widget.index >= panels[-1].index:
                break
            panels.append(widget)
        panels.reverse()
        return panels

    def _panel_successor(self, index: int) -> ToolPanel | None:
        """The current-call panel the new panel must go before to keep call order, if any."""
        for panel in self._current_panels():
            if panel.index > index:
                return panel
        return None

    def _regroup_tail_panels(self) -> None:
        """Consecutive tool panels sit together (no blank line between them)."""
        entries = self._live_end
        self._regroup(entries, max(0, len(entries) - 12), len(entries))

    @staticmethod
    def _regroup(entries: list[Widget], start: int, end: int) -> None:
        start, end = max(0, start), min(len(entries), end)
        previous = entries[start - 1] if start > 0 else None
        for widget in entries[start:end]:
            if isinstance(widget, ToolPanel):
                widget.set_class(isinstance(previous, ToolPanel), "-grouped")
            previous = widget

    @staticmethod
    def _is_finished(widget: Widget) -> bool:
        if isinstance(widget, AssistantMessage | ReasoningBlock | ToolPanel):
            return widget.is_finished
        return True

    @staticmethod
    def _record_of(widget: Widget) -> TranscriptRecord | None:
        """The plain-data record of a mounted entry (None for an empty reply: nothing to show)."""
        if isinstance(widget, UserMessage):
            return TranscriptRecord("user", widget.text, expanded=widget.expanded, images=widget.images)
        if isinstance(widget, AssistantMessage):
            text = widget.text
            return TranscriptRecord("assistant", text) if text.strip() else None
        if isinstance(widget, ReasoningBlock):
            return TranscriptRecord("reasoning", widget.text, expanded=widget.expanded)
        if isinstance(widget, ToolPanel):
            return TranscriptRecord("tool", tool=widget.snapshot())
        if isinstance(widget, NoticeLine):
            return TranscriptRecord("notice", widget.text, notice_kind=widget.kind, hint=widget.hint)
        return None

    @classmethod
    def _records_of(cls, widgets: Iterable[Widget]) -> list[TranscriptRecord]:
        return [record for widget in widgets if (record := cls._record_of(widget)) is not None]

    def _widget_from_record(self, record: TranscriptRecord) -> Widget:
        """A finished (~1 widget) entry for a record."""
        if record.kind == "user":
            message = UserMessage(record.text, images=record.images)
            message.set_reactive(UserMessage.expanded, record.expanded)
            return message
        if record.kind == "assistant":
            return AssistantMessage(record.text, finished=True)
        if record.kind == "reasoning":
            return ReasoningBlock(record.text, finished=True, expanded=record.expanded)
        if record.kind == "tool" and record.tool is not None:
            return ToolPanel.from_snapshot(record.tool, expand_diffs=self.expand_diffs)
        # Only a multi-line notice keeps a newline in its text.
        return NoticeLine(record.notice_kind, record.text, hint=record.hint, multiline="\n" in record.text)

    def _widgets_from_records(self, records: list[TranscriptRecord], *, page: bool = False) -> list[Widget]:
        """`page`: a page of history above or below the view (`TranscriptPart.from_history_page`)."""
        widgets = [self._widget_from_record(record) for record in records]
        for widget in widgets:
            if isinstance(widget, ToolPanel) and widget.call_id:
                self._panels.setdefault(widget.call_id, widget)
            if page and isinstance(widget, TranscriptPart):
                widget.from_history_page = True
        return widgets

    def _archive(self, widgets: list[Widget]) -> list[TranscriptRecord]:
        """The records of entries about to be unmounted (and forget their panels)."""
        for widget in widgets:
            if isinstance(widget, ToolPanel) and self._panels.get(widget.call_id) is widget:
                del self._panels[widget.call_id]
        return self._records_of(widgets)

    def _update_counts(self) -> None:
        self._placeholder.count = len(self._archived)
        self._later_placeholder.count = len(self._later)

    # ----------------------------------------------------------------------------------------- window

    @property
    def _viewport_height(self) -> int:
        return self.scrollable_content_region.height

    def _view_reference(self) -> tuple[Widget, int] | None:
        """The topmost entry in view and where it is now: what must not move on screen."""
        top = self.scroll_y
        last: tuple[Widget, int] | None = None
        for widget in chain(self._mounted, self._tail):
            region = self._placed.get(widget)
            if region is None or not region.height:
                continue  # not laid out yet, or an empty reply
            last = (widget, region.y)
            if region.bottom > top:
                return last
        return last

    def _window_state(self) -> WindowState:
        """The mounted entries as the window planner sees them (from the last layout)."""

        def entry(widget: Widget) -> Entry:
            region = self._placed.get(widget)
            return Entry(
                self._is_finished(widget),
                None if region is None else region.y,
                None if region is None else region.bottom,
                bool(widget.display),
            )

        return WindowState(
            [entry(widget) for widget in self._mounted],
            [entry(widget) for widget in self._tail],
            later=len(self._later),
            scroll_y=self.scroll_y,
            max_scroll_y=self.max_scroll_y,
            viewport=self._viewport_height,
            max_mounted=self.MAX_MOUNTED,
        )

    def _near_later_placeholder(self, scroll_y: float) -> bool:
        region = self._placed.get(self._later_placeholder)
        if region is None:
            return False  # not laid out yet: its position is unknown
        return region.y - (scroll_y + self._viewport_height) <= self.LOAD_MARGIN

    async def _settled_plan(self, plan: Callable[[WindowState], Cut]) -> Cut:
        """`plan()`, after finishing the forgotten live entries it picked (then planned again, since
        entries may have been added meanwhile). Nothing may be awaited between this and `_cut`."""
        cut = plan(self._window_state())
        if cut.unfinished:
            forgotten = [(self._tail if side == "tail" else self._mounted)[i] for side, i in cut.unfinished]
            for widget in forgotten:
                await self._force_finish(widget)
            cut = plan(self._window_state())
        return cut

    def _cut(self, cut: Cut) -> list[Widget]:
        """Move the planned entries from the mounted lists into the records; returns them (still mounted)."""
        window = self._mounted
        top = window[: cut.top]
        start = cut.split - cut.bottom
        upper, opening, lower = window[cut.top : start], window[start : cut.split], window[cut.split :]
        tail_victims = self._tail[: cut.tail]
        if top:
            self._archived.extend(self._archive(top))
        if opening or tail_victims:
            opens = not self._later
            self._later = [*self._archive(opening), *self._later, *self._archive(tail_victims)]
            self._mounted = upper
            self._tail = [*lower, *self._tail[cut.tail :]]
            if not self._later:  # only empty replies went (they leave no record): no gap after all
                self._close_gap()
            elif opens:
                # The gap opens: its placeholder goes where the entries were, and the view stops following
                # (there are newer entries than the ones mounted above the gap).
                self.move_child(
                    self._later_placeholder, before=self._tail[0] if self._tail else self._spinner
                )
                self.anchor(False)
        else:
            self._mounted = window[cut.top :]
        self._update_counts()
        return [*top, *opening, *tail_victims]

    def _close_gap(self) -> None:
        """The last later records were re-mounted: the tail joins the window and following can resume."""
        boundary = len(self._mounted)
        self._mounted.extend(self._tail)
        self._tail = []
        self._regroup(self._mounted, boundary, boundary + 1)
        if self.is_anchored:
            return  # no gap was open (or following was already restored)
        self.follow_at_bottom()

    def _mount_limits(self) -> tuple[int, int]:
        """(prune above, prune down to) for the current view: tighter while following the bottom."""
        limit, target = self.MAX_MOUNTED, self.MAX_MOUNTED - self.PAGE_SIZE
        if self.is_mounted and self.is_following and limit > self.FOLLOW_MOUNTED:
            limit, target = self.FOLLOW_MOUNTED, min(target, self.FOLLOW_MOUNTED - self.PAGE_SIZE // 2)
        return limit, max(1, target)

    def _schedule_prune(self, spare: Literal["top", "bottom"] | None = None) -> None:
        if not self._prune_scheduled and self.mounted_entry_count > self._mount_limits()[0]:
            self._prune_scheduled = True
            # After the next refresh, so that entries have a layout (their position decides what may go).
            self.call_after_refresh(self._prune, spare)

    async def _prune(self, spare: Literal["top", "bottom"] | None = None) -> None:
        """Unmount finished, off-screen entries down to `MAX_MOUNTED - PAGE_SIZE` (fewer while following, see
        `FOLLOW_MOUNTED`): from the end farther from the view first (the top when following); never from the
        `spare` end (a page was just loaded there)."""
        self._prune_scheduled = False
        if self._loading:
            return  # the page load prunes (and schedules again if needed)
        async with self._window_lock:
            target = self._mount_limits()[1]
            if self.mounted_entry_count <= target:
                return
            following = self.is_following
            cut = await self._settled_plan(
                lambda state: plan_prune(state, target, following=following, spare=spare)
            )
            if not cut.size:
                return
            reference = None if following else self._view_reference()
            victims = self._cut(cut)
            with self.app.batch_update():  # no frame between the removal and the scroll correction
                await self.remove_children(victims)
                self._pending_view = reference
        # Only entries laid out off-screen may go: a burst of entries not laid out yet leaves the window over
        # its limit, and nothing else may come to prune it again. Go on once they have a layout.
        self._schedule_prune(spare)

    @staticmethod
    async def _force_finish(widget: Widget) -> None:
        if isinstance(widget, AssistantMessage):
            await widget.finish()
        elif isinstance(widget, ReasoningBlock):
            widget.finish()
        elif isinstance(widget, ToolPanel):
            widget.set_finished("cancelled", None, "(no result was received for this call)")

    def _request_page(self, direction: Literal["earlier", "later"]) -> None:
        if not self._loading:
            self._loading = True
            self.call_later(self._load_page, direction, True, self._jumps)

    async def _load_page(
        self, direction: Literal["earlier", "later"], already_flagged: bool = False, jumps: int | None = None
    ) -> None:
        """Re-mount the next `PAGE_SIZE` records on one side of the window and unmount as many entries from
        the other side, keeping the view where it was."""
        if self._loading and not already_flagged:
            return
        self._loading = True
        try:
            with self._collector_waits():
                async with self._window_lock:
                    if jumps is not None and jumps != self._jumps:
                        return  # asked for by a scroll before a jump to the latest: out of date
                    if direction == "earlier":
                        await self._load_earlier_locked()
                    else:
                        await self._load_later_locked()
        finally:
            self._loading = False
        if not self.is_following:
            # The far side could not give up enough entries (e.g. the view was there): try again once the
            # page is laid out, but never unmount the page just loaded.
            self._schedule_prune(spare="top" if direction == "earlier" else "bottom")

    @contextmanager
    def _collector_waits(self) -> Iterator[None]:
        """No collector pass while a page loads, nor until `PAGES_AT_REST` after the last one."""
        collector = self.collector
        if collector is None:
            yield
            return
        collector.pause("pages")
        try:
            yield
        finally:
            collector.resume(self._at_rest, "pages")

    def _at_rest(self, callback: Callable[[], None]) -> None:
        if self.is_attached:
            self.set_timer(self.PAGES_AT_REST, callback, name="pages-at-rest")
        else:
            callback()

    async def _load_earlier_locked(self) -> None:
        if not self._archived:
            return
        # A scroll animation towards the top would fight the view correction and load page after page.
        self.app.animator.force_stop_animation(self, "scroll_y")
        following = self.is_following
        size = min(self.PAGE_SIZE, len(self._archived))
        excess = self.mounted_entry_count + size - self.MAX_MOUNTED

        def plan(state: WindowState) -> Cut:
            cut = Cut()
            if excess > 0 and not following:
                plan_bottom(state, cut, excess)
            return cut

        cut = await self._settled_plan(plan)
        reference = None if following else self._view_reference()
        victims = self._cut(cut)  # below the view: computed before the page shifts the window's indices
        page = self._archived[-size:]
        del self._archived[-size:]
        widgets = self._widgets_from_records(page, page=True)
        self._mounted[0:0] = widgets
        self._regroup(self._mounted, 0, len(widgets) + 1)
        self._update_counts()
        with self.app.batch_update():  # no frame between the mount and the scroll correction
            await self.mount_all(widgets, after=self._placeholder)
            if victims:
                await self.remove_children(victims)
            self._pending_view = reference

    async def _load_later_locked(self) -> None:
        if not self._later:
            return
        self.app.animator.force_stop_animation(self, "scroll_y")
        size = min(self.PAGE_SIZE, len(self._later))
        excess = self.mounted_entry_count + size - self.MAX_MOUNTED

        def plan(state: WindowState) -> Cut:
            cut = Cut()
            if excess > 0:
                plan_top(state, cut, excess, following=False)
            return cut

        cut = await self._settled_plan(plan)
        reference = self._view_reference()
        victims = self._cut(cut)  # above the view
        page = self._later[:size]
        del self._later[:size]
        widgets = self._widgets_from_records(page, page=True)
        start = len(self._mounted)
        self._mounted.extend(widgets)
        self._regroup(self._mounted, start, len(self._mounted))
        if not self._later:
            self._close_gap()
        self._update_counts()
        with self.app.batch_update():
            await self.mount_all(widgets, before=self._later_placeholder)
            if victims:
                await self.remove_children(victims)
            self._pending_view = reference

    async def _jump_to_latest(self) -> None:
        """Re-mount the last page below the window and unmount everything above it, then follow."""
        self._jumps += 1
        with self._collector_waits():
            async with self._window_lock:
                if self._later:
                    keep = max(0, self.HISTORY_TAIL - len(self._tail))
                    before = [*self._archived, *self._archive(self._mounted), *self._later]
                    stale = self._mounted
                    page = before[len(before) - keep :] if keep else []
                    self._archived = before[: len(before) - len(page)]
                    self._later = []
                    widgets = self._widgets_from_records(page)
                    self._mounted = widgets
                    self._close_gap()
                    self._regroup(self._mounted, 0, len(widgets) + 1)
                    self._update_counts()
                    self._pending_view = None
                    with self.app.batch_update():
                        await self.remove_children(stale)
                        await self.mount_all(widgets, before=self._later_placeholder)
                        self.anchor()
        self.scroll_end(animate=False, immediate=False)

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """Arrange children; after entries were mounted or removed above the view, also move the scroll
        offset so the entry the user was looking at stays put.

        Done here, in the same layout pass that moves the entries, because it is the only place where it
        can be: the compositor reads the scroll offset right after `arrange()` to place the children (its
        own anchoring sets `scroll_y` at that very point). Corrected after the layout instead, one frame
        would be painted with the view jumped. Only a page load or a prune sets `_pending_view`; the
        streaming path never writes the offset here.
        """
        if not optimal:
            self._estimate_out_of_view(size.width)
            self.list_grown_entries()
        result = super().arrange(size, optimal)
        if optimal:
            return result
        # Kept for the window's decisions: cheaper than `virtual_region`, which may re-arrange the whole
        # screen (`Compositor.full_map`) after every change.
        self._placed = {placement.widget: placement.region for placement in result.placements}
        if self._pending_view is None:
            return result
        reference, old_y = self._pending_view
        self._pending_view = None
        if self.is_following:
            return result  # the anchor places the view
        for placement in result.placements:
            if placement.widget is reference:
                viewport = self.container_size.height - self.scrollbar_size_horizontal
                max_y = result.spatial_map.total_region.bottom - viewport
                y = corrected_scroll(self.scroll_y, old_y, placement.region.y, max_y)
                self.set_reactive(Widget.scroll_y, y)
                self.set_reactive(Widget.scroll_target_y, y)
                # Not `position = y`: its refresh asks the scrollbar's region, and inside a layout that
                # rebuilds the compositor's full map (an arrangement of the whole screen, ~5 ms a page of
                # history). The bar's own size is known without asking: its region is repainted.
                scrollbar = self.vertical_scrollbar
                scrollbar.set_reactive(ScrollBar.position, scrollbar.validate_position(y))
                scrollbar.refresh(scrollbar.outer_size.region)
                break
        return result

    def _estimate_out_of_view(self, width: int) -> None:
        """On a new width, let the entries that were out of view guess their height (no rendering), and
        render them for real right after this frame: a resize draws what the user sees first."""
        if width == self._arranged_width or not self._placed:
            self._arranged_width = width
            return
        self._arranged_width = width
        top, bottom = self.scroll_y - self._viewport_height, self.scroll_y + 2 * self._viewport_height
        estimated: list[LineView] = []
        for widget in chain(self._mounted, self._tail):
            region = self._placed.get(widget)
            if (
                isinstance(widget, LineView)
                and region is not None
                and not (top <= region.bottom and region.y <= bottom)
            ):
                widget.allow_estimate()
                estimated.append(widget)
        if estimated:
            self.call_after_refresh(self._settle_estimates, estimated)

    def _settle_estimates(self, estimated: list[LineView]) -> None:
        """Replace the estimated heights by real ones, keeping the entry in view where it is."""
        reference = None if self.is_following else self._view_reference()
        changed = False
        for widget in estimated:
            if widget.parent is self:
                changed = widget.settle_height() or changed
        if changed and reference is not None:
            self._pending_view = reference

    def _reset(self) -> list[Widget]:
        """Forget every entry at once; returns the mounted ones (for `_replace` to remove)."""
        stale = [*self._mounted, *self._tail]
        self._archived, self._mounted, self._later, self._tail = [], [], [], []
        self._panels = {}
        self._deferred = []
        self._pending_view = None
        self._indicator.remove_class("-visible")
        if self.is_mounted:
            self.anchor()  # a new start: follow (also closes the gap's "not following")
        return stale

    async def _replace(self, stale: list[Widget], widgets: list[Widget], *, follow: bool) -> None:
        """Remove `stale` entries (and any left over by a window change in flight) and mount `widgets`."""
        async with self._window_lock:
            if not self._composed:
                return  # compose() yields the current entries
            if self._spinner.parent is not self:
                self._deferred.extend(w for w in widgets if w.parent is None and w in self._mounted)
                return
            fixtures = {self._placeholder, self._later_placeholder, self._spinner, self._indicator}
            current = {*self._mounted, *self._tail}
            leftovers = [w for w in self.children if w not in fixtures and w not in current]
            gone = [w for w in {*stale, *leftovers} if w.parent is self]
            fresh = [w for w in widgets if w.parent is None and w in self._mounted]
            with self.app.batch_update():
                if gone:
                    await self.remove_children(gone)
                if self._later_placeholder.parent is self:
                    # No gap now: the hidden "later" placeholder goes above whatever follows the window.
                    first_after = next(
                        (w for w in self._mounted if w not in fresh and w.parent is self), None
                    )
                    self.move_child(self._later_placeholder, before=first_after or self._spinner)
                if fresh:
                    await self.mount_all(fresh, before=self._later_placeholder)
        if follow:
            self.scroll_to_latest()

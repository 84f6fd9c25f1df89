"""The scrolling transcript: owns the entries, sticks to the bottom, and keeps the widget count bounded.

Why it is built this way (design.md §9, textual8.md §5):

- Layout cost grows with the number of mounted widgets, not with bytes. So finished entries are frozen to
  ~1 widget each (`AssistantMessage.finish()`), and at most `MAX_MOUNTED` entries are mounted: when there
  are more, the oldest finished ones that are off screen are unmounted and kept as plain `TranscriptRecord`s
  behind one placeholder line at the top ("↑ N earlier entries"). Scrolling near the top (or activating the
  placeholder) re-mounts them `PAGE_SIZE` at a time, keeping the view where it was. Nothing the user could
  scroll to is lost: it is either mounted or one page-load away.
- `layout: stream` (the fast vertical layout for chat transcripts) and `anchor()`: the view follows new
  content while the user is at the bottom, stops following when they scroll up, and `scroll_to_latest()`
  (or End, or the "↓ new output" bar) goes back and follows again.
- A resumed session mounts only its last `HISTORY_TAIL` entries (`load_history`).

The transcript renders; it never drives the agent. The app calls `add_user`, `start_assistant`,
`start_reasoning`, `add_tool_panel`, `add_notice`, `show_spinner`/`hide_spinner` from its event handlers.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar, Literal, TypeVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from widgets.assistant_message import AssistantMessage
from widgets.notice import NoticeLine
from widgets.reasoning import ReasoningBlock
from widgets.spinner import Spinner
from widgets.tool_panel import ToolPanel, ToolSnapshot
from widgets.user_message import UserMessage

__all__ = ["EarlierEntries", "EntryKind", "NewOutputIndicator", "Transcript", "TranscriptRecord"]

EntryKind = Literal["user", "assistant", "reasoning", "tool", "notice"]
W = TypeVar("W", bound=Widget)


@dataclass(frozen=True, slots=True)
class TranscriptRecord:
    """A transcript entry as plain data: what is kept for an unmounted entry, and what `load_history` takes.

    `text` is the user/assistant/reasoning/notice text; a tool entry carries a `ToolSnapshot` instead.
    """

    kind: EntryKind
    text: str = ""
    notice_kind: str = "info"
    hint: str | None = None
    tool: ToolSnapshot | None = None
    expanded: bool = False

    @classmethod
    def user(cls, text: str) -> TranscriptRecord:
        return cls("user", text)

    @classmethod
    def assistant(cls, text: str) -> TranscriptRecord:
        return cls("assistant", text)

    @classmethod
    def reasoning(cls, text: str) -> TranscriptRecord:
        return cls("reasoning", text)

    @classmethod
    def notice(cls, kind: str, text: str, hint: str | None = None) -> TranscriptRecord:
        return cls("notice", text, notice_kind=kind, hint=hint)

    @classmethod
    def tool_call(
        cls,
        name: str,
        *,
        summary: str = "",
        status: str = "ok",
        duration: float | None = None,
        result: str = "",
        data: dict | None = None,
        call_id: str = "",
        index: int = 0,
        output: str = "",
    ) -> TranscriptRecord:
        """A finished tool call, e.g. rebuilt from a stored session."""
        snapshot = ToolSnapshot(
            call_id=call_id,
            name=name,
            index=index,
            status=status,
            summary=summary,
            duration=duration,
            result=result,
            data=dict(data or {}),
            output=output,
        )
        return cls("tool", tool=snapshot)


class EarlierEntries(Widget, can_focus=True):
    """The one-line placeholder standing in for unmounted older entries. Enter or click loads a page."""

    DEFAULT_CSS = """
    EarlierEntries {
        height: 1;
        margin: 1 0 0 0;
        color: $text-muted;
        text-align: center;
        display: none;
        &.-visible { display: block; }
        &:focus { background: $boost; color: $foreground; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "activate", "Load earlier", show=False)]

    count: reactive[int] = reactive(0)

    class Activated(Message):
        """The user asked for the earlier entries (click or Enter)."""

    def render(self) -> Text:
        noun = "entry" if self.count == 1 else "entries"
        return Text(f"↑ {self.count} earlier {noun} — scroll up or press enter to load", end="")

    def watch_count(self, count: int) -> None:
        self.set_class(count > 0, "-visible")

    def action_activate(self) -> None:
        self.post_message(self.Activated())

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Activated())


class NewOutputIndicator(Widget):
    """A bar docked at the bottom of the transcript while new output arrives below the view."""

    DEFAULT_CSS = """
    NewOutputIndicator {
        dock: bottom;
        height: 1;
        width: 100%;
        text-align: center;
        background: $primary 25%;
        color: $foreground;
        display: none;
        &.-visible { display: block; }
        &:hover { background: $primary 45%; }
    }
    """

    class Activated(Message):
        """The user clicked the indicator."""

    def render(self) -> Text:
        return Text("↓ new output — press end or click to follow", end="")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Activated())


class Transcript(VerticalScroll, can_focus=True):
    """The conversation: user messages, replies, reasoning, tool panels, notices and a spinner at the end."""

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
    """More mounted entries than this and the oldest finished ones are unmounted."""
    PAGE_SIZE: ClassVar[int] = 50
    """Entries re-mounted per page when scrolling up; also the pruning hysteresis."""
    HISTORY_TAIL: ClassVar[int] = 50
    """Entries a resumed session mounts up front."""
    LOAD_MARGIN: ClassVar[int] = 3
    """Load the previous page when the view is within this many lines of the top."""

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._mounted: list[Widget] = []
        self._archived: list[TranscriptRecord] = []
        self._panels: dict[str, ToolPanel] = {}
        self._placeholder = EarlierEntries()
        self._spinner = Spinner()
        self._indicator = NewOutputIndicator()
        self._loading = False
        self._prune_scheduled = False
        self._composed = False
        self._deferred: list[Widget] = []  # added after compose but before the spinner was mounted
        self._pending_view: tuple[Widget, float] | None = None

    # ----------------------------------------------------------------------------------------- app API

    def add_user(self, text: str) -> UserMessage:
        """Show the user's message, and follow the bottom again (the user just acted)."""
        message = UserMessage(text)
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
        panel = ToolPanel(call_id, name, index)
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

    def add_notice(self, kind: str, text: str, hint: str | None = None) -> NoticeLine:
        """A one-line notice (info, warn, retry, error, interrupted, success)."""
        return self._add(NoticeLine(kind, text, hint=hint))

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

    def scroll_to_latest(self) -> None:
        """Jump to the newest content and follow it again."""
        if not self.is_mounted:
            return  # on_mount anchors
        if not self.is_anchored:
            self.anchor()
        self.scroll_end(animate=False, immediate=False)
        self._indicator.remove_class("-visible")

    def action_scroll_to_latest(self) -> None:
        self.scroll_to_latest()

    @property
    def is_following(self) -> bool:
        """True while the view sticks to the bottom (anchored and not released by the user scrolling up)."""
        # `_anchor_released` has no public accessor in textual 8.2.8; `is_anchored` alone stays True after
        # the user scrolls away.
        return self.is_anchored and not getattr(self, "_anchor_released", False)

    @property
    def entry_count(self) -> int:
        """All entries, mounted or kept as records."""
        return len(self._archived) + len(self._mounted)

    @property
    def mounted_entry_count(self) -> int:
        """Entries currently mounted as widgets."""
        return len(self._mounted)

    @property
    def archived_entry_count(self) -> int:
        """Entries kept as plain records behind the placeholder."""
        return len(self._archived)

    def records(self) -> list[TranscriptRecord]:
        """Every entry as plain data, oldest first (for export/copy and tests)."""
        return [*self._archived, *(r for w in self._mounted if (r := self._record_of(w)) is not None)]

    def load_history(self, records: Iterable[TranscriptRecord]) -> AwaitComplete:
        """Replace the transcript with a stored session: mount only the last `HISTORY_TAIL` entries, keep
        the rest behind the placeholder. Await it to know the tail is mounted."""
        return AwaitComplete(self._load_history(list(records)))

    def clear(self) -> AwaitComplete:
        """Remove every entry (a new session)."""
        return AwaitComplete(self._clear())

    def load_earlier(self) -> AwaitComplete:
        """Re-mount the previous page of unmounted entries (what scrolling to the top does)."""
        return AwaitComplete(self._load_older_page())

    # ----------------------------------------------------------------------------------------- lifecycle

    def compose(self) -> ComposeResult:
        self._composed = True
        yield self._placeholder
        yield from self._mounted  # entries the app added before the transcript was mounted
        yield self._spinner
        yield self._indicator

    def on_mount(self) -> None:
        self._spinner.display = False
        if self._deferred:
            deferred, self._deferred = self._deferred, []
            for widget in deferred:
                position = self._mounted.index(widget)
                following = self._mounted[position + 1 :]
                anchor = next((w for w in following if w.parent is self), self._spinner)
                self.mount(widget, before=anchor)
        self.anchor()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._archived and new_value <= self.LOAD_MARGIN and not self._loading and not self.is_following:
            self._loading = True
            self.call_later(self._load_older_page, True)
        if self.is_following and self._indicator.has_class("-visible"):
            self._indicator.remove_class("-visible")

    def on_earlier_entries_activated(self, message: EarlierEntries.Activated) -> None:
        message.stop()
        if not self._loading:
            self._loading = True
            self.call_later(self._load_older_page, True)

    def on_new_output_indicator_activated(self, message: NewOutputIndicator.Activated) -> None:
        message.stop()
        self.scroll_to_latest()

    # ----------------------------------------------------------------------------------------- entries

    def _add(self, widget: W, *, before: Widget | None = None) -> W:
        if before is not None and before in self._mounted:
            self._mounted.insert(self._mounted.index(before), widget)
        else:
            before = None
            self._mounted.append(widget)
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
        for widget in reversed(self._mounted):
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
        self._regroup(max(0, len(self._mounted) - 12), len(self._mounted))

    def _regroup(self, start: int, end: int) -> None:
        previous = self._mounted[start - 1] if start > 0 else None
        for widget in self._mounted[start:end]:
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
            return TranscriptRecord("user", widget.text, expanded=widget.expanded)
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

    @staticmethod
    def _widget_from_record(record: TranscriptRecord) -> Widget:
        """A frozen (finished, ~1 widget) entry for a record."""
        if record.kind == "user":
            message = UserMessage(record.text)
            message.set_reactive(UserMessage.expanded, record.expanded)
            return message
        if record.kind == "assistant":
            return AssistantMessage(record.text, finished=True)
        if record.kind == "reasoning":
            return ReasoningBlock(record.text, finished=True, expanded=record.expanded)
        if record.kind == "tool" and record.tool is not None:
            return ToolPanel.from_snapshot(record.tool)
        return NoticeLine(record.notice_kind, record.text, hint=record.hint)

    # ----------------------------------------------------------------------------------------- window

    def _schedule_prune(self) -> None:
        if not self._prune_scheduled and len(self._mounted) > self.MAX_MOUNTED:
            self._prune_scheduled = True
            # After the next refresh, so that entries have a layout (their position decides what may go).
            self.call_after_refresh(self._prune)

    async def _prune(self) -> None:
        """Unmount the oldest finished, off-screen entries down to `MAX_MOUNTED - PAGE_SIZE`."""
        self._prune_scheduled = False
        if self._loading:
            return
        excess = len(self._mounted) - max(1, self.MAX_MOUNTED - self.PAGE_SIZE)
        if excess <= 0:
            return
        following = self.is_following
        # Not following: only entries at least a screen above the view may go, so the user sees no change.
        limit = self.scroll_y - self.scrollable_content_region.height
        victims: list[Widget] = []
        for position, widget in enumerate(self._mounted[:excess]):
            if not following and widget.virtual_region.bottom > limit:
                break
            if not self._is_finished(widget):
                if len(self._mounted) - position <= self.MAX_MOUNTED:
                    break  # still live: it stays mounted (and so does everything after it)
                # Live but more than MAX_MOUNTED entries old: the app never finished it. Finish it
                # rather than let one forgotten widget stop pruning for the rest of the session.
                await self._force_finish(widget)
            victims.append(widget)
        if not victims:
            return
        keep_ref = self._mounted[len(victims)] if len(victims) < len(self._mounted) else None
        ref_offset = keep_ref.virtual_region.y - self.scroll_y if keep_ref is not None else 0.0
        del self._mounted[: len(victims)]
        for widget in victims:
            if (record := self._record_of(widget)) is not None:
                self._archived.append(record)
            if isinstance(widget, ToolPanel) and self._panels.get(widget.call_id) is widget:
                del self._panels[widget.call_id]
        self._placeholder.count = len(self._archived)
        with self.app.batch_update():  # no frame between the removal and the scroll correction
            await self.remove_children(victims)
            if not following and keep_ref is not None:
                self._pending_view = (keep_ref, ref_offset)

    @staticmethod
    async def _force_finish(widget: Widget) -> None:
        if isinstance(widget, AssistantMessage):
            await widget.finish()
        elif isinstance(widget, ReasoningBlock):
            widget.finish()
        elif isinstance(widget, ToolPanel):
            widget.set_finished("cancelled", None, "(no result was received for this call)")

    async def _load_older_page(self, already_flagged: bool = False) -> None:
        """Re-mount the previous `PAGE_SIZE` archived entries above the mounted ones, keeping the view."""
        if self._loading and not already_flagged:
            return
        self._loading = True
        try:
            if not self._archived:
                return
            page = self._archived[-self.PAGE_SIZE :]
            del self._archived[-self.PAGE_SIZE :]
            widgets = [self._widget_from_record(record) for record in page]
            following = self.is_following
            # A scroll animation towards the top would fight the view correction below and load page
            # after page: stop it where it is.
            self.app.animator.force_stop_animation(self, "scroll_y")
            keep_ref = self._mounted[0] if self._mounted else None
            ref_offset = keep_ref.virtual_region.y - self.scroll_y if keep_ref is not None else 0.0
            self._mounted[0:0] = widgets
            for widget in widgets:
                if isinstance(widget, ToolPanel) and widget.call_id:
                    self._panels.setdefault(widget.call_id, widget)
            self._placeholder.count = len(self._archived)
            self._regroup(0, len(widgets) + 1)
            with self.app.batch_update():  # no frame between the mount and the scroll correction
                await self.mount_all(widgets, after=self._placeholder)
                if not following and keep_ref is not None:
                    self._pending_view = (keep_ref, ref_offset)
        finally:
            self._loading = False

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """Arrange children; after entries were mounted or removed above the view, also move the scroll
        offset so the entry the user was looking at stays put.

        Done here, in the same layout pass that moves the entries (like Textual's own anchoring), so no
        frame is ever painted with the view jumped.
        """
        result = super().arrange(size, optimal)
        if self._pending_view is None or optimal:
            return result
        reference, offset = self._pending_view
        for placement in result.placements:
            if placement.widget is reference:
                self._pending_view = None
                viewport = self.container_size.height - self.scrollbar_size_horizontal
                max_y = max(0, result.spatial_map.total_region.bottom - viewport)
                y = min(max(0.0, placement.region.y - offset), float(max_y))
                self.set_reactive(Widget.scroll_y, y)
                self.set_reactive(Widget.scroll_target_y, y)
                self.vertical_scrollbar.position = y
                break
        return result

    async def _load_history(self, records: list[TranscriptRecord]) -> None:
        await self._clear()
        tail = records[-self.HISTORY_TAIL :] if self.HISTORY_TAIL > 0 else []
        self._archived = records[: len(records) - len(tail)]
        widgets = [self._widget_from_record(record) for record in tail]
        self._mounted = widgets
        for widget in widgets:
            if isinstance(widget, ToolPanel) and widget.call_id:
                self._panels[widget.call_id] = widget
        self._placeholder.count = len(self._archived)
        if widgets:
            await self.mount_all(widgets, before=self._spinner)
        self._regroup(0, len(widgets))
        self.scroll_to_latest()

    async def _clear(self) -> None:
        widgets, self._mounted = self._mounted, []
        self._archived = []
        self._panels = {}
        self._placeholder.count = 0
        self._indicator.remove_class("-visible")
        if widgets:
            await self.remove_children(widgets)

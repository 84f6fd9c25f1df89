"""The transcript as data: its entries in order, the tool calls among them, and where each is on the canvas.

`TranscriptModel` is what the view (`widgets.transcript.view`) shows: the entries, oldest first, each one's
position, the tool calls by id and in the model's call order, which consecutive calls sit together, and
their heights at the view's width. No Textual here (as Textual keeps `document/` beside `TextArea`): the
view scrolls, paints and takes the keys; the model can be driven and checked without an App.

The transcript is one Line-API view over the whole conversation (docs/architecture.md, "The transcript"): an
entry's lines are drawn only when they are in view, so the height of an entry not seen at the current width is
an estimate (cheap: from its text's length), made exact the first time it is drawn. `EntryHeights` keeps both,
the prefix sums that turn a line of the canvas into (entry, line within it) and back, and recomputes those
sums lazily from the first entry that changed: a streaming reply at the end changes only the last one.

`Anchor` is what must not move on screen when heights above or at the view change: the entry at the top
of the view and how far into it the view starts. Plain data, testable without a screen.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from widgets.transcript.entries.base import Entry
from widgets.transcript.entries.tool_call import ToolCallEntry
from widgets.transcript.entries.user_message import UserMessageEntry
from widgets.transcript.record import TranscriptRecord

__all__ = ["Anchor", "EntryHeights", "TranscriptModel"]

E = TypeVar("E", bound=Entry)


@dataclass(frozen=True, slots=True)
class Anchor:
    """Line `offset` of entry `index` is the view's top line."""

    index: int
    offset: int


class EntryHeights:
    """Heights of a sequence of entries on one canvas, each exact (drawn) or estimated."""

    __slots__ = ("_exact", "_heights", "_offsets", "_valid")

    def __init__(self) -> None:
        self._heights: list[int] = []
        self._exact: list[bool] = []
        self._offsets: list[int] = [0]  # _offsets[i]: the first line of entry i; last item: the total
        self._valid = 0  # _offsets[: _valid + 1] are right

    def __len__(self) -> int:
        return len(self._heights)

    def height(self, index: int) -> int:
        return self._heights[index]

    def is_exact(self, index: int) -> bool:
        return self._exact[index]

    def _touch(self, index: int) -> None:
        self._valid = min(self._valid, index)

    def append(self, height: int, *, exact: bool) -> None:
        self.insert(len(self._heights), height, exact=exact)

    def insert(self, index: int, height: int, *, exact: bool) -> None:
        self._heights.insert(index, max(0, height))
        self._exact.insert(index, exact)
        self._offsets.append(0)
        self._touch(index)

    def remove(self, index: int) -> None:
        del self._heights[index]
        del self._exact[index]
        self._offsets.pop()
        self._touch(index)

    def clear(self) -> None:
        self._heights, self._exact, self._offsets, self._valid = [], [], [0], 0

    def set(self, index: int, height: int, *, exact: bool) -> int:
        """Set entry `index`'s height; returns by how much it changed."""
        height = max(0, height)
        delta = height - self._heights[index]
        self._exact[index] = exact
        if delta:
            self._heights[index] = height
            self._touch(index)  # offsets up to this entry's own start stay right
        return delta

    def forget_exact(self, heights: list[int]) -> None:
        """A new width: every height is an estimate again (`heights`, one per entry)."""
        self._heights = [max(0, height) for height in heights]
        self._exact = [False] * len(heights)
        self._offsets = [0] * (len(heights) + 1)
        self._valid = 0

    def _sums(self) -> list[int]:
        offsets = self._offsets
        heights = self._heights
        total = offsets[self._valid]
        for index in range(self._valid, len(heights)):
            total += heights[index]
            offsets[index + 1] = total
        self._valid = len(heights)
        return offsets

    def offset(self, index: int) -> int:
        """The canvas line where entry `index` starts (`len(self)`: the total height)."""
        if index > self._valid:
            self._sums()
        return self._offsets[index]

    @property
    def total(self) -> int:
        return self.offset(len(self._heights))

    def index_at(self, y: int) -> int:
        """The entry that canvas line `y` belongs to (the last one for `y` past the end; -1 if none)."""
        if not self._heights:
            return -1
        offsets = self._sums() if self._valid < len(self._heights) else self._offsets
        if y < 0:
            return 0
        index = bisect_right(offsets, y, 0, len(self._heights)) - 1
        # Entries of height 0 (an empty reply) share their offset with the next: take the one with lines.
        while index < len(self._heights) - 1 and self._heights[index] == 0:
            index += 1
        return max(0, index)

    def anchor_at(self, y: int) -> Anchor | None:
        index = self.index_at(y)
        if index < 0:
            return None
        return Anchor(index, max(0, y - self.offset(index)))

    def y_of(self, anchor: Anchor) -> int:
        """The canvas line of `anchor` now (after heights changed)."""
        index = min(anchor.index, len(self._heights) - 1)
        if index < 0:
            return 0
        return self.offset(index) + min(anchor.offset, max(0, self._heights[index] - 1))


class TranscriptModel:
    """The entries, where each is (in the list and on the canvas), and the tool calls by id.

    `width` is the content width every exact height is for (0: not laid out yet, every height estimated).
    `moved(y)` is told the first canvas line that changed or moved when an exact height changes (the view
    forgets what it drew from there).
    """

    def __init__(self, moved: Callable[[int], None] = lambda y: None) -> None:
        self._entries: list[Entry] = []
        self._index: dict[int, int] = {}  # id(entry) -> its position
        self._panels: dict[str, ToolCallEntry] = {}
        self.heights = EntryHeights()
        self.width = 0
        self._moved = moved

    # ----------------------------------------------------------------------------------------- the entries

    @property
    def entries(self) -> Sequence[Entry]:
        """Every entry, oldest first."""
        return self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, position: int) -> Entry:
        return self._entries[position]

    def position(self, entry: Entry) -> int | None:
        """Where `entry` is, if it is in the transcript."""
        return self._index.get(id(entry))

    def of_kind(self, kind: type[E]) -> list[E]:
        """The entries of one kind, oldest first."""
        return [entry for entry in self._entries if isinstance(entry, kind)]

    def mark_rewound(self, from_user: int) -> tuple[int, int]:
        """The `from_user`-th user message still live (0 = the first; a `!command` is not one) and every
        entry after it marked rewound: (the index it starts at, how many entries that marked; 0: no such
        message)."""
        users = [
            i
            for i, entry in enumerate(self._entries)
            if isinstance(entry, UserMessageEntry) and not entry.rewound and not entry.shell
        ]
        if not 0 <= from_user < len(users):
            return 0, 0
        start = users[from_user]
        marked = 0
        for entry in self._entries[start:]:
            if not entry.rewound:
                entry.rewound = True
                marked += 1
        return start, marked

    def records(self) -> list[TranscriptRecord]:
        """Every entry as plain data, oldest first."""
        return [
            replace(record, rewound=True) if entry.rewound else record
            for entry in self._entries
            if (record := entry.record()) is not None
        ]

    def insert(self, entry: Entry, at: int | None = None, *, estimate: bool = False) -> int:
        """Put `entry` at `at` (default: the end) and return its position. Its height is exact at the
        current width unless `estimate` (a resumed session: made exact when it comes into view)."""
        position = len(self._entries) if at is None else at
        self._entries.insert(position, entry)
        if isinstance(entry, ToolCallEntry) and entry.call_id:
            self._panels.setdefault(entry.call_id, entry)
        width = self.width
        if width > 0 and not estimate:
            self.heights.insert(position, entry.measure(width), exact=True)
        else:  # not laid out yet: the first paint estimates every height at the real width
            self.heights.insert(position, entry.estimate(width) if width > 0 else 0, exact=False)
        if at is None:
            self._index[id(entry)] = position
        else:
            self._reindex(position)
        return position

    def remove(self, entry: Entry) -> int | None:
        """Take `entry` out; where it was (None: it was not here)."""
        index = self._index.get(id(entry))
        if index is None:
            return None
        del self._entries[index]
        self.heights.remove(index)
        if isinstance(entry, ToolCallEntry) and self._panels.get(entry.call_id) is entry:
            del self._panels[entry.call_id]
        self._reindex(index)
        self.regroup(index - 1, index + 1)
        return index

    def clear(self) -> list[Entry]:
        """Remove every entry; the entries that were here."""
        entries, self._entries = self._entries, []
        self._index = {}
        self._panels = {}
        self.heights.clear()
        return entries

    def _reindex(self, start: int = 0) -> None:
        for position in range(start, len(self._entries)):
            self._index[id(self._entries[position])] = position
        live = {id(entry) for entry in self._entries}
        for key in [key for key in self._index if key not in live]:
            del self._index[key]

    def selectable(self) -> list[int]:
        """The entries a cursor visits: those that open and close, and those with text to copy."""
        return [
            i
            for i, entry in enumerate(self._entries)
            if entry.visible and (entry.can_toggle or entry.CAN_COPY)
        ]

    # ----------------------------------------------------------------------------------------- tool calls

    def tool_call(self, call_id: str, *, index: int | None = None) -> ToolCallEntry | None:
        """The call `call_id`; with `index`, also a call made without an id at that index in the current
        model call (its id is then set to `call_id`)."""
        panel = self._panels.get(call_id)
        if panel is not None or index is None:
            return panel
        for candidate in reversed(self._current_calls()):
            if candidate.index == index and not candidate.call_id:
                candidate.set_call_id(call_id)
                if call_id:
                    self._panels[call_id] = candidate
                return candidate
        return None

    def call_position(self, index: int) -> int | None:
        """Where a new call with `index` goes to keep the model's call order among the current call's
        (None: at the end)."""
        for panel in self._current_calls():
            if panel.index > index:
                return self._index[id(panel)]
        return None

    def _current_calls(self) -> list[ToolCallEntry]:
        """The trailing run of tool calls of the current model call (indices strictly increasing)."""
        panels: list[ToolCallEntry] = []
        for entry in reversed(self._entries):
            if not isinstance(entry, ToolCallEntry):
                break
            if panels and entry.index >= panels[-1].index:
                break
            panels.append(entry)
        panels.reverse()
        return panels

    def last_turn_calls(self) -> list[ToolCallEntry]:
        """The tool calls of the last turn: those after the last user message."""
        panels: list[ToolCallEntry] = []
        for entry in reversed(self._entries):
            if isinstance(entry, UserMessageEntry):
                break
            if isinstance(entry, ToolCallEntry):
                panels.append(entry)
        panels.reverse()
        return panels

    def toggle_last_turn_calls(self) -> int:
        """Expand every call of the last turn if any is collapsed, else collapse them all; how many changed
        (0: the last turn has no call with a body)."""
        panels = [panel for panel in self.last_turn_calls() if panel.has_body]
        expand = any(not panel.expanded for panel in panels)
        return sum(panel.set_expanded(expand) for panel in panels)

    def latest_call_with_body(self) -> ToolCallEntry | None:
        """The newest tool call with something to show below its header."""
        for entry in reversed(self._entries):
            if isinstance(entry, ToolCallEntry) and entry.has_body:
                return entry
        return None

    def set_tool_icons(self, icons: Mapping[str, str]) -> None:
        for entry in self.of_kind(ToolCallEntry):
            entry.set_icons(icons)

    def regroup(self, start: int, end: int) -> None:
        """Consecutive tool calls sit together (no blank line between them)."""
        start, end = max(0, start), min(len(self._entries), end)
        for position in range(start, end):
            entry = self._entries[position]
            previous = self._entries[position - 1] if position else None
            grouped = isinstance(entry, ToolCallEntry) and isinstance(previous, ToolCallEntry)
            if grouped != entry.grouped:
                entry.grouped = grouped
                if self.width > 0 and self.heights.is_exact(position):
                    self.heights.set(position, entry.measure(self.width), exact=True)
                else:
                    self.heights.set(position, entry.estimate(self.width or 80), exact=False)

    # ----------------------------------------------------------------------------------------- heights

    def measure(self, index: int, *, force: bool = False) -> int:
        """Make entry `index`'s height exact at the current width; by how much it changed."""
        if self.width <= 0 or (self.heights.is_exact(index) and not force):
            return 0
        delta = self.heights.set(index, self._entries[index].measure(self.width), exact=True)
        if delta:
            self._moved(self.heights.offset(index))  # this entry and all after it moved
        return delta

    def reveal(self, entry: Entry, top: float, rows: int) -> int | None:
        """Where a view of `rows` rows starting at canvas line `top` must start to show `entry` (its first
        line after the gap, or as much of it as fits); None: it is in view already, or not here."""
        index = self.position(entry)
        if index is None or self.width <= 0:
            return None
        self.measure(index)
        first = self.heights.offset(index) + entry.gap
        end = self.heights.offset(index + 1)
        if first < top:
            return first
        if end > top + rows:
            return min(first, end - rows)
        return None

    def relayout(self, width: int) -> bool:
        """Lay out at `width`: every height an estimate until measured again; True if the width changed."""
        if width == self.width:
            return False
        self.width = width
        self.heights.forget_exact([entry.estimate(width) for entry in self._entries])
        self._moved(0)
        return True

    def settle(self, rows: int, *, top: int | None, screens: int = 1) -> bool:
        """Make exact the heights of what a view of `rows` rows shows and `screens` screens around it: from
        canvas line `top`, or (None) from the end of the canvas up. True if a height changed."""
        changed = False
        if top is None:  # from the end up, until the view and the screens above it are exact
            index, covered = len(self._entries) - 1, 0
            while index >= 0 and covered < rows * (1 + screens):
                changed |= bool(self.measure(index))
                covered += self.heights.height(index)
                index -= 1
            return changed
        index = self.heights.index_at(max(0, top - rows * screens))
        while index < len(self._entries) and self.heights.offset(index) < top + rows * (1 + screens):
            changed |= bool(self.measure(index))
            index += 1
        return changed

    def line_text(self, y: int, width: int) -> str | None:
        """Canvas line `y` drawn `width` cells wide, as text (None: below the last entry)."""
        if y >= self.heights.total:
            return None
        index = self.heights.index_at(y)
        self.measure(index)
        offset = y - self.heights.offset(index)
        return "".join(segment.text for segment in self._entries[index].line(offset, width))

    def extend(self, entries: Iterable[Entry]) -> None:
        """Entries of a resumed session, at the end, their heights estimated."""
        for entry in entries:
            self.insert(entry, estimate=True)
        self.regroup(0, len(self._entries))

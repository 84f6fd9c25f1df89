"""Where each entry of the transcript is on its one virtual canvas: heights, offsets, what is exact.

The transcript is one Line-API view over the whole conversation (design.md §4, §9): an entry's lines are
drawn only when they are in view, so the height of an entry not seen at the current width is an estimate
(cheap: from its text's length), made exact the first time it is drawn. `EntryHeights` keeps both, the
prefix sums that turn a line of the canvas into (entry, line within it) and back, and recomputes those sums
lazily from the first entry that changed: a streaming reply at the end changes only the last one.

`Anchor` is what must not move on screen when heights above or at the view change: the entry at the top
of the view and how far into it the view starts. Plain data, testable without a screen.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

__all__ = ["Anchor", "EntryHeights"]


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

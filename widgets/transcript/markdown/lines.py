"""The rendered lines of a growing document: finished blocks rendered once, the open block re-rendered.

`LineStack` is the line cache behind a line-API widget (`render_line(y)` makes a `Strip` of
`stack.line(y)`). It keeps one flat list of the finished blocks' lines, extended when a block finishes,
plus the lines of the open last block, replaced on every update. Everything is keyed by (width, style
generation): a resize or a theme change starts over, block by block, on the next `sync`.

Plain data and callables only (the renderer is passed in), so it is testable without a screen.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from rich.segment import Segment
from rich.style import Style

from widgets.transcript.markdown.render import Line

__all__ = ["LineChange", "LineStack"]

B = TypeVar("B")

Key = tuple[int, int]
"""(width, style generation)."""


@dataclass(frozen=True, slots=True)
class LineChange:
    """What a `sync` changed: lines from `first` on may differ; the height went from `old` to `new`."""

    first: int
    old_height: int
    new_height: int

    @property
    def resized(self) -> bool:
        return self.old_height != self.new_height


class LineStack(Generic[B]):
    """Cached lines for a sequence of blocks (the finished ones, then one open block)."""

    __slots__ = (
        "_blank",
        "_count",
        "_finished",
        "_gap_after",
        "_key",
        "_open",
        "_open_block",
        "_render",
        "open_cost",
    )

    def __init__(
        self,
        render: Callable[[B, int], list[Line]],
        *,
        gap_after: Callable[[B], bool] = lambda block: False,
    ) -> None:
        self._render = render
        self._gap_after = gap_after
        self._key: Key | None = None
        self._finished: list[Line] = []
        self._count = 0  # finished blocks rendered into `_finished`
        self._open: list[Line] = []
        self._open_block: B | None = None
        self._blank: Line = (Segment(" "),)
        self.open_cost = 0.0
        """Seconds the last render of the open block took (the work repeated on every update)."""

    @property
    def key(self) -> Key | None:
        return self._key

    @property
    def height(self) -> int:
        return len(self._finished) + len(self._open)

    @property
    def rendered_blocks(self) -> int:
        """Finished blocks rendered so far for the current key (for tests: nothing is rendered twice)."""
        return self._count

    def invalidate(self) -> None:
        """Forget every rendered line (e.g. the blocks were replaced)."""
        self._key = None

    def sync(
        self, finished: Sequence[B], open_block: B | None, key: Key, blank: Style | None = None
    ) -> LineChange:
        """Render what is missing for `key`: the finished blocks not rendered yet, and the open block if it
        is a different object than last time. Returns which lines changed."""
        old_height = self.height
        if blank is not None and key != self._key:
            self._blank = (Segment(" ", blank),)
        if key != self._key or len(finished) < self._count:
            self._key = key
            self._finished, self._count = [], 0
            self._open, self._open_block = [], None
        first = len(self._finished)
        previous = self._open  # the lines from `first` on, to find the first line that really changed
        changed = False
        width = key[0]
        gap_after = self._gap_after
        if len(finished) > self._count:
            changed = True
            for block in finished[self._count :]:
                if self._count and gap_after(finished[self._count - 1]):
                    self._finished.append(self._blank)
                self._finished.extend(self._render(block, width))
                self._count += 1
            self._open, self._open_block = [], None  # the open block was among them, or is new
        if open_block is not self._open_block:
            changed = True
            self._open_block = open_block
            self._open = []
            if open_block is not None:
                started = time.perf_counter()
                lines = self._render(open_block, width)
                self.open_cost = time.perf_counter() - started
                if lines and self._count and gap_after(finished[self._count - 1]):
                    lines = [self._blank, *lines]  # a new list: the renderer may hand out a cached one
                self._open = lines
        if not changed:
            return LineChange(self.height, old_height, self.height)
        # Usually only the last line or two of the open block differ: repaint just those.
        line = self.line
        for offset, strip in enumerate(previous):
            if line(first + offset) != strip:
                return LineChange(first + offset, old_height, self.height)
        return LineChange(min(first + len(previous), self.height), old_height, self.height)

    def line(self, y: int) -> Line | None:
        """Line `y`, or None past the end."""
        finished = self._finished
        if y < len(finished):
            return finished[y] if y >= 0 else None
        y -= len(finished)
        return self._open[y] if y < len(self._open) else None

    def lines(self) -> list[Line]:
        return [*self._finished, *self._open]

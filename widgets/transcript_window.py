"""Which transcript entries to unmount, and where the view goes after entries move: plain data, no widgets.

The transcript keeps at most about `max_mounted` entries mounted (design.md §9: widget count is the cost).
When it must shed some, this module chooses them from what the last layout said about each mounted entry
(`Entry`: finished or live, where it was placed) and the view (`WindowState`); the widget
(`widgets/transcript.py`) turns the resulting `Cut` into records and removals. Kept apart so the rules can
be tested without a screen:

- the far end first: entries at least a screen above the view (above the bottom screen while following)
  go to the earlier records, entries at least two screens below it to the later records (a gap opens
  above the live end);
- a live entry (a streaming reply, a running tool) stays mounted, and so does everything between it and
  the view, unless more than `max_mounted` entries came after it: then it is finished first (a forgotten
  entry must not pin the window forever);
- an entry not laid out since it was mounted is nowhere yet, so it stays; a hidden one (an empty reply)
  takes no room anywhere, so it may go.

`corrected_scroll()` is the other half: after entries above the view were mounted or removed, the scroll
offset that keeps the entry the user was reading where it was on screen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Cut", "Entry", "WindowState", "corrected_scroll", "plan_bottom", "plan_prune", "plan_top"]

Side = Literal["window", "tail"]


@dataclass(frozen=True, slots=True)
class Entry:
    """A mounted entry as the planner sees it."""

    finished: bool
    y: int | None = None
    """Top of the entry in the last layout (virtual coordinates); None if not laid out yet."""
    bottom: int | None = None
    displayed: bool = True
    """False for an entry that takes no room (an empty reply)."""

    def placed(self, where: Callable[[int, int], bool]) -> bool:
        """Whether the last layout put it `where(y, bottom)`. Not laid out: nowhere (False); hidden:
        anywhere (True)."""
        if self.y is None or self.bottom is None:
            return not self.displayed
        return where(self.y, self.bottom)


@dataclass(frozen=True, slots=True)
class WindowState:
    """The mounted entries around the view: the window, then (after a gap of `later` records) the tail."""

    window: Sequence[Entry]
    tail: Sequence[Entry] = ()
    later: int = 0
    """Records between the window and the tail (0: no gap, and the tail is empty)."""
    scroll_y: float = 0.0
    max_scroll_y: float = 0.0
    viewport: int = 0
    max_mounted: int = 150

    @property
    def mounted(self) -> int:
        return len(self.window) + len(self.tail)


@dataclass(slots=True)
class Cut:
    """Entries chosen to be unmounted at one end of the window or the other."""

    top: int = 0
    """Leading window entries that go to the earlier records."""
    split: int = 0
    """Window index where a new live tail starts (only when there is no gap yet)."""
    bottom: int = 0
    """Window entries just above `split` that go to the later records."""
    tail: int = 0
    """Leading tail entries that go to the later records."""
    unfinished: list[tuple[Side, int]] = field(default_factory=list)
    """Live entries among them left unfinished for too long: finished before they go."""

    @property
    def size(self) -> int:
        return self.top + self.bottom + self.tail


def _from_end(state: WindowState, side: Side, position: int) -> int:
    """How many entries, this one included, there are from this entry to the end of the transcript."""
    if side == "tail":
        return len(state.tail) - position
    return len(state.window) - position + state.later + len(state.tail)


def _may_go(state: WindowState, side: Side, position: int, cut: Cut) -> bool:
    """Whether a (far enough) entry may be unmounted: finished, or live but forgotten for so long that it
    is finished first rather than pin the window."""
    entry = (state.tail if side == "tail" else state.window)[position]
    if entry.finished:
        return True
    if _from_end(state, side, position) <= state.max_mounted:
        return False  # live: it stays mounted (and so does everything between it and the view)
    cut.unfinished.append((side, position))
    return True


def plan_top(state: WindowState, cut: Cut, excess: int, *, following: bool) -> None:
    """Leading window entries to unmount: those ending at least a screen above the view. When following,
    the view is (or is about to be) at the bottom, so that is a screen above the bottom, wherever the
    last layout's offset was: the last screen and the one above it stay mounted, however few entries
    that leaves."""
    limit = (state.max_scroll_y if following else state.scroll_y) - state.viewport
    end = len(state.window) - (1 if state.later else 0)  # keep a window between the two placeholders
    if cut.bottom:
        end = min(end, cut.split - cut.bottom)
    for position, entry in enumerate(state.window[:end]):
        if cut.size >= excess:
            break
        if not entry.placed(lambda _y, bottom: bottom <= limit):
            break
        if not _may_go(state, "window", position, cut):
            break
        cut.top += 1


def plan_bottom(state: WindowState, cut: Cut, excess: int) -> None:
    """Entries next to the gap (or where it will open) to unmount: at least two screens below the view."""
    limit = state.scroll_y + 2 * state.viewport
    window = state.window
    cut.split = len(window)
    if not state.later:
        # No gap yet: it opens above the live end (the first live entry among the last max_mounted),
        # which stays mounted below it with everything after it.
        for position in range(max(0, len(window) - state.max_mounted), len(window)):
            if not window[position].finished:
                cut.split = position
                break
    # Farthest first: finished tail entries just below the gap, then window entries just above it.
    for position, entry in enumerate(state.tail):
        if cut.size >= excess or not entry.placed(lambda y, _bottom: y >= limit):
            break
        if not _may_go(state, "tail", position, cut):
            break
        cut.tail += 1
    for position in range(cut.split - 1, cut.top - 1, -1):
        if cut.size >= excess or not window[position].placed(lambda y, _bottom: y >= limit):
            break
        if not _may_go(state, "window", position, cut):
            break
        cut.bottom += 1


def plan_prune(
    state: WindowState, target: int, *, following: bool, spare: Literal["top", "bottom"] | None = None
) -> Cut:
    """Entries to unmount to get down to `target`: from the end farther from the view first (the top
    when following); never from the `spare` end (a page was just loaded there)."""
    cut = Cut()
    excess = state.mounted - target
    if excess <= 0:
        return cut
    if following:
        plan_top(state, cut, excess, following=True)
        return cut
    top_first = spare != "top" and (spare == "bottom" or state.scroll_y > state.max_scroll_y - state.scroll_y)
    if top_first:
        plan_top(state, cut, excess, following=False)
    if spare != "bottom":
        plan_bottom(state, cut, excess)
    if not top_first and spare != "top":
        plan_top(state, cut, excess, following=False)
    return cut


def corrected_scroll(scroll_y: float, old_y: int, new_y: int, max_y: int) -> float:
    """The scroll offset that keeps an entry, moved from `old_y` to `new_y`, where it was on screen.

    Relative to the current offset rather than the one when the change began: a scroll requested meanwhile
    (a deferred `scroll_home()`, say) is kept, not undone.
    """
    return min(max(0.0, scroll_y + new_y - old_y), float(max(0, max_y)))

"""Unit tests of the transcript's window planner (`widgets/transcript_window.py`): which mounted entries
are unmounted, from which end, and what is never unmounted. Plain data, no screen."""

from __future__ import annotations

from widgets.transcript_window import (
    Cut,
    Entry,
    WindowState,
    corrected_scroll,
    plan_bottom,
    plan_prune,
    plan_top,
)


def stacked(count: int, *, height: int = 3, start: int = 0, live: set[int] | None = None) -> list[Entry]:
    """`count` entries of `height` lines, one below the other (a blank line between)."""
    live = live or set()
    return [
        Entry(n not in live, start + n * (height + 1), start + n * (height + 1) + height)
        for n in range(count)
    ]


def test_following_sheds_the_oldest_entries_whatever_their_position() -> None:
    state = WindowState(stacked(200), scroll_y=760, max_scroll_y=760, viewport=40, max_mounted=150)
    cut = plan_prune(state, 100, following=True)
    assert (cut.top, cut.bottom, cut.tail) == (100, 0, 0)


def test_only_entries_a_screen_above_the_view_go_to_the_earlier_records() -> None:
    # Entry n spans [4n, 4n+3); the view starts at y=200, so a screen above it is y <= 160.
    state = WindowState(stacked(200), scroll_y=200, max_scroll_y=760, viewport=40, max_mounted=150)
    cut = Cut()
    plan_top(state, cut, 100, following=False)
    assert cut.top == 40  # entries 0..39 end at or above y=159
    assert all(entry.bottom is not None and entry.bottom <= 160 for entry in state.window[: cut.top])


def test_a_live_entry_is_kept_and_so_is_everything_after_it() -> None:
    state = WindowState(stacked(160, live={10}), scroll_y=600, max_scroll_y=600, viewport=40, max_mounted=150)
    cut = plan_prune(state, 100, following=True)
    assert cut.top == 10 and not cut.unfinished  # stops right above the streaming reply


def test_a_live_entry_forgotten_for_max_mounted_entries_is_finished_before_it_goes() -> None:
    # 189 entries came after entry 10, more than max_mounted: it no longer pins the window.
    state = WindowState(stacked(200, live={10}), scroll_y=760, max_scroll_y=760, viewport=40, max_mounted=150)
    cut = plan_prune(state, 100, following=True)
    assert cut.unfinished == [("window", 10)] and cut.top == 100


def test_reading_near_the_top_sheds_entries_two_screens_below_and_opens_a_gap_above_the_live_end() -> None:
    state = WindowState(stacked(200, live={199}), scroll_y=0, max_scroll_y=760, viewport=40)
    cut = plan_prune(state, 100, following=False)
    assert cut.top == 0  # nothing above the view
    assert cut.split == 199  # the live reply stays mounted below the gap
    assert cut.bottom == 100
    assert all(entry.y is not None and entry.y >= 80 for entry in state.window[cut.split - cut.bottom : 199])


def test_a_page_just_loaded_on_one_side_is_never_shed_again() -> None:
    state = WindowState(stacked(200), scroll_y=400, max_scroll_y=760, viewport=40)
    assert plan_prune(state, 100, following=False, spare="top").top == 0
    spared = plan_prune(state, 100, following=False, spare="bottom")
    assert spared.bottom == 0 and spared.tail == 0 and spared.top > 0


def test_entries_not_laid_out_yet_stay_and_hidden_ones_may_go() -> None:
    entries = [Entry(True, None, None, displayed=True), Entry(True, None, None, displayed=False)]
    entries += stacked(10, start=100)
    state = WindowState(entries, scroll_y=400, max_scroll_y=400, viewport=40)
    cut = Cut()
    plan_top(state, cut, 5, following=False)
    assert cut.top == 0  # the first entry has no position yet: nothing after it is shed either
    state = WindowState(entries[1:], scroll_y=400, max_scroll_y=400, viewport=40)
    cut = Cut()
    plan_top(state, cut, 5, following=False)
    assert cut.top == 5  # the hidden (empty) reply takes no room anywhere


def test_the_tail_below_a_gap_sheds_its_finished_entries_first() -> None:
    window = stacked(60)
    tail = [*stacked(5, start=2000), Entry(False, 2020, 2030)]
    state = WindowState(window, tail, later=40, scroll_y=0, max_scroll_y=2000, viewport=40)
    cut = Cut()
    plan_bottom(state, cut, 10)
    assert cut.tail == 5  # the finished tail entries, never the live one after them
    assert cut.bottom == 5


def test_corrected_scroll_keeps_the_entry_in_place_and_within_bounds() -> None:
    assert corrected_scroll(100, old_y=120, new_y=320, max_y=1000) == 300  # a page mounted above
    assert corrected_scroll(300, old_y=320, new_y=120, max_y=1000) == 100  # entries removed above
    assert corrected_scroll(10, old_y=50, new_y=0, max_y=1000) == 0
    assert corrected_scroll(900, old_y=0, new_y=500, max_y=1000) == 1000


def test_following_keeps_the_bottom_screen_and_the_one_above_it_mounted() -> None:
    # Entry n spans [4n, 4n+3); the view follows the bottom (y=760..800), so a screen above it is y <= 720.
    state = WindowState(stacked(200), scroll_y=300, max_scroll_y=760, viewport=40, max_mounted=150)
    cut = plan_prune(state, 1, following=True)
    assert cut.top == 180  # entries 0..179 end at or above y=719; the last 20 stay, whatever the target
    assert all(entry.bottom is not None and entry.bottom <= 720 for entry in state.window[: cut.top])

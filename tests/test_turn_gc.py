"""`hermes_tui.turn_gc.TurnCollector`: the collector is off while anything is busy and collects once, after
the last holder has resumed and its `later` has run; page loads cannot hold unbounded garbage."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator

import pytest

from hermes_tui.turn_gc import TurnCollector


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


class Later:
    """Holds what `resume` asked to run later, for the test to run when it likes."""

    def __init__(self) -> None:
        self.callbacks: list[Callable[[], None]] = []

    def __call__(self, callback: Callable[[], None]) -> None:
        self.callbacks.append(callback)

    def run(self) -> None:
        for callback in self.callbacks:
            callback()
        self.callbacks.clear()


def test_a_turn_pauses_the_collector_until_its_later_runs() -> None:
    collector, later = TurnCollector(), Later()
    collector.pause("turn")
    assert not gc.isenabled() and collector.paused
    collector.resume(later, "turn")
    assert not gc.isenabled() and len(later.callbacks) == 1
    later.run()
    assert gc.isenabled() and not collector.paused


def test_pages_loading_during_a_turn_do_not_collect_before_the_turn_ends() -> None:
    collector, later = TurnCollector(), Later()
    collector.pause("turn")
    collector.pause("pages")
    collector.resume(later, "pages")
    assert later.callbacks == [] and not gc.isenabled()  # the turn still holds it
    collector.resume(later, "turn")
    later.run()
    assert gc.isenabled()


def test_a_pause_after_a_resume_cancels_the_collection_it_scheduled() -> None:
    collector, later = TurnCollector(), Later()
    collector.pause("pages")
    collector.resume(later, "pages")
    stale = later.callbacks.pop()
    collector.pause("pages")  # the user scrolls on
    stale()
    assert not gc.isenabled()
    collector.resume(later, "pages")
    later.run()
    assert gc.isenabled()


def test_pausing_twice_under_one_name_needs_one_resume() -> None:
    collector, later = TurnCollector(), Later()
    collector.pause("turn")
    collector.pause("turn")
    collector.resume(later, "turn")
    later.run()
    assert gc.isenabled()


def test_page_loads_collect_at_once_past_their_bound_but_a_turn_always_waits() -> None:
    collector, later = TurnCollector(), Later()
    bound = TurnCollector.MAX_PENDING["pages"]
    collector.pause("pages")
    garbage = [[i] for i in range(bound + 1000)]  # tracked objects made while paused
    collector.resume(later, "pages")
    assert gc.isenabled() and later.callbacks == []  # collected then and there
    collector.pause("turn")
    garbage += [[i] for i in range(bound + 1000)]
    collector.resume(later, "turn")
    assert not gc.isenabled() and len(later.callbacks) == 1
    later.run()
    del garbage


def test_a_collector_switched_off_by_someone_else_stays_off() -> None:
    gc.disable()
    collector, later = TurnCollector(), Later()
    collector.pause("pages")
    collector.resume(later, "pages")
    later.run()
    assert not gc.isenabled()

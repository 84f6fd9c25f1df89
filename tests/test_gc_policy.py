"""`hermes_tui.gc_policy.GcPolicy`: the collector is off while anything is busy and collects once, after
the last holder has resumed and its `later` has run; page loads cannot hold unbounded garbage."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator

import pytest

from hermes_tui.gc_policy import GcPolicy


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
    collector, later = GcPolicy(), Later()
    collector.pause("turn")
    assert not gc.isenabled() and collector.paused
    collector.resume(later, "turn")
    assert not gc.isenabled() and len(later.callbacks) == 1
    later.run()
    assert gc.isenabled() and not collector.paused


def test_pages_loading_during_a_turn_do_not_collect_before_the_turn_ends() -> None:
    collector, later = GcPolicy(), Later()
    collector.pause("turn")
    collector.pause("pages")
    collector.resume(later, "pages")
    assert later.callbacks == [] and not gc.isenabled()  # the turn still holds it
    collector.resume(later, "turn")
    later.run()
    assert gc.isenabled()


def test_a_pause_after_a_resume_cancels_the_collection_it_scheduled() -> None:
    collector, later = GcPolicy(), Later()
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
    collector, later = GcPolicy(), Later()
    collector.pause("turn")
    collector.pause("turn")
    collector.resume(later, "turn")
    later.run()
    assert gc.isenabled()


def test_page_loads_collect_at_once_past_their_bound_but_a_turn_always_waits() -> None:
    collector, later = GcPolicy(), Later()
    bound = GcPolicy.MAX_PENDING["pages"]
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
    collector, later = GcPolicy(), Later()
    collector.pause("pages")
    collector.resume(later, "pages")
    later.run()
    assert not gc.isenabled()


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_back_to_back_turns_still_collect_once_enough_is_pending(monkeypatch: pytest.MonkeyPatch) -> None:
    """The next turn starts before the last one's `later` ran, turn after turn: the due collection runs at
    a pause once `MAX_DEFERRED` objects are pending, so the garbage of such turns is bounded."""
    monkeypatch.setattr(GcPolicy, "MAX_DEFERRED", 5_000)
    collector, later = GcPolicy(), Later()
    gc.collect()
    seen: list[int] = []
    for _ in range(6):
        collector.pause("turn")
        cycles = [_Cycle() for _ in range(2_000)]  # a turn's garbage: reference cycles only
        del cycles
        seen.append(gc.get_count()[0])
        collector.resume(later, "turn")  # its `later` never gets to run
    assert not gc.isenabled()  # still paused: a collection is due
    assert max(seen) < 5_000 + 2_500, seen  # pending never grew past the bound and one turn's worth
    assert min(seen[3:]) < seen[2], seen  # a pause collected what had piled up


def test_a_due_collection_below_the_bound_still_waits_for_later(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(GcPolicy, "MAX_DEFERRED", 10**9)
    collector, later = GcPolicy(), Later()
    collector.pause("turn")
    cycles = [_Cycle() for _ in range(1_000)]
    del cycles
    collector.resume(later, "turn")
    pending = gc.get_count()[0]
    collector.pause("turn")  # the next turn, before `later` ran
    assert gc.get_count()[0] >= pending  # no pass at this pause
    collector.resume(later, "turn")
    later.run()  # the first `later` is stale (a turn ran since); the second collects
    assert gc.isenabled() and not collector.paused


def test_the_startup_hand_over_keeps_it_off_for_a_page_that_paused_first() -> None:
    """The app's first frame hands over (`HermesApp._freeze_startup_objects`): a history load that paused
    before it keeps the collector off until its own collection, which then turns it on."""
    collector, later = GcPolicy(), Later()
    collector.pause("pages")  # the collector was on (as in a Pilot app): the pause switched it off
    collector.hand_over()
    assert not gc.isenabled()  # the old `gc.enable()` here left it on while pages went on loading
    collector.resume(later, "pages")
    collector.pause("pages")  # the next page, before `later` ran: still off
    assert not gc.isenabled()
    collector.resume(later, "pages")
    later.run()
    assert gc.isenabled()


def test_the_startup_hand_over_adopts_the_command_lines_pause() -> None:
    """`cli.main` switched the collector off for the startup: a page that paused then did not own that, so
    at the hand-over the collector takes it over and turns it on at its collection, not before."""
    gc.disable()
    collector, later = GcPolicy(), Later()
    collector.pause("pages")
    collector.hand_over()
    assert not gc.isenabled() and collector.paused
    collector.resume(later, "pages")
    assert not gc.isenabled()
    later.run()
    assert gc.isenabled()


def test_the_startup_hand_over_turns_it_on_when_nothing_is_busy() -> None:
    gc.disable()
    collector = GcPolicy()
    collector.hand_over()
    assert gc.isenabled() and not collector.paused


def test_a_fast_start_freezes_early_and_collects_what_died_between_its_two_frames() -> None:
    """The starting screen's frame freezes the startup; what dies before the chat's frame (the starting
    screen, a stylesheet parsed again) is collected then, not frozen for good with the rest."""
    import weakref

    class Node:
        def __init__(self) -> None:
            self.me = self  # a reference cycle: only the collector frees it

    gc.disable()
    collector = GcPolicy()
    try:
        collector.starting_frame_shown()
        assert not gc.isenabled()  # still the startup: off until the chat's frame
        node = Node()
        dead = weakref.ref(node)
        del node
        assert dead() is not None
        collector.first_frame_shown()
        assert dead() is None, "garbage made between the two frames was frozen"
        assert gc.isenabled()
    finally:
        gc.unfreeze()


def collector_uses(source: str) -> list[str]:
    """Every `import gc`, `from gc import ...`, `gc.<name>`, `__import__('gc')` and
    `importlib.import_module('gc')` in `source`, as "line what"."""
    import ast
    import re

    found: list[str] = []
    if not re.search(r"\bgc\b", source):  # every form below names it: most files need no parse
        return found
    for node in ast.walk(ast.parse(source)):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import) and any(alias.name == "gc" for alias in node.names):
            found.append(f"{line} import gc")
        elif isinstance(node, ast.ImportFrom) and node.module == "gc":
            found.append(f"{line} from gc import")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "gc":
            found.append(f"{line} gc.{node.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name | ast.Attribute)
            and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr)
            in ("__import__", "import_module")
            and any(isinstance(arg, ast.Constant) and arg.value == "gc" for arg in node.args)
        ):
            found.append(f"{line} imports gc by name")
    return found


PRODUCT = ("agent", "hermes_tui", "widgets", "themes", "scripted")


def test_only_the_policy_module_drives_the_collector() -> None:
    """`gc` is driven from `hermes_tui/gc_policy.py` alone in the whole product, the engine included (it
    asks for a burst through `agent.core.collector` instead)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    owner = root / "hermes_tui" / "gc_policy.py"
    found: list[str] = []
    for folder in PRODUCT:
        for path in sorted((root / folder).rglob("*.py")):
            if path != owner:
                where = path.relative_to(root)
                found += [f"{where}:{use}" for use in collector_uses(path.read_text(encoding="utf-8"))]
    assert found == []
    assert collector_uses(owner.read_text(encoding="utf-8"))  # the scan sees the calls where they are


def test_the_prewarm_spaces_out_young_passes_and_freezes_what_it_made() -> None:
    """`warming`: the thresholds only (on/off stays with pause and resume), restored after, even on error."""
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), GcPolicy.warming():
        assert gc.get_threshold() == (GcPolicy.WARMING_THRESHOLD, *before[1:])
        assert gc.isenabled()
        made = [object()]
        raise RuntimeError("a failed warm-up")
    try:
        assert gc.get_threshold() == before
        assert not any(o is made for o in gc.get_objects())  # frozen: no pass scans it
    finally:
        gc.unfreeze()


def test_two_warmups_at_once_restore_the_thresholds_when_the_last_ends() -> None:
    """The last run's SDK and this run's engine warm in two threads whose spans overlap: the first out
    must not restore the thresholds under the other, nor the last out leave them spaced for good."""
    before = gc.get_threshold()
    first, second = GcPolicy.warming(), GcPolicy.warming()
    try:
        first.__enter__()
        second.__enter__()
        first.__exit__(None, None, None)
        assert gc.get_threshold() == (GcPolicy.WARMING_THRESHOLD, *before[1:])  # the second still warms
        second.__exit__(None, None, None)
        assert gc.get_threshold() == before
    finally:
        gc.unfreeze()


def test_the_scan_sees_every_way_to_reach_the_collector() -> None:
    source = """
import gc
import importlib
from gc import disable
def later():
    gc.collect()
    __import__("gc").enable()
    importlib.import_module("gc")
"""
    assert sorted(use.split(" ", 1)[1] for use in collector_uses(source)) == [
        "from gc import",
        "gc.collect",
        "import gc",
        "imports gc by name",
        "imports gc by name",
    ]


# ------------------------------------------------------------------------------ the engine's bursts


def test_a_burst_holds_the_collector_off_and_hands_it_back() -> None:
    collector = GcPolicy()
    with collector.burst():
        assert not gc.isenabled()
        with collector.burst():  # another thread's burst meanwhile
            pass
        assert not gc.isenabled()
    assert gc.isenabled() and not collector.paused


def test_a_burst_that_fails_hands_the_collector_back() -> None:
    collector = GcPolicy()
    with pytest.raises(ValueError), collector.burst():
        raise ValueError("an analyser bug")
    assert gc.isenabled()


def test_a_burst_inside_a_turn_leaves_the_turns_pause_alone() -> None:
    collector, later = GcPolicy(), Later()
    collector.pause("turn")
    with collector.burst():
        assert not gc.isenabled()
    assert not gc.isenabled() and collector.paused  # still the turn's
    collector.resume(later, "turn")
    later.run()
    assert gc.isenabled()


def test_a_turn_that_starts_during_a_burst_takes_the_collector_over() -> None:
    collector, later = GcPolicy(), Later()
    with collector.burst():
        collector.pause("turn")
    assert not gc.isenabled() and collector.paused  # the burst's end does not turn it on mid-turn
    collector.resume(later, "turn")
    assert later.callbacks
    later.run()
    assert gc.isenabled()


def test_a_burst_leaves_a_collector_it_found_off_off() -> None:
    collector = GcPolicy()
    gc.disable()  # the startup's pause, before the first frame
    with collector.burst():
        pass
    assert not gc.isenabled()


def test_the_engines_shell_analysis_asks_the_served_owner_for_a_burst() -> None:
    from contextlib import contextmanager

    from agent.core.collector import serve_collector
    from agent.shell.walk import analyze

    bursts: list[bool] = []

    @contextmanager
    def owner() -> Iterator[None]:
        bursts.append(True)
        yield

    serve_collector(owner)
    try:
        assert [[w.text for w in c.argv] for c in analyze("echo hi | cat").commands] == [
            ["echo", "hi"],
            ["cat"],
        ]
    finally:
        serve_collector(None)
    assert bursts == [True]
    assert analyze("true").commands  # with no owner, a burst changes nothing

"""The one owner of the garbage collector: `GcPolicy`, the app's (`HermesApp.gc_policy`), through its
phases. No other module calls `gc.` (`tests/test_gc_policy.py` scans `hermes_tui/` and `widgets/` for it).

- **startup**: off from the command line (`startup_begins`, `cli.main`) until the first frame: the TUI's
  startup allocates hundreds of thousands of long-lived objects (modules, pydantic schemas, CSS), and the
  collector's passes over them are pure cost. `-z` and `acp` have no frame: theirs ends once the engine
  and its SDK are loaded (`startup_ends`). At the first frame (`first_frame_shown`) everything alive is
  frozen out of the scans and the collector is handed back; what the prewarm thread imports after it is
  frozen as well (`freeze_survivors`).
- **turn** and **paging** (a resumed session's history, pages loading): the collector waits while the UI is
  busy and collects once, when it is at rest (`pause`, `resume`).
- **rest**: on, with the startup's objects frozen; `process_ends` turns it on whatever happened.
- **the engine's bursts** (`burst`, served to `agent.core.collector`: the shell analysis of a long script):
  off for the burst if it was on and nothing of ours holds it, on again after it; any thread. A pause that
  comes meanwhile takes the collector over. The engine never calls `gc` itself.

Why the collector waits while busy: measured in tmux on a 20,000-word reply, its full passes ran
mid-stream, 90-240 ms each, on the UI thread (they scan every object made since the startup's freeze, and a
long reply's cached lines are a few hundred thousand of them), and collected next to nothing (26-86
objects). Keys typed meanwhile waited for them: the letters took 0.3-1.6 s to show. Paging back through a
5,000-message session was the same: 56 full passes in 100 pages, 0.39 s each, 42% of the time
(`benchmarks/sessions_bench.py`; every page mounts objects that survive, which is what triggers a full
pass). Reference counting frees the garbage as it goes; only reference cycles wait, for the one collection
once nothing is busy any more (the caller of `resume` says when that is: a burst ends its turn seconds
before its last lines are drawn; pages go on loading while the user scrolls).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ClassVar

__all__ = ["GcPolicy", "policy_of"]


class GcPolicy:
    """`pause(holder)` when something busy starts, `resume(later, holder)` when it ends: once no holder is
    left, `later(collect)` runs `collect`, and it collects unless something paused again meanwhile. Only what
    `pause()` switched off is switched on again. A holder is a name (`TURN`, `PAGING`): pausing twice
    under one name needs one resume, so an unpaired start cannot keep the collector off for good.

    The wait for page loads is bounded by volume: their resume collects at once when more than
    `MAX_PENDING[PAGING]` objects were made since the last pass (scrolling through 100 pages without a pause
    would otherwise hold every unmounted page's reference cycles: 730 MB RSS in the sessions benchmark
    instead of ~190 MB). A turn's end always waits for `later`: its reply's last lines are still being drawn
    (a collection then delayed the last byte on screen from 0.05 to 0.4 s), and its objects are mostly the
    reply's cached lines, alive, not garbage.

    The wait for `later` is bounded too: a collection still due when something pauses again (the next turn
    started before the last one's `later` ran: a queue of messages, or messages sent as soon as a reply
    ends) runs at that pause once more than `MAX_DEFERRED` objects are pending. Without it back-to-back
    turns never collected at all: 300 short turns sent that way in tmux grew the app by ~0.45 MB a turn
    (224 MB), and one idle moment's collection stopped the growth."""

    TURN: ClassVar[str] = "turn"
    PAGING: ClassVar[str] = "pages"
    HISTORY: ClassVar[str] = "history"
    """A resumed session's entries, made at once (no bound: they are alive, not garbage)."""

    MAX_PENDING: ClassVar[dict[str, int]] = {"pages": 200_000}
    """Per holder: objects the collector tracks made, net, since its last pass (~5 pages of history)."""

    WARMING_THRESHOLD: ClassVar[int] = 50_000
    """Objects made, net, between two young passes while the prewarm thread imports (`warming`; the
    default is 700)."""

    MAX_DEFERRED: ClassVar[int] = 200_000
    """Objects pending (made, net, since the last pass) above which a due collection runs when something
    pauses before it ran; one pass between two turns, every few dozen short turns."""

    def __init__(self) -> None:
        self._paused = False
        self._holders: set[str] = set()
        self._epoch = 0
        self._frozen_early = False
        self._lock = threading.RLock()  # the engine's bursts come from its threads
        self._bursts = 0
        self._burst_off = False  # the bursts turned the collector off and will turn it on

    # --------------------------------------------------------------------------------------- startup

    @staticmethod
    def startup_begins() -> None:
        """The command line, before anything heavy is imported: off until the first frame."""
        gc.disable()

    @staticmethod
    def startup_ends() -> None:
        """A process without a first frame (`-z`, `acp`): its startup (the SDKs' hundreds of pydantic models
        above all, whose import the collector's passes slowed by ~25%) is done; what it made is frozen out
        of the scans and the collector is on."""
        gc.freeze()
        gc.enable()

    @staticmethod
    def process_ends() -> None:
        """Whatever happened before or after the first frame (a bad flag, an error, the app's exit): on."""
        gc.enable()

    def starting_frame_shown(self) -> None:
        """A fast start's first frame (drawn before the configuration is read): what is alive now (modules,
        CSS, the default theme) is frozen; the collector stays off. Its second freeze, at the chat's frame,
        then has only the objects made since to look at."""
        gc.freeze()
        self._frozen_early = True

    def first_frame_shown(self) -> None:
        """Move everything alive after the first frame (modules, CSS, themes) out of the collector's scans
        (long sessions then pay far less for its full passes), and end the startup pause (`hand_over`).

        After a fast start's early freeze, the garbage made between the two frames (the stylesheet parsed
        again for the user's theme, the starting screen's lines: ~6,000 objects in reference cycles, ~1.5 MB)
        is collected first, so it is not frozen for good: a young collection over the objects made since
        the early freeze only (a few ms; over the whole startup it would be ~150 ms)."""
        if self._frozen_early:
            gc.collect(0)
        gc.freeze()
        self.hand_over()

    @staticmethod
    def freeze_survivors() -> None:
        """What a warm-up made after the first frame lives as long as the process (the prewarm thread's
        SDK, ~57,000 objects, a third of a full pass while paging back through a long session): out of the
        scans too. Freezing is a constant-time move of the collector's lists, safe from any thread."""
        gc.freeze()

    _warmers: ClassVar[int] = 0
    _cold_threshold: ClassVar[tuple[int, int, int]] = (700, 10, 10)
    _warming_lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    @contextmanager
    def warming(cls) -> Iterator[None]:
        """The prewarm threads' imports (the SDK above all) run with the collector's young passes spaced
        out, and what they made is frozen at the end (`freeze_survivors`). Those objects all survive: the
        passes that would scan them again and again as they are made cost ~20% of the SDK's import (~0.1 s
        of ~0.55 s), and a quick first Enter waits for the import. Its thresholds only: whether the
        collector is on stays with `pause`/`resume` (a turn may start meanwhile), and garbage made by
        others meanwhile is collected as usual, only in larger batches. Two threads may warm at once (the
        last run's SDK, then this run's engine): the first in spaces the passes, the last out restores
        them."""
        with cls._warming_lock:
            if cls._warmers == 0:
                cls._cold_threshold = gc.get_threshold()
                gc.set_threshold(cls.WARMING_THRESHOLD, *cls._cold_threshold[1:])
            cls._warmers += 1
        try:
            yield
        finally:
            with cls._warming_lock:
                cls._warmers -= 1
                if cls._warmers == 0:
                    gc.set_threshold(*cls._cold_threshold)
            cls.freeze_survivors()

    # ------------------------------------------------------------------------------------ busy and rest

    @property
    def paused(self) -> bool:
        """True from the first pause until the collection after the last resume: one is still due."""
        return self._paused

    def pause(self, holder: str = TURN) -> None:
        with self._lock:
            if self._paused and not self._holders and gc.get_count()[0] >= self.MAX_DEFERRED:
                gc.collect()  # the one due since the last resume (the collector stays off: busy again)
            self._epoch += 1
            self._holders.add(holder)
            if not self._paused and (gc.isenabled() or self._burst_off):
                gc.disable()
                self._paused = True
                self._burst_off = False  # ours now: the collection after the last resume turns it on

    def hand_over(self) -> None:
        """The startup pause ends (`startup_begins` turned the collector off until the first frame;
        `first_frame_shown` calls this, in place of `gc.enable()`). If something is busy or a collection is
        still due, the collector stays off and that collection turns it on; otherwise it is on from now.

        Turning it on regardless was a bug: a history page, a resumed session or a first message that
        paused before the first frame then ran with the collector on while this object believed it off,
        and its `resume` never collected (a later pause came first), so every page after it paid full
        passes again (sessions_bench: one every three pages, 70-220 ms each)."""
        with self._lock:
            if self._holders or self._paused:
                if not gc.isenabled():
                    self._paused = True  # off since the startup: ours to turn on at the collection
                    self._burst_off = False
                return
            gc.enable()

    def resume(self, later: Callable[[Callable[[], None]], object], holder: str = TURN) -> None:
        with self._lock:
            self._holders.discard(holder)
            if not self._paused or self._holders:
                return
            epoch = self._epoch

        def collect() -> None:
            with self._lock:
                if self._paused and not self._holders and self._epoch == epoch:
                    self._paused = False
                    gc.enable()
                    gc.collect()

        bound = self.MAX_PENDING.get(holder)
        if bound is not None and gc.get_count()[0] >= bound:
            collect()
        else:
            later(collect)

    @contextmanager
    def burst(self) -> Iterator[None]:
        """The engine makes a burst of short-lived objects without cycles on this thread (any thread): the
        collector off meanwhile if it was on and nothing of ours holds it (a turn's pause already does), on
        again once the last burst ends, unless a pause took it over meanwhile. No collection after it: what
        the burst made is freed as it goes."""
        with self._lock:
            self._bursts += 1
            if not self._paused and not self._burst_off and gc.isenabled():
                gc.disable()
                self._burst_off = True
        try:
            yield
        finally:
            with self._lock:
                self._bursts -= 1
                if not self._bursts and self._burst_off:
                    self._burst_off = False
                    gc.enable()


_PROCESS_POLICY = GcPolicy()


def policy_of(app: object) -> GcPolicy:
    """The app's policy (`HermesApp.gc_policy`); one for the process in an app without one (a harness)."""
    policy = getattr(app, "gc_policy", None)
    return policy if isinstance(policy, GcPolicy) else _PROCESS_POLICY

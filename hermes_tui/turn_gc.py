"""The garbage collector waits while a turn runs and collects once, when the turn's text is on screen.

Measured in tmux on a 20,000-word reply: the collector's full passes ran mid-stream, 90-240 ms each, on the
UI thread (they scan every object made since the startup's `gc.freeze()`, and a long reply's cached lines
are a few hundred thousand of them), and collected next to nothing (26-86 objects). Keys typed meanwhile
waited for them: the letters took 0.3-1.6 s to show. Reference counting frees a turn's garbage as it goes;
only reference cycles wait, for the one collection after the turn, when nothing streams any more (a burst
ends its turn seconds before its last lines are drawn, so the caller says when that is).
"""

from __future__ import annotations

import gc
from collections.abc import Callable

__all__ = ["TurnCollector"]


class TurnCollector:
    """`pause()` when a turn starts, `resume(later)` when it ends: `later(collect)` runs `collect` once the
    turn's output is drawn. Only what `pause()` switched off is switched on again, and a turn that starts
    before the collection keeps the collector off until it ends in turn."""

    def __init__(self) -> None:
        self._paused = False
        self._turn = 0

    @property
    def paused(self) -> bool:
        """True from a turn's start until the collection after it: a timer is still due to run it."""
        return self._paused

    def pause(self) -> None:
        self._turn += 1
        if not self._paused and gc.isenabled():
            gc.disable()
            self._paused = True

    def resume(self, later: Callable[[Callable[[], None]], object]) -> None:
        if not self._paused:
            return
        turn = self._turn

        def collect() -> None:
            if self._paused and self._turn == turn:
                self._paused = False
                gc.enable()
                gc.collect()

        later(collect)

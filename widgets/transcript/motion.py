"""What moves in the transcript, on its pacer: live entries (a running tool call's output and clock) and
the thinking line's animation. The transcript's ticker runs only while one of them moves, so at rest no
timer runs (`tests/app/test_idle.py`)."""

from __future__ import annotations

from collections.abc import Callable

from widgets.transcript.entries.base import Entry
from widgets.transcript.entries.thinking import ThinkingLine
from widgets.transcript.pacer import Pacer

__all__ = ["Motion"]


class Motion:
    """Ticks live entries and `thinking` on `pacer` (`hz`: its rate); `thinking_moved` repaints the line."""

    def __init__(
        self, pacer: Pacer, hz: float, thinking: ThinkingLine, thinking_moved: Callable[[], None]
    ) -> None:
        self._pacer = pacer
        self._hz = hz
        self._thinking = thinking
        self.thinking_moved = thinking_moved  # redraws the thinking line's row (the view's)
        self._live: list[Entry] = []
        self._frame = 0

    def add(self, entry: Entry) -> None:
        """A new entry: ticked while it is live (from the next `sync`)."""
        if entry.is_live:
            self._live.append(entry)

    def discard(self, entry: Entry) -> None:
        if entry in self._live:
            self._live.remove(entry)

    def clear(self) -> None:
        self._live = []

    def sync(self) -> None:
        """Tick while something moves, stop when nothing does (an entry finished, the line hidden)."""
        self._live = [entry for entry in self._live if entry.is_live]
        wanted = bool(self._live) or self._thinking.is_animating
        self._pacer.tick_for("transcript", self._tick if wanted else None)

    def _tick(self) -> None:
        self._frame += 1
        for entry in list(self._live):
            entry.tick(self._frame)
        thinking = self._thinking
        if thinking.is_animating:
            every = max(1, round(self._hz / thinking.fps))
            if self._frame % every == 0:
                thinking.tick()
                self.thinking_moved()
        self.sync()

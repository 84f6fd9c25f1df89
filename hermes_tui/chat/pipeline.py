"""The one path of the agent's events to the widgets: bridge -> pipeline -> turn view -> widgets.

The agent's thread only ever touches the bridge's queue (`hermes_tui.chat.bridge.EventQueue`): that lock is
the one thread boundary on the way. From the drain on, everything runs on the UI thread, so the widgets hold
no locks: a reply's deltas, a tool's output, the reasoning are plain lists the pacer's next render draws.

When the queue is drained (one message per token falls behind, so deltas are coalesced in the queue and
drained in batches: docs/architecture.md, "Measured facts"):
- at once when the bridge wakes the UI (`EventsReady`: a tool starts, the turn ends, a question, and text
  deltas at most `timing.QUIET_WAKE_HZ` times a second);
- while a turn runs, on every tick of the transcript's pacer (`widgets.transcript.pacer`), for the
  deltas a wake held back;
- at rest, never: the tick stops itself once the UI is idle with nothing queued (`UIBridge.sleep`), and the
  next event wakes it. No timer runs at rest.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_tui.chat.bridge import UIBridge
    from hermes_tui.chat.turn_view import TurnView
    from widgets.transcript.pacer import Pacer

__all__ = ["EventPipeline"]


class EventPipeline:
    """Drains `bridge` into `view` on the UI thread, paced by `pacer`; `busy()` says a turn is running."""

    CLIENT = "agent-events"
    """The pipeline's name among the pacer's tick clients."""

    def __init__(
        self,
        bridge: UIBridge,
        pacer: Pacer,
        view: Callable[[], TurnView],
        *,
        busy: Callable[[], bool],
        report: Callable[[str], object],
    ) -> None:
        self.bridge = bridge
        self._pacer = pacer
        self._view = view
        self._busy = busy
        self._report = report

    def start(self) -> None:
        """The screen is up: drain on the pacer's ticks until the first idle moment."""
        self._pacer.tick_for(self.CLIENT, self.tick)

    def drain(self) -> None:
        """Show everything the agent queued since the last drain, in order."""
        view = self._view()
        for event in self.bridge.drain():
            try:
                view.show(event)
            except Exception as exc:  # one event that cannot be drawn must not stop the ones after it
                self._report(f"failed to display {type(event).__name__}: {exc!r}")

    def woken(self) -> None:
        """The bridge woke the UI (`EventsReady`): drain now, and on the ticks again."""
        self.drain()
        self.wake()

    def tick(self) -> None:
        """A pacer tick: drain; once idle with nothing queued, stop (the next event wakes the pipeline)."""
        self.drain()
        if not self._busy() and self.bridge.sleep():
            self._pacer.tick_for(self.CLIENT, None)

    def wake(self) -> None:
        """Drain on the ticks again (a turn started, or an event woke the UI)."""
        self.bridge.wake()
        self._pacer.tick_for(self.CLIENT, self.tick)

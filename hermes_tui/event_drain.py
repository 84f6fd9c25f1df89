"""The chat's drain: what the agent queued in the bridge is shown by the turn view, on the UI thread.

Moved out of the chat screen as it was (the screen calls it); a timer drains at `DRAIN_HZ` and pauses
itself while idle with nothing queued (no timer runs at rest), and any event wakes it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.timer import Timer

    from hermes_tui.bridge import UIBridge
    from hermes_tui.turn_view import TurnView

__all__ = ["DRAIN_HZ", "EventDrain"]

DRAIN_HZ = 15


class EventDrain:
    """Drains one chat's bridge into its turn view."""

    def __init__(
        self,
        bridge: UIBridge,
        turn_view: Callable[[], TurnView],
        busy: Callable[[], bool],
        log_error: Callable[[str], object],
    ) -> None:
        self.bridge = bridge
        self._turn_view = turn_view
        self._busy = busy
        self._log_error = log_error
        self._drain_timer: Timer | None = None

    def start(self, set_interval: Callable[..., Timer]) -> None:
        self._drain_timer = set_interval(1 / DRAIN_HZ, self._drain_tick, name="chat-drain")

    def on_events_ready(self) -> None:
        self._drain()
        self._wake_drain()

    def _drain_tick(self) -> None:
        """The periodic drain; it pauses itself while idle with nothing queued (no timer runs at rest)."""
        self._drain()
        if not self._busy() and self._drain_timer is not None and self.bridge.sleep():
            self._drain_timer.pause()

    def _wake_drain(self) -> None:
        self.bridge.wake()
        if self._drain_timer is not None:
            self._drain_timer.resume()

    def _drain(self) -> None:
        """Show everything the agent queued since the last drain (UI thread)."""
        view = self._turn_view()
        for event in self.bridge.drain():
            try:
                view.show(event)
            except Exception as exc:
                self._log_error(f"failed to display {type(event).__name__}: {exc!r}")

    # The names the chat uses.
    drain = _drain
    wake = _wake_drain

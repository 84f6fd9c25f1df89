"""The live view's one clock: everything time moves on screen is scheduled here.

Before, each thing that moved had its own timer: every streaming reply and reasoning block (`LiveUpdates`),
the transcript's ticks for running tools and the spinner, the chat's drain of the agent's events. Their
rates and pauses drifted apart, and an idle app had to stop each of them on its own. The `Pacer` belongs to
the transcript view (`Transcript.pacer`) and keeps two kinds of time:

- **ticks**, `timing.PACER_HZ` a second, for what moves while it runs: running tools' output and clocks,
  the spinner, the app's drain of the agent's events while a turn runs (`hermes_tui.chat.pipeline`). One
  Textual interval, running only while some client wants ticks: at rest no timer runs.
- **deadlines**, for what is throttled to a rate of its own: a streaming reply's or reasoning's next render
  (`widgets.transcript.entries.base.LiveUpdates`). One one-shot, armed for the earliest: the host's
  `call_after`, not Textual's `set_timer`, whose one-shot never runs when it starts later than its delay.

Everything here runs on the UI thread: no locks.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.timer import Timer

__all__ = ["Deadline", "Pacer", "PacerHost"]

_EARLY = 0.001
"""A deadline this close is due now (Textual's timers may wake a hair early)."""


class Cancellable(Protocol):
    def cancel(self) -> None: ...


class PacerHost(Protocol):
    """What the pacer needs of its owner (the transcript view): Textual's interval and `call_later`, and a
    one-shot that runs late rather than never (`call_after`)."""

    def call_later(self, callback: Callable[..., Any], *args: Any) -> bool: ...

    def call_after(self, delay: float, callback: Callable[[], Any]) -> Cancellable:
        """`callback` once, `delay` seconds from now or as soon after as the loop is free: never skipped."""
        ...

    def set_interval(
        self, interval: float, callback: Callable[[], Any], *, name: str | None = None
    ) -> Timer: ...

    def input_pending(self) -> bool:
        """Typed keys are on their way to their widget: a throttled render may wait a moment for them."""
        ...


class Deadline:
    """One callback due at a time (monotonic); `cancel()` before it runs and it never does."""

    __slots__ = ("_pacer", "callback", "cancelled", "when")

    def __init__(self, pacer: Pacer, when: float, callback: Callable[[], object]) -> None:
        self._pacer = pacer
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        if not self.cancelled:
            self.cancelled = True
            self._pacer._forget(self)


class Pacer:
    def __init__(self, host: PacerHost, hz: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._host = host
        self._hz = hz
        self.clock = clock
        self._tickers: dict[str, Callable[[], object]] = {}
        self._interval: Timer | None = None
        self._running = False  # the host is mounted: timers may be made
        self._due: list[Deadline] = []
        self._timer: Cancellable | None = None
        self._timer_at = 0.0

    # ------------------------------------------------------------------------------------------ ticks

    @property
    def hz(self) -> float:
        return self._hz

    @property
    def ticking(self) -> bool:
        """True while the interval runs (some client wants ticks)."""
        return self._interval is not None

    def tick_for(self, client: str, callback: Callable[[], object] | None) -> None:
        """`callback` runs on every tick from now on, under the name `client`; None: no more ticks for it.
        The interval runs while any client wants ticks."""
        if callback is None:
            self._tickers.pop(client, None)
        else:
            self._tickers[client] = callback
        self._sync_interval()

    def _tick(self) -> None:
        for callback in list(self._tickers.values()):
            callback()

    def _sync_interval(self) -> None:
        if self._tickers and self._interval is None and self._running:
            self._interval = self._host.set_interval(1 / self._hz, self._tick, name="pacer")
        elif not self._tickers and self._interval is not None:
            self._interval.stop()
            self._interval = None

    # --------------------------------------------------------------------------------------- deadlines

    def soon(self, callback: Callable[[], object]) -> bool:
        """Run `callback` on the UI thread as soon as it is free; False when the host is not running."""
        return self._host.call_later(callback)

    def after(self, delay: float, callback: Callable[[], object]) -> Deadline:
        """Run `callback` once, `delay` seconds from now."""
        deadline = Deadline(self, self.clock() + max(0.0, delay), callback)
        self._due.append(deadline)
        self._arm()
        return deadline

    def input_pending(self) -> bool:
        return self._host.input_pending()

    def _forget(self, deadline: Deadline) -> None:
        if deadline in self._due:
            self._due.remove(deadline)
        self._arm()

    def _arm(self) -> None:
        """One timer, for the earliest deadline (none while nothing is due)."""
        if not self._due or not self._running:
            self._stop_timer()
            return
        earliest = min(deadline.when for deadline in self._due)
        if self._timer is not None and self._timer_at <= earliest:
            return
        self._stop_timer()
        self._timer_at = earliest
        self._timer = self._host.call_after(earliest - self.clock(), self._fire)

    def _fire(self) -> None:
        self._timer = None
        now = self.clock() + _EARLY
        due = sorted((d for d in self._due if d.when <= now), key=lambda d: d.when)
        self._due = [d for d in self._due if d.when > now]
        for deadline in due:
            if not deadline.cancelled:
                deadline.cancelled = True  # ran: a late `cancel()` is harmless
                deadline.callback()
        self._arm()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # ------------------------------------------------------------------------------------------ lifetime

    def start(self) -> None:
        """The host is mounted: timers may run (clients that asked before get them now)."""
        self._running = True
        self._sync_interval()
        self._arm()

    def stop(self) -> None:
        """The host is unmounted: no timer runs; what was asked for stays asked (a later `start`)."""
        self._running = False
        if self._interval is not None:
            self._interval.stop()
            self._interval = None
        self._stop_timer()

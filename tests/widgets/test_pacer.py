"""The live view's one clock (`widgets.transcript.pacer`): one interval while something wants ticks, one timer
for the earliest deadline, nothing at rest."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from widgets.transcript.pacer import Pacer


class FakeTimer:
    def __init__(self, host: FakeHost, delay: float, callback: Callable[[], Any], repeat: bool) -> None:
        self.host, self.delay, self.callback, self.repeat = host, delay, callback, repeat
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True

    cancel = stop

    def fire(self) -> None:
        self.stopped = not self.repeat  # a one-shot timer is done once it fired
        self.callback()


class FakeHost:
    """The host's timers as records: the test fires them when it likes."""

    def __init__(self) -> None:
        self.timers: list[FakeTimer] = []
        self.later: list[Callable[[], Any]] = []

    def call_later(self, callback: Callable[..., Any], *args: Any) -> bool:
        self.later.append(callback)
        return True

    def call_after(self, delay: float, callback: Callable[[], Any]) -> FakeTimer:
        timer = FakeTimer(self, delay, callback, repeat=False)
        self.timers.append(timer)
        return timer

    def set_interval(
        self, interval: float, callback: Callable[[], Any], *, name: str | None = None
    ) -> FakeTimer:
        timer = FakeTimer(self, interval, callback, repeat=True)
        self.timers.append(timer)
        return timer

    def input_pending(self) -> bool:
        return False

    def live(self) -> list[FakeTimer]:
        return [timer for timer in self.timers if not timer.stopped]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_ticks_run_on_one_interval_only_while_a_client_wants_them() -> None:
    host = FakeHost()
    pacer = Pacer(host, 12.0)
    seen: list[str] = []
    pacer.tick_for("a", lambda: seen.append("a"))  # before the host is mounted: no timer yet
    assert host.live() == []
    pacer.start()
    pacer.tick_for("b", lambda: seen.append("b"))
    (interval,) = host.live()
    assert interval.repeat and abs(interval.delay - 1 / 12) < 1e-9
    interval.fire()
    assert seen == ["a", "b"]
    pacer.tick_for("a", None)
    pacer.tick_for("b", None)
    assert host.live() == [] and not pacer.ticking  # at rest no timer runs


def test_deadlines_share_one_timer_for_the_earliest_and_a_cancelled_one_never_runs() -> None:
    host, clock = FakeHost(), Clock()
    pacer = Pacer(host, 12.0, clock=clock)
    pacer.start()
    ran: list[str] = []
    pacer.after(0.2, lambda: ran.append("late"))
    early = pacer.after(0.05, lambda: ran.append("early"))
    soon = pacer.after(0.1, lambda: ran.append("soon"))
    (timer,) = host.live()  # one timer, re-armed for the earliest
    assert abs(timer.delay - 0.05) < 1e-9
    early.cancel()
    clock.now += 0.1
    host.live()[0].fire()
    assert ran == ["soon"]
    soon.cancel()  # after it ran: harmless
    clock.now += 0.1
    host.live()[0].fire()
    assert ran == ["soon", "late"] and host.live() == []


def test_a_stopped_pacer_runs_nothing_until_it_starts_again() -> None:
    host, clock = FakeHost(), Clock()
    pacer = Pacer(host, 12.0, clock=clock)
    pacer.start()
    pacer.tick_for("a", lambda: None)
    pacer.after(0.1, lambda: None)
    assert len(host.live()) == 2
    pacer.stop()
    assert host.live() == []
    pacer.start()
    assert len(host.live()) == 2

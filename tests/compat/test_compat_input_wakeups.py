"""`textual_compat.input_wakeups`: the input thread's selector waits long only when input has been quiet,
returns at once when bytes arrive, and its exit event wakes it."""

from __future__ import annotations

import os
import selectors
import threading
import time
from collections.abc import Iterator

import pytest

from hermes_tui.textual_compat import input_wakeups
from hermes_tui.textual_compat.input_wakeups import QuietSelector, WakingEvent


@pytest.fixture
def tty() -> Iterator[tuple[QuietSelector, int, int]]:
    """A selector watching the read end of a pipe that stands in for the terminal."""
    read, write = os.pipe()
    selector = QuietSelector()
    selector.register(read, selectors.EVENT_READ)
    yield selector, read, write
    selector.close()
    os.close(read)
    os.close(write)


def timed_select(selector: QuietSelector, timeout: float) -> tuple[float, list[object]]:
    start = time.monotonic()
    events = selector.select(timeout)
    return time.monotonic() - start, list(events)


def test_recent_input_keeps_the_drivers_short_timeout(tty: tuple[QuietSelector, int, int]) -> None:
    selector, read, write = tty
    os.write(write, b"a")
    elapsed, events = timed_select(selector, 0.1)
    assert len(events) == 1 and os.read(read, 10) == b"a"
    elapsed, events = timed_select(selector, 0.1)  # the parser may be waiting for a lone ESC's timeout
    assert events == [] and elapsed < 0.5


def test_quiet_input_waits_longer_but_a_key_returns_at_once(
    tty: tuple[QuietSelector, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    selector, read, write = tty
    monkeypatch.setattr(input_wakeups, "QUIET_AFTER", 0.0)
    monkeypatch.setattr(input_wakeups, "IDLE_TIMEOUT", 0.6)
    elapsed, events = timed_select(selector, 0.1)
    assert events == [] and elapsed >= 0.5
    threading.Timer(0.1, os.write, (write, b"k")).start()
    elapsed, events = timed_select(selector, 0.1)
    assert len(events) == 1 and elapsed < 0.4
    assert os.read(read, 10) == b"k"


def test_the_exit_event_wakes_a_waiting_selector_and_it_never_waits_long_again(
    tty: tuple[QuietSelector, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    selector, _read, _write = tty
    monkeypatch.setattr(input_wakeups, "QUIET_AFTER", 0.0)
    monkeypatch.setattr(input_wakeups, "IDLE_TIMEOUT", 30.0)
    exit_event = WakingEvent()
    threading.Timer(0.1, exit_event.set).start()
    elapsed, events = timed_select(selector, 0.1)
    assert exit_event.is_set() and events == [] and elapsed < 5  # woken, not 30 s
    elapsed, events = timed_select(selector, 0.1)  # the driver's last select before its thread ends
    assert events == [] and elapsed < 1


def test_install_puts_both_in_the_linux_driver() -> None:
    from textual.drivers import linux_driver

    assert input_wakeups.install() and input_wakeups.install()
    assert linux_driver.selectors.SelectSelector is QuietSelector
    assert linux_driver.selectors.EVENT_READ == selectors.EVENT_READ
    assert isinstance(linux_driver.Event(), WakingEvent)

"""Textual's input thread sleeps while nothing is typed, instead of waking ten times a second.

Textual 8.2.8's Linux driver reads the terminal in a thread that loops on `select(0.1)`: the timeout is how
it notices its exit event and how the key parser's timeouts fire (a lone ESC is the Escape key once no more
bytes follow). At the prompt with nothing typed that was the idle app's largest cost: 49 ms of CPU per 20 s
(`/proc/<pid>/task/<tid>/schedstat` of the `textual-input` thread in tmux), 10 wakeups a second for nothing.

`install()` changes two names the driver module looks up:

- `selectors`: its `SelectSelector` becomes `QuietSelector`, which passes the driver's timeout through while
  input is recent (within `QUIET_AFTER`: the parser may be waiting on a timeout) and otherwise waits up to
  `IDLE_TIMEOUT` for the terminal or its own wake pipe;
- `Event` (the driver's `exit_event` only): `WakingEvent.set()` also wakes every live `QuietSelector`, so
  quitting, suspending (Ctrl+Z) and handing the terminal to `$EDITOR` stop the input thread at once. After a
  wake the selector never waits longer than asked again (the driver's last `select(0.1)` before it ends).

Keys are read the moment they arrive in either state; only the idle loop's own wakeups are fewer. Does
nothing if the names are gone in another Textual.
"""

from __future__ import annotations

import os
import selectors
import threading
import time
import weakref
from typing import Any

from widgets.support import timing

__all__ = ["IDLE_TIMEOUT", "QUIET_AFTER", "QuietSelector", "WakingEvent", "install"]

IDLE_TIMEOUT = timing.INPUT_IDLE_TIMEOUT
QUIET_AFTER = timing.INPUT_QUIET_AFTER

_LIVE: weakref.WeakSet[QuietSelector] = weakref.WeakSet()


class QuietSelector:
    """A `selectors.SelectSelector` for the driver's input thread, with a wake pipe and a longer idle wait."""

    def __init__(self) -> None:
        self._inner = selectors.SelectSelector()
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        self._inner.register(self._wake_read, selectors.EVENT_READ)
        self._last_input = time.monotonic()
        self._woken = False
        _LIVE.add(self)

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._inner.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self._inner.unregister(fileobj)

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        wait = timeout
        quiet = time.monotonic() - self._last_input >= QUIET_AFTER
        if quiet and not self._woken and timeout is not None and timeout < IDLE_TIMEOUT:
            wait = IDLE_TIMEOUT
        events = []
        for key, mask in self._inner.select(wait):
            if key.fd == self._wake_read:
                self._drain()
            else:
                events.append((key, mask))
        if events:
            self._last_input = time.monotonic()
        return events

    def wake(self) -> None:
        """Return from a waiting `select` now (thread-safe)."""
        self._woken = True
        try:
            os.write(self._wake_write, b"\0")
        except OSError:  # closed, or the pipe is full of wakes already
            pass

    def close(self) -> None:
        _LIVE.discard(self)
        self._inner.close()
        for fd in (self._wake_read, self._wake_write):
            try:
                os.close(fd)
            except OSError:
                pass

    def _drain(self) -> None:
        try:
            while os.read(self._wake_read, 512):
                pass
        except OSError:  # BlockingIOError: drained
            pass


class WakingEvent(threading.Event):
    """The driver's exit event: setting it also wakes the input thread's selector."""

    def set(self) -> None:
        super().set()
        for selector in list(_LIVE):
            selector.wake()


class _SelectorsModule:
    """Stands in for the `selectors` module inside the driver: the same, but `SelectSelector` is ours."""

    SelectSelector = QuietSelector

    def __init__(self, module: Any) -> None:
        self.original = module

    def __getattr__(self, name: str) -> Any:
        return getattr(self.original, name)


class _EventFactory:
    """Stands in for `threading.Event` inside the driver (its exit event is the one `Event()` it makes)."""

    def __init__(self, original: Any) -> None:
        self.original = original

    def __call__(self) -> WakingEvent:
        return WakingEvent()


def install() -> bool:
    """Put the quiet selector and the waking exit event in the Linux driver; True if both are in place."""
    try:
        from textual.drivers import linux_driver
    except Exception:  # not on this platform (termios)
        return False
    from hermes_tui.textual_compat.hooks import wrap_once

    return wrap_once(linux_driver, "selectors", _SelectorsModule) and wrap_once(
        linux_driver, "Event", _EventFactory
    )

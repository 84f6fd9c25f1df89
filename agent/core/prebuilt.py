"""Things built ahead of their first use, by configuration, and taken once: `Prebuilt`.

A session's first request needs a few things that each take tens to hundreds of milliseconds to make (the
SDK client, with the SDK's import; a local server's context window, asked over HTTP). The app's prewarm
thread builds them after its first frame for the configuration it starts with (`agent.session.prewarm`).
A user quick enough to press Enter while one is still being built must not make a second copy beside it:
both threads share one interpreter lock, so both copies would be ready later than the one. The first taker
waits for the build in progress instead, and builds its own only when none was started (or it failed, or
took longer than `patience`).

Taken once: what the first session took is not handed to a later one (`/new`, a resumed session), which
builds its own, as it did before anything was built ahead.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["Prebuilt"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class _Slot(Generic[V]):
    __slots__ = ("done", "result")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: tuple[V] | None = None  # set once built; None while building or when it failed


class Prebuilt(Generic[K, V]):
    """`build(key, make)` ahead (any thread), `take(key, make)` at first use: the value built ahead for
    `key` (waiting for a build in progress), else `make()`. Thread-safe."""

    def __init__(self, patience: float = 30.0) -> None:
        self.patience = patience
        self._lock = threading.Lock()
        self._slots: dict[K, _Slot[V]] = {}

    def build(self, key: K, make: Callable[[], V]) -> None:
        """Build the value for `key` in this thread, unless one is built or being built and not yet taken.
        A failure is kept quiet here: the taker makes its own and meets the error itself."""
        with self._lock:
            if key in self._slots:
                return
            slot: _Slot[V] = _Slot()
            self._slots[key] = slot
        try:
            slot.result = (make(),)
        except Exception:
            with self._lock:
                if self._slots.get(key) is slot:
                    del self._slots[key]
        finally:
            slot.done.set()

    def take(self, key: K, make: Callable[[], V]) -> V:
        """The value built ahead for `key` (once), else a new one from `make()`."""
        with self._lock:
            slot = self._slots.pop(key, None)
        if slot is not None and slot.done.wait(self.patience) and slot.result is not None:
            return slot.result[0]
        return make()

    def pending(self, key: K) -> bool:
        """A value for `key` is built or being built, and not taken yet."""
        with self._lock:
            return key in self._slots

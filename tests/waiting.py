"""Waiting in tests, in one place: every wait polls a condition, is bounded, and fails at its deadline saying
what it waited for and what it last saw.

A fixed sleep never decides a result: under load (8 helpers on 2 cores, a CI box) any fixed time is too
short some day, and on an idle machine it is always too long. A wait on the condition is as fast as the
machine and as patient as the deadline. The deadlines are generous because reaching one is a failure, not
the normal path: they cost nothing when the test passes.

`SETTLE` is the one time between two looks. `QUIET` is the one time a test waits when it checks that
something does *not* happen (a stray key answers nothing, a process is left alone): no condition can end
such a wait early, so it is short, and each use says why waiting that long is sound.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

SETTLE = 0.05
"""Seconds between two looks at a condition (the screen, /proc, a file, the app's state)."""

TIMEOUT = 30.0
"""The default deadline: reached only when the test fails, so generous for a loaded machine."""

QUIET = 0.5
"""How long a test watches for something that must not happen before it checks that it did not."""


def _deadline_error(what: str, timeout: float, last: object) -> AssertionError:
    shown = last if isinstance(last, str) else repr(last)
    return AssertionError(f"{what or 'condition'}: not within {timeout:g} s; last seen:\n{shown}")


def wait_until(
    condition: Callable[[], T],
    what: str = "",
    *,
    timeout: float = TIMEOUT,
    seen: Callable[[], object] | None = None,
    step: float = SETTLE,
) -> T:
    """The first truthy value of `condition()`, polled every `step` until `timeout`; else AssertionError
    with `what` and the last value (or `seen()`, when the condition's value says little, e.g. a bool)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise _deadline_error(what, timeout, seen() if seen is not None else value)
        time.sleep(step)


def eventually(condition: Callable[[], bool], timeout: float = TIMEOUT, step: float = SETTLE) -> bool:
    """Whether `condition()` became true within `timeout`: for callers that report the failure themselves
    (a reliability trial collects its failures instead of raising)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def wait_for_file(path: Path, what: str = "", *, timeout: float = TIMEOUT) -> str:
    """The text of `path` once it exists and is not empty (a child's marker, a shell's exit code)."""

    def text() -> str:
        try:
            return path.read_text()
        except OSError:
            return ""

    return wait_until(
        text, what or f"{path} was never written", timeout=timeout, seen=lambda: f"{path} missing or empty"
    )


async def wait_for_async(
    condition: Callable[[], T],
    what: str = "",
    *,
    timeout: float = 10.0,
    pause: Callable[[float], Any] | None = None,
    seen: Callable[[], object] | None = None,
) -> T:
    """`wait_until` inside an event loop: `pause(SETTLE)` (a Pilot's `pause`, so the app processes its
    messages between looks) or `asyncio.sleep` between looks."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise _deadline_error(what, timeout, seen() if seen is not None else value)
        if pause is not None:
            await pause(SETTLE)
        else:
            await asyncio.sleep(SETTLE)

"""`textual._callback.count_parameters` runs `inspect.signature` again for every new `functools.partial`.

`call_later`, `call_next`, `call_after_refresh` and `set_timer`/`set_interval` wrap each callback in a new
`partial`, and `count_parameters` caches its answer on the callable it is given (`func._param_count`), which
for a partial is the new partial object: so every call pays for `inspect.signature` (~30 us) again.

This counts the `signature()` calls made by `count_parameters` while an app (headless) runs `call_later`
on the same method N times, for two values of N. Exit 1 and "BUG: ..." if the count grows with N.
"""

from __future__ import annotations

import asyncio
import sys
import timeit
from functools import partial

import textual
from textual import _callback
from textual.app import App

calls = 0
_real_signature = _callback.signature


def counting_signature(func, *args, **kwargs):  # type: ignore[no-untyped-def]
    global calls
    calls += 1
    return _real_signature(func, *args, **kwargs)


_callback.signature = counting_signature  # the name `_count_parameters` looks up


class CallLaterApp(App[None]):
    def __init__(self, times: int) -> None:
        super().__init__()
        self.times = times
        self.done = 0

    def tick(self) -> None:
        self.done += 1


async def signature_calls(times: int) -> int:
    global calls
    app = CallLaterApp(times)
    async with app.run_test() as pilot:
        await pilot.pause()
        before = calls
        for _ in range(times):
            app.call_later(app.tick)
        while app.done < times:
            await pilot.pause()
        return calls - before


def tick() -> None:
    pass


async def main() -> int:
    print(f"textual {textual.__version__}")
    small, large = await signature_calls(100), await signature_calls(1000)
    print(f"inspect.signature calls by count_parameters: 100 call_later -> {small}, 1000 -> {large}")
    _callback.signature = _real_signature  # time it without the counter
    per_call = timeit.timeit(lambda: _callback.count_parameters(partial(tick)), number=2000) / 2000
    cached = timeit.timeit(lambda: _callback.count_parameters(tick), number=2000) / 2000
    print(f"count_parameters(partial(f)): {per_call * 1e6:.1f} us a call")
    print(f"count_parameters(f):          {cached * 1e6:.2f} us a call (cached on the function)")
    if large > small + 10:
        print("BUG: count_parameters recomputes the signature for every partial of the same callback")
        return 1
    print("fixed: the signature is computed once per callback, not once per call")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

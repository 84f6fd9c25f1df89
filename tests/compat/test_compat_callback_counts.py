"""`textual_compat.callback_counts`: the same counts as Textual's, without a signature per timer tick."""

from __future__ import annotations

import inspect
from functools import partial
from typing import Any

import pytest
from textual import _callback
from textual.app import App

from hermes_tui.textual_compat import callback_counts
from hermes_tui.textual_compat.callback_counts import CachedCounts


class _Owner:
    def none(self) -> None: ...
    def one(self, a: int) -> None: ...
    def star(self, *args: Any) -> None: ...
    def keyword(self, a: int, *, b: int = 0) -> None: ...


def _plain(a: int, b: int) -> None: ...


def _shapes() -> list[Any]:
    owner = _Owner()
    return [
        partial(owner.none),
        partial(owner.one),
        partial(owner.one, 1),
        partial(owner.star),
        partial(owner.keyword, b=2),
        partial(_plain),
        partial(_plain, 1),
        partial(lambda: None),
        partial(print),  # a builtin: left to Textual
        partial(partial(_plain, 1)),  # a partial of a partial: left to Textual
        owner.one,
        _plain,
    ]


def _textual_count(func: Any) -> int:
    # Textual's own rule, without its attribute cache (a partial is new each time anyway)
    if isinstance(func, partial):
        return len(inspect.signature(func.func).parameters) - (len(func.args) + len(func.keywords))
    if hasattr(func, "__self__"):
        return len(inspect.signature(func.__func__).parameters) - 1
    return len(inspect.signature(func).parameters)


def test_counts_are_textuals_for_every_shape_of_callback() -> None:
    counts = CachedCounts(_textual_count)
    for _ in range(2):  # computed, then from the cache
        for func in _shapes():
            assert counts(func) == _textual_count(func), func


def test_a_new_partial_of_the_same_method_is_not_counted_again(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    real = inspect.signature

    def counting(obj: Any, *args: Any, **kwargs: Any) -> inspect.Signature:
        calls.append(obj)
        return real(obj, *args, **kwargs)

    counts = CachedCounts(_textual_count)
    monkeypatch.setattr(inspect, "signature", counting)
    first, second = _Owner(), _Owner()
    assert counts(partial(first.one)) == 1
    assert counts(partial(second.one)) == 1  # another instance, another partial: the same function
    assert counts(partial(first.one, 5)) == 0
    assert counts(partial(_plain, 1)) == 1
    assert counts(partial(_plain)) == 2
    assert len(calls) == 2  # once for the method, once for the function


def test_install_is_idempotent_and_textual_invokes_through_it() -> None:
    assert callback_counts.install() and callback_counts.install()
    hook = _callback.count_parameters
    assert isinstance(hook, CachedCounts) and not isinstance(hook.original, CachedCounts)


async def test_timers_and_call_later_still_pass_their_arguments() -> None:
    callback_counts.install()
    seen: list[object] = []

    class TimersApp(App[None]):
        def on_mount(self) -> None:
            self.call_later(self.got, "later")
            self.set_timer(0.01, self.tick)
            self.call_later(lambda: seen.append("lambda"))

        def got(self, value: str) -> None:
            seen.append(value)

        def tick(self) -> None:
            seen.append("timer")

    app = TimersApp()
    async with app.run_test() as pilot:
        for _ in range(50):
            if len(seen) == 3:
                break
            await pilot.pause(0.02)
    assert sorted(seen) == ["lambda", "later", "timer"]

"""Count a callback's parameters once per function, not on every timer tick and `call_later`.

Textual invokes every callback through `textual._callback.count_parameters`, which caches its answer on the
callable. But `set_timer` and `call_later` wrap the callback in a new `functools.partial` each time, and for
a partial the count is worked out again with `inspect.signature` (~30 µs) every time: a timer firing costs
two signature calls (the partial of `call_next`, then the partial of the callback). While a reply streams
that was 7% of the UI thread (py-spy, 50 chunks/s in tmux): the live view's timer and its `call_later`,
sixteen times a second, and every key that passes the key order.

`install()` wraps Textual's function with one that answers partials of plain functions and bound methods
from a cache keyed on the function (weakly: a function that goes away leaves the cache). The count itself is
still Textual's rule, computed once on the first callable of each kind, so behaviour does not change.
(Textual 8.2.8; worth reporting upstream. Does nothing if the name is gone.)
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable
from functools import partial
from typing import Any

__all__ = ["CachedCounts", "install"]

_HOOK = "count_parameters"


class CachedCounts:
    """A drop-in for Textual's `count_parameters`: partials of functions and bound methods are counted from
    a cache keyed on the underlying function; everything else goes to Textual's own function."""

    def __init__(self, original: Callable[[Callable[..., Any]], int]) -> None:
        self.original = original
        self._functions: weakref.WeakKeyDictionary[Callable[..., Any], int] = weakref.WeakKeyDictionary()
        self._methods: weakref.WeakKeyDictionary[Callable[..., Any], int] = weakref.WeakKeyDictionary()

    def __call__(self, func: Callable[..., Any]) -> int:
        if not isinstance(func, partial):
            return self.original(func)
        inner = func.func
        bound = len(func.args) + len(func.keywords)
        if inspect.ismethod(inner):  # a bound Python method: its count depends on the function only
            table, key = self._methods, inner.__func__
        elif inspect.isfunction(inner):
            table, key = self._functions, inner
        else:
            return self.original(func)
        count = table.get(key)
        if count is None:
            count = len(inspect.signature(inner).parameters)  # what Textual counts for `inner`
            table[key] = count
        return count - bound


def install() -> bool:
    """Put `CachedCounts` in front of Textual's `count_parameters`; True if it is in place."""
    try:
        from textual import _callback
    except Exception:  # pragma: no cover - Textual is a dependency
        return False
    from hermes_tui.textual_compat.hooks import wrap_once

    return wrap_once(_callback, _HOOK, CachedCounts)

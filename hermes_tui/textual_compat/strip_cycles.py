"""Keep a `Strip` out of a reference cycle with itself, so the lines a view drew are freed as they go.

Textual 8.2.8's `Strip.divide(cuts)` caches its result on the strip, and when the only cut is the strip's
own length (a widget as wide as the screen: the transcript, every row of every frame) the result is
`[self]`: the strip then refers to itself through its cache. `adjust_cell_length` does the same when the
length is already right (`strip = self`, cached). Such a strip is not freed when the last reference goes,
only by the cyclic collector, which the app holds off while a reply streams (`hermes_tui.gc_policy`): a
1,500-word reply left ~3,400 strips and ~50,000 objects (their caches and segments) for the collection at
rest, measured headless with the collector paused; in tmux the peak RSS of that stream was ~3 MB over the
widget-per-entry transcript's.

`install()` puts in front of both methods a wrapper that answers those two cases without caching (the
same result: `[self]` and `self`, which cost nothing to compute again) and leaves every other case to
Textual. No private name is touched. Does nothing if the methods are gone in another Textual.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from types import MethodType
from typing import Any

from rich.style import Style
from textual.strip import Strip

from hermes_tui.textual_compat.hooks import wrap_once

__all__ = ["install"]


class _StripMethod:
    """Stands in for a method on `Strip` (binds like one: a descriptor)."""

    def __init__(self, original: Callable[..., Any]) -> None:
        self.original = original

    def __get__(self, strip: Strip | None, owner: type | None = None) -> Any:
        return self if strip is None else MethodType(self._call, strip)

    def _call(self, strip: Strip, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


class UncachedWholeDivide(_StripMethod):
    def _call(self, strip: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
        cell_length = strip.cell_length
        cuts = [cut for cut in cuts if cut <= cell_length]
        if cuts == [cell_length]:
            return [strip]
        result: Sequence[Strip] = self.original(strip, cuts)
        return result


class UncachedSameLength(_StripMethod):
    def _call(self, strip: Strip, cell_length: int, style: Style | None = None) -> Strip:
        if cell_length == strip.cell_length:
            return strip
        result: Strip = self.original(strip, cell_length, style)
        return result


def install() -> bool:
    """True if both wrappers are in place (idempotent)."""
    divide = wrap_once(Strip, "divide", UncachedWholeDivide)
    adjust = wrap_once(Strip, "adjust_cell_length", UncachedSameLength)
    return divide and adjust

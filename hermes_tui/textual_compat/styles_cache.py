"""Stop Textual's per-widget line cache from outliving its widget.

Textual 8.2.8 decorates `StylesCache.get_inner_outer(self, base_background, background)` with
`functools.lru_cache(1024)`: on an instance method the cache's key includes `self`, so it keeps the last
1,024 `StylesCache` objects alive, and each of them keeps every line its widget ever painted (`_cache`, a
dict of y -> Strip, each Strip with its own seven small caches). A widget that is unmounted (the transcript
unmounts finished entries as a session grows, and pages of history come and go) is freed, its painted lines
are not. Measured in tmux with `terminal_stream.py --history 300`: the app grew ~0.47 MB a turn, 224 MB
after 300 short turns; the live widgets stayed constant, the `Strip`s held through these cache keys grew
16 a turn (upstream: Textualize/textual#6665, open).

The answer depends on the two colours only (the method never reads `self`), so `install()` puts a function
in its place that caches on the colours alone: same values, no widget state held. Does nothing if the name
is gone in another Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from textual._styles_cache import StylesCache
from textual.color import Color
from textual.style import Style

from hermes_tui.textual_compat.hooks import wrap_once

__all__ = ["ColourKeyedInnerOuter", "install"]


@lru_cache(1024)
def _inner_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
    """What Textual's method returns, cached on the colours (both immutable, hashable)."""
    return Style(background=base_background + background), Style(background=base_background)


class ColourKeyedInnerOuter:
    """Stands in for the method on the class. Not a descriptor, so `self.get_inner_outer(a, b)` calls it
    with the two colours only; the old cache is emptied so the caches it held go now."""

    def __init__(self, original: Callable[..., Any]) -> None:
        self.original = original  # never called again (the canary reads its signature)
        cache_clear = getattr(original, "cache_clear", None)
        if cache_clear is not None:
            cache_clear()

    def __call__(self, base_background: Color, background: Color) -> tuple[Style, Style]:
        return _inner_outer(base_background, background)


def install() -> bool:
    """True if the replacement is in place (idempotent)."""
    return wrap_once(StylesCache, "get_inner_outer", ColourKeyedInnerOuter)

"""`textual_compat.styles_cache`: a removed widget's painted lines are freed with it (Textual 8.2.8's
`StylesCache.get_inner_outer` cache kept the last 1,024 widgets' line caches alive)."""

from __future__ import annotations

import asyncio
import gc
import weakref

from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.color import Color
from textual.containers import Vertical
from textual.widgets import Static

from hermes_tui.textual_compat import styles_cache as styles_cache_colors


class _Cards(App[None]):
    CSS = "Static { background: $panel; padding: 0 1; }"

    def compose(self) -> ComposeResult:
        yield Vertical(id="list")


async def _painted_then_removed() -> list[weakref.ref[StylesCache]]:
    """Weak references to the line caches of eight painted cards, once the cards are removed and the
    app has ended."""
    app = _Cards()
    async with app.run_test(size=(60, 20)) as pilot:
        await app.query_one("#list").mount_all(Static(f"card {i} " * 5) for i in range(8))
        await pilot.pause()
        caches = [card._styles_cache for card in app.query(Static)]
        assert len(caches) == 8 and all(cache._cache for cache in caches), "the cards were painted"
        refs = [weakref.ref(cache) for cache in caches]
        del caches
        await app.query_one("#list").remove_children()
        await pilot.pause()
    return refs


def _removed_caches_alive() -> int:
    """In a loop of its own, closed before counting: nothing the app scheduled is still pending."""
    refs = asyncio.run(_painted_then_removed())
    for _ in range(3):  # the app's finalizers free what they held on the next pass
        gc.collect()
    return sum(ref() is not None for ref in refs)


def test_a_removed_widgets_line_cache_is_freed() -> None:
    styles_cache_colors.install()
    assert _removed_caches_alive() == 0


def test_without_it_textuals_method_keeps_them(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The test above can fail: Textual's own method (restored here) holds the caches."""
    from functools import lru_cache

    def original(self: StylesCache, base: Color, background: Color) -> object:
        return styles_cache_colors._inner_outer(base, background)

    monkeypatch.setattr(StylesCache, "get_inner_outer", lru_cache(1024)(original))
    assert _removed_caches_alive() == 8


def test_same_styles_as_textuals_method() -> None:
    styles_cache_colors.install()
    base, background = Color.parse("#102030"), Color.parse("rgba(200,100,50,0.5)")
    inner, outer = StylesCache().get_inner_outer(base, background)
    assert inner.background == base + background
    assert outer.background == base
    assert styles_cache_colors.install()  # idempotent
    assert isinstance(StylesCache.__dict__["get_inner_outer"], styles_cache_colors.ColourKeyedInnerOuter)

"""`StylesCache.get_inner_outer` is an `lru_cache(1024)` on an instance method, so its keys hold the last
1,024 `StylesCache` objects alive, and with each the lines (`Strip`s) its widget painted, after the widget
has been removed and collected.

Headless: mount 50 `Static`s, let them paint, remove them, mount a replacement batch (so the removed
widgets are no longer referred to by the last arrangement) and `gc.collect()`. The widgets are gone; their
`StylesCache`s should be too. Then `get_inner_outer.cache_clear()` shows who was holding them.
Exit 1 and "BUG: ..." if the removed widgets' caches outlive them.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import weakref

import textual
from textual._styles_cache import StylesCache
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

COUNT = 50


class LeakApp(App[None]):
    CSS = "Static { background: $panel; }"

    def compose(self) -> ComposeResult:
        yield Vertical(id="list")


def alive(refs: list[weakref.ref[object]]) -> int:
    return sum(ref() is not None for ref in refs)


async def main() -> int:
    print(f"textual {textual.__version__}")
    app = LeakApp()
    async with app.run_test(size=(80, 120)) as pilot:
        container = app.query_one("#list")
        widgets = [Static(f"card {i}\nsecond line") for i in range(COUNT)]
        await container.mount_all(widgets)
        await pilot.pause()
        widget_refs = [weakref.ref(widget) for widget in widgets]
        cache_refs = [weakref.ref(widget._styles_cache) for widget in widgets]
        painted = sum(len(widget._styles_cache._cache) for widget in widgets)
        del widgets
        await container.remove_children()
        await container.mount_all(Static(f"replacement {i}") for i in range(COUNT))
        await pilot.pause()
        gc.collect()
        widgets_alive, caches_alive = alive(widget_refs), alive(cache_refs)
        strips_alive = sum(len(ref()._cache) for ref in cache_refs if ref() is not None)
        method = StylesCache.get_inner_outer
        info = method.cache_info() if hasattr(method, "cache_info") else "not an lru_cache"
        if hasattr(method, "cache_clear"):
            method.cache_clear()
        gc.collect()
        after_clear = alive(cache_refs)
    print(f"{COUNT} widgets painted {painted} lines, were removed, replaced and collected:")
    print(f"  removed widgets alive: {widgets_alive}/{COUNT}")
    print(f"  their StylesCaches alive: {caches_alive}/{COUNT}, holding {strips_alive} painted Strips")
    print(f"  StylesCache.get_inner_outer: {info}")
    print(f"  after get_inner_outer.cache_clear(): StylesCaches alive: {after_clear}/{COUNT}")
    if caches_alive and not widgets_alive:
        print("BUG: get_inner_outer's lru_cache keeps removed widgets' StylesCaches and painted strips")
        return 1
    if widgets_alive:
        print("inconclusive: the removed widgets themselves are still referred to")
        return 2
    print("fixed: nothing of the removed widgets survives")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

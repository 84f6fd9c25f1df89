"""Every restyle of a widget with component classes makes new virtual `DOMNode`s, one per class, and the
old ones are left to the cyclic garbage collector.

Headless: a widget with 40 component classes; restyle it 5 times (`App.update_styles`, as a focus change,
a hover or the terminal's focus in/out does) with the collector off, as an app that manages it does, and
count the `DOMNode`s that are garbage afterwards (found by `gc.collect()`).
Exit 1 and "BUG: ..." if the restyles left virtual nodes behind.
"""

from __future__ import annotations

import asyncio
import gc
import sys

import textual
from textual.app import App, ComposeResult
from textual.dom import DOMNode
from textual.widget import Widget

CLASSES = {f"part--{i}" for i in range(40)}
RESTYLES = 5


class Parts(Widget):
    COMPONENT_CLASSES = CLASSES
    DEFAULT_CSS = "\n".join(f"Parts > .part--{i} {{ color: red; }}" for i in range(40))


class PartsApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Parts()


def virtual_nodes() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is DOMNode)


async def main() -> int:
    print(f"textual {textual.__version__}")
    app = PartsApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        gc.collect()
        gc.disable()
        try:
            before = virtual_nodes()
            parts = app.query_one(Parts)
            for _ in range(RESTYLES):
                app.stylesheet.update(parts)
            made = virtual_nodes() - before
            gc.collect()
            left = virtual_nodes() - before
        finally:
            gc.enable()
    print(
        f"{RESTYLES} restyles of a widget with {len(CLASSES)} component classes: {made} DOMNodes made, "
        f"{made - left} of them garbage"
    )
    if made - left > 0:
        print(f"BUG: each restyle made {len(CLASSES)} new virtual nodes and dropped the old ones")
        return 1
    print("fixed")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

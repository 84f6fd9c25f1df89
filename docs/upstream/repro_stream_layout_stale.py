"""`layout: stream` keeps an entry's old height when its child grows while a later entry keeps changing.

`Screen._on_layout` walks up from the widget that asked for a layout and adds each widget to its
parent's set in `_layout_widgets` only `if widget not in self._layout_widgets`, i.e. only if the widget is
not already a *key* of the dict. A child's request makes its entry a key first, so the entry is never
listed under the stream container. `StreamLayout.arrange` re-measures only from the first listed child
and reuses the cached placements before it: when a later sibling is listed in the same pass (a reply
streaming into the last entry), the grown entry keeps its old height and the next entry is drawn over it.

Headless: the last entry is updated every 10 ms (as a streaming reply); the first entry's child grows
from 1 to 4 lines. Exit 1 and "BUG: ..." if the first entry's height is stale after the stream stops.
"""

from __future__ import annotations

import asyncio
import sys

import textual
from textual.app import App, ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

GROWN = "line 1\nline 2\nline 3\nline 4"


class StreamApp(App[None]):
    CSS = """
    #stream { layout: stream; }
    .entry { height: auto; }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="stream"):
            with Vertical(classes="entry", id="first"):
                yield Static("line 1", id="body")
            yield Static("second entry", id="second", classes="entry")
            yield Static("live reply", id="live", classes="entry")


async def run_case(streaming: bool) -> tuple[int, int, int]:
    app = StreamApp()
    async with app.run_test(size=(40, 20)) as pilot:
        await pilot.pause()
        live = app.query_one("#live", Static)
        ticks = 0

        def stream_chunk() -> None:
            nonlocal ticks
            ticks += 1
            live.update(f"live reply, chunk {ticks}")

        timer = app.set_interval(0.01, stream_chunk) if streaming else None
        await pilot.pause(0.2)
        app.query_one("#body", Static).update(GROWN)  # the first entry's child grows (refresh(layout=True))
        stream_chunk()
        await pilot.pause(0.3)
        if timer is not None:
            timer.stop()
        await pilot.pause(0.3)  # the stream has stopped: nothing else changes
        first = app.query_one("#first").region
        return first.height, app.query_one("#body").region.height, app.query_one("#second").region.y


def report() -> int:
    print(f"textual {textual.__version__}")
    for streaming in (False, True):
        height, body, second_y = asyncio.run(run_case(streaming))
        label = "with the last entry streaming" if streaming else "alone (no other entry changes)"
        print(f"  child grown {label}:")
        print(f"    first entry height {height}, its child's height {body}, second entry at y={second_y}")
    if height < body:
        print("BUG: the grown entry keeps its old height; the next entry is placed over its child")
        return 1
    print("fixed: the grown entry is re-measured")
    return 0


if __name__ == "__main__":
    sys.exit(report())

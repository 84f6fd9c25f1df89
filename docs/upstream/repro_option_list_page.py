"""`OptionList` PageDown/PageUp raise `KeyError: 0` when the list has options but no visible area.

`_move_page` reads `self._index_to_line[self.highlighted or 0]`, but `_update_lines` fills that map only
while `scrollable_content_region` is non-empty. A terminal 2 rows tall leaves a bordered `OptionList`
0 rows of content. (An OptionList with no options is fine: `_move_page` returns early.)

Headless: each case focuses an OptionList and presses pagedown / pageup.
Exit 1 and "BUG: ..." if a key press raises.
"""

from __future__ import annotations

import asyncio
import sys

import textual
from textual.app import App, ComposeResult
from textual.widgets import OptionList


class OptionListApp(App[None]):
    def __init__(self, options: list[str]) -> None:
        super().__init__()
        self.options = options

    def compose(self) -> ComposeResult:
        yield OptionList(*self.options)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()


async def press(options: list[str], rows: int, key: str) -> str | None:
    """None if the key was handled, else the exception it raised."""
    app = OptionListApp(options)
    try:
        async with app.run_test(size=(40, rows)) as pilot:
            await pilot.pause()
            await pilot.press(key)
            await pilot.pause()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


async def main() -> int:
    print(f"textual {textual.__version__}")
    cases = [([], 10), ([], 2), (["a", "b", "c"], 10), (["a", "b", "c"], 2)]
    failures = 0
    for options, rows in cases:
        for key in ("pagedown", "pageup"):
            error = await press(options, rows, key)
            failures += error is not None
            print(f"  {len(options)} options, terminal {rows} rows, {key}: {error or 'ok'}")
    if failures:
        print("BUG: OptionList page keys raise when the list has options and a 0-row content area")
        return 1
    print("fixed: every page key was handled")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

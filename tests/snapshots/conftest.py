"""Every snapshot with a steady cursor.

A focused `Input` or `TextArea` blinks its cursor every half second, so a picture taken a few frames after
the app starts shows the cursor on a quick machine and may not on a slow one (a series run's help screen
failed so: its filter's cursor had blinked off). `snap_compare` here wraps pytest-textual-snapshot's: before
the test's own `run_before` and again after it, every text field on the screen stack stops blinking, which
in Textual leaves a focused field's cursor shown, so what a picture shows depends only on the focus.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

RunBefore = Callable[[Pilot[Any]], Awaitable[None] | None]


def steady_cursors(pilot: Pilot[Any]) -> None:
    for screen in pilot.app.screen_stack:
        for field in screen.query(Input):
            field.cursor_blink = False
        for area in screen.query(TextArea):
            area.cursor_blink = False


@pytest.fixture
def snap_compare(snap_compare: Callable[..., bool]) -> Callable[..., bool]:
    def compare(app: Any, *args: Any, run_before: RunBefore | None = None, **kwargs: Any) -> bool:
        async def steady_then_run(pilot: Pilot[Any]) -> None:
            await pilot.pause()
            steady_cursors(pilot)
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result
            steady_cursors(pilot)

        return snap_compare(app, *args, run_before=steady_then_run, **kwargs)

    return compare

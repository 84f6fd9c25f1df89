"""The one wait before a chat's picture is taken: until nothing on the screen is still moving.

A streamed entry renders its text in steps (its buffer drains over a few frames), and the transcript's
layout can take a frame or two more to reach its size and scroll position. A picture taken earlier is a
coin toss, so every chat snapshot waits here first, with the suite's one settle time between looks
(`tests.waiting.SETTLE`) and a deadline that fails.
"""

from __future__ import annotations

import time
from typing import Any

from hermes_tui.chat.screen import ChatScreen
from tests.waiting import SETTLE, TIMEOUT, wait_for_async
from widgets.transcript.entries.reasoning import ReasoningEntry
from widgets.transcript.entries.reply import ReplyEntry

STILL_LOOKS = 3
"""Looks in a row (SETTLE apart, animations done before each) at which the layout must not have changed."""


async def still(pilot: Any, screen: ChatScreen, *, timeout: float = TIMEOUT) -> None:
    """Every streamed entry drained, then the transcript's size and scroll position unchanged for
    `STILL_LOOKS` looks in a row; the prompt's cursor stops blinking (a blink would change the picture)."""
    screen.prompt_input.cursor_blink = False
    transcript = screen.transcript

    def drained() -> bool:
        streamed = [*transcript.entries_of(ReplyEntry), *transcript.entries_of(ReasoningEntry)]
        return all(entry.is_drained for entry in streamed)

    await wait_for_async(drained, "the streamed entries drained", timeout=timeout, pause=pilot.pause)
    deadline = time.monotonic() + timeout
    same, last = 0, None
    while same < STILL_LOOKS:
        if time.monotonic() >= deadline:
            raise AssertionError(f"the transcript never stood still within {timeout:g} s; last: {last}")
        await pilot.wait_for_scheduled_animations()
        await pilot.pause(SETTLE)
        now = (transcript.virtual_size, transcript.scroll_offset, transcript.size)
        same = same + 1 if now == last else 0
        last = now

"""The Pilot's idle wait, paced for a test suite.

Textual's Pilot decides the app has settled by sleeping in windows of `textual._wait.SLEEP_GRANULARITY`
(1/50 s) until one passes in which the process used under a twentieth of it in CPU. Every `press` waits
that way twice per key and every `pause()` at least once, so a Pilot test sleeps most of its wall time: the
app tests spent about 70% of theirs asleep, and with four of them on a worker each the machine stood idle.
A 5 ms window keeps the same test (under 5% CPU across a whole window: the process is not working), only
four times finer; the messages a key posts are awaited apart from it (`Pilot._wait_for_screen`), so the
window never decides whether a key was handled. Nothing here changes the app: only how long the Pilot
naps between looks.

Tests may touch Textual's private names (the rule that they live in `hermes_tui/textual_compat/` is for
the product); `tests/compat/test_pilot_pace.py` fails in one place if Textual stops reading these two.
"""

from __future__ import annotations

import textual._wait

WINDOW = 0.005
"""Seconds per look (Textual's default: 0.02)."""


def quicken() -> None:
    """The Pilot's idle test at `WINDOW`, with Textual's own ratio (idle under 1/20 of the window)."""
    textual._wait.SLEEP_GRANULARITY = WINDOW
    textual._wait.SLEEP_IDLE = WINDOW / 20

"""`tests/pilot_pace.py` relies on `wait_for_idle` reading its window from the module at every look."""

from __future__ import annotations

import textual._wait

from tests import pilot_pace


def test_the_idle_wait_still_reads_the_window_the_suite_sets() -> None:
    names = textual._wait.wait_for_idle.__code__.co_names
    assert "SLEEP_GRANULARITY" in names and "SLEEP_IDLE" in names, names
    assert textual._wait.SLEEP_GRANULARITY == pilot_pace.WINDOW  # conftest set it for this process
    assert textual._wait.SLEEP_IDLE == pilot_pace.WINDOW / 20

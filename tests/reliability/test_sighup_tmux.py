"""The TUI whose terminal closes (issue 33 items 1 and 9): SIGHUP, as `tmux kill-server` sends it, with
background processes running; the app goes within seconds and takes everything it started with it."""

from __future__ import annotations

import pytest

from tests.e2e.tmux_harness import needs_tmux
from tests.reliability import orphans

pytestmark = [*needs_tmux, pytest.mark.slow]

SIGHUP_EXIT_SECONDS = 5.0


def test_the_tui_exits_within_seconds_of_its_terminal_closing_and_leaves_nothing() -> None:
    """tmux kill-server (SIGHUP, the window closed) with `sleep 300` and an HTTP server started by
    `terminal` with `background: true`: the app is gone within a few seconds, and 2 s later no process it
    started is alive (by pid, process group and the trial's HERMES_HOME in any environment)."""
    trial = orphans.tui_trial("sighup", exit_within=SIGHUP_EXIT_SECONDS)
    assert not trial.failures, trial.failures

"""SIGTERM, SIGHUP, SIGINT: an orderly exit is asked for; one that does not come in time is forced, with
the terminal restored and the supervisor's children stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hermes_tui import exit_signals

ROOT = Path(__file__).resolve().parents[1]


def test_a_signal_asks_for_an_orderly_exit_with_its_code() -> None:
    asked: list[int] = []
    with exit_signals.handled(asked.append, via_loop=False, restore=False, patience=60) as received:
        os.kill(os.getpid(), signal.SIGTERM)
        assert received() == signal.SIGTERM
    assert asked == [128 + signal.SIGTERM]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # put back


_STUCK = textwrap.dedent(
    """
    import os, signal, sys, time
    from agent.children.supervisor import SUPERVISOR
    from hermes_tui import exit_signals
    proc = SUPERVISOR.popen(["sleep", "300"], label="sleep")
    with exit_signals.handled(lambda code: None, via_loop=False, restore=False, patience=0.5):
        print(proc.pid, flush=True)  # inside: the signal the test sends then finds the handler in place
        time.sleep(60)  # the orderly exit never comes
    """
)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_an_exit_that_does_not_come_is_forced_and_the_children_stopped(tmp_path: Path, sig: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HERMES_HOME": str(tmp_path)}
    app = subprocess.Popen([sys.executable, "-c", _STUCK], stdout=subprocess.PIPE, text=True, env=env)
    assert app.stdout is not None
    child = int(app.stdout.readline())
    os.kill(app.pid, sig)
    assert app.wait(timeout=20) == 128 + sig
    from agent.children.groups import group_alive

    assert not group_alive(child)
    assert "sleep" in (tmp_path / "tui" / "leftovers.jsonl").read_text()


def test_the_restore_sequence_leaves_the_alternate_screen_and_shows_the_cursor() -> None:
    seq = exit_signals.RESTORE_TERMINAL
    assert seq.index("\x1b[<u") < seq.index("\x1b[?1049l")  # kitty keys popped before the screen is left
    assert "\x1b[?1000l" in seq and "\x1b[?2004l" in seq and seq.endswith("\x1b[?25h")

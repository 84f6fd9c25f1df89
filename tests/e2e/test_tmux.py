"""A real terminal: `hermes-tui --demo` in tmux, driven with send-keys, read with capture-pane."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.e2e.tmux_harness import Tmux, app_env, demo_command, needs_tmux
from tests.waiting import QUIET
from widgets.support.timing import QUESTION_GUARD

pytestmark = needs_tmux


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_demo_turn_escape_and_quit(tmp_path: Path, hermes_home: Path, size: tuple[int, int]) -> None:
    marker = tmp_path / "exited"
    tmux = Tmux(size, demo_command(tmp_path, marker=marker), app_env(hermes_home))
    try:
        tmux.wait_for("Message Hermes")
        tmux.keys("hello", "Enter")  # text and Enter in one write, as a fast typist or a script sends them
        tmux.wait_for("esc to interrupt")  # the spinner before the first delta
        tmux.wait_for("Hermes asks")
        # A card ignores keys for its typing-ahead guard and shows nothing when that ends: past the guard
        # is the only sign there is (a screen sign of the armed card would let this wait on it).
        time.sleep(QUESTION_GUARD + QUIET)
        tmux.keys("3")
        tmux.wait_for("Approval needed")
        time.sleep(QUESTION_GUARD + QUIET)  # the dialog's guard, as above
        tmux.keys("d")  # a letter answers nothing (it once meant deny; "o" meant allow)
        # Nothing to wait for: a wrong answer would close the dialog within QUIET, a right one keeps it.
        time.sleep(QUIET)
        assert "Approval needed" in tmux.screen()
        tmux.keys("Escape")  # deny the rm -rf
        shown = tmux.wait_for("idle", timeout=60)
        assert "Traceback" not in shown
        # A second message gets the demo's fallback reply; Escape while it waits for its first token.
        tmux.keys("and now?")
        tmux.wait_for("and now?")  # in the prompt: nothing before it said so
        tmux.keys("Enter")  # in its own write, after the text
        tmux.wait_for("esc to interrupt")
        tmux.keys("Escape")
        shown = tmux.wait_for("Interrupted", timeout=5)
        assert "idle" in tmux.wait_for("idle", timeout=5)
        # Quit with Ctrl+C twice.
        tmux.keys("C-c")
        tmux.wait_for("Press Ctrl+C again to quit")
        tmux.keys("C-c")
        assert tmux.wait_exit(marker) == "0", tmux.screen()
    finally:
        tmux.close()

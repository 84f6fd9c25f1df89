"""A real terminal: `hermes-tui --demo` in tmux, driven with send-keys, read with capture-pane."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.e2e.tmux_harness import Tmux, app_env, demo_command, needs_tmux

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
        time.sleep(0.5)
        tmux.keys("3")
        tmux.wait_for("Approval needed")
        time.sleep(0.5)
        tmux.keys("d")  # a letter answers nothing (it once meant deny; "o" meant allow)
        time.sleep(0.3)
        assert "Approval needed" in tmux.screen()
        tmux.keys("Escape")  # deny the rm -rf
        shown = tmux.wait_for("idle", timeout=60)
        assert "Traceback" not in shown
        # A second message gets the demo's fallback reply; Escape while it waits for its first token.
        tmux.keys("and now?")
        time.sleep(0.2)
        tmux.keys("Enter")
        tmux.wait_for("esc to interrupt")
        tmux.keys("Escape")
        shown = tmux.wait_for("Interrupted", timeout=5)
        assert "idle" in tmux.wait_for("idle", timeout=5)
        # Quit with Ctrl+C twice.
        tmux.keys("C-c")
        time.sleep(0.3)
        tmux.keys("C-c")
        deadline = time.monotonic() + 10
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert marker.exists() and marker.read_text().strip() == "0", tmux.screen()
    finally:
        tmux.close()

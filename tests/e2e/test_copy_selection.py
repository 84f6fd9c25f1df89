"""A mouse selection in the transcript shows, and Ctrl+C copies it (issue 34, item 2), in a real terminal.

The mouse is driven with the SGR mouse reports a terminal sends (press, drag, release); the copy is read
back from tmux, which stores what an app sends with OSC 52 as a paste buffer (`set-clipboard on`).
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.e2e.tmux_harness import Tmux, app_env, demo_command, needs_tmux
from tests.waiting import wait_until

pytestmark = needs_tmux


def _mouse(tmux: Tmux, button: int, x: int, y: int, release: bool = False) -> None:
    tmux.hex_keys(f"\x1b[<{button};{x + 1};{y + 1}{'m' if release else 'M'}".encode())


def test_ctrl_c_copies_a_mouse_selection(tmp_path: Path, hermes_home: Path) -> None:
    tmux = Tmux((120, 40), demo_command(tmp_path), app_env(hermes_home))
    try:
        tmux._run("set", "-g", "set-clipboard", "on")
        tmux.wait_for("Message Hermes")
        shown = tmux.wait_for("F1 help")  # the welcome line, in the transcript
        row = next(n for n, line in enumerate(shown.splitlines()) if "F1 help" in line)
        line = shown.splitlines()[row]
        start = line.index("F1 help")
        _mouse(tmux, 0, start, row)
        for x in range(start + 1, start + len("F1 help") + 1, 3):
            _mouse(tmux, 32, x, row)
            time.sleep(0.02)  # a hand's pace between a drag's reports: the input, not a wait
        _mouse(tmux, 32, start + len("F1 help"), row)
        _mouse(tmux, 0, start + len("F1 help"), row, release=True)
        tmux.keys("C-c")  # after the release in the input's order: the selection is made by then
        tmux.wait_for("Copied")
        wait_until(lambda: "F1 help" in tmux._run("show-buffer"), "the copy never reached the clipboard")
        assert "Press Ctrl+C again to quit" not in tmux.screen()  # copying is not the first of a quit
    finally:
        tmux.close()

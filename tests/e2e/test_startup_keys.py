"""Keys typed while the app starts are kept, in order: in a real terminal (tmux), as a fast user types."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.e2e.test_tmux import ROOT, Tmux

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    pytest.mark.xdist_group("tmux"),
]


def test_keys_typed_before_and_right_after_the_first_frame_reach_the_prompt_in_order(
    tmp_path: Path, hermes_home: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("TMUX")}
    env.update({"HERMES_HOME": str(hermes_home), "PYTHONPATH": str(ROOT), "TERM": "xterm-256color"})
    tmux = Tmux((100, 30), f"cd {tmp_path} && {sys.executable} -m hermes_tui.cli --demo; sleep 5", env)
    try:
        before = tmux.screen()
        tmux.keys("-l", "alpha beta ")  # the interpreter has barely started: no screen yet
        assert "Message Hermes" not in before
        tmux.wait_for("for commands")  # the first frame (the welcome line)
        tmux.keys("-l", "gamma delta")  # while the engine loads behind the first frame
        shown = tmux.wait_for("alpha beta gamma delta")
        assert "Traceback" not in shown
        tmux.keys("Enter")  # and what was typed early is sent like any other message
        shown = tmux.wait_for("Hermes asks", timeout=60)  # the demo's first turn answers with a question
        assert "alpha beta gamma delta" in shown
    finally:
        tmux.close()

"""Ctrl+Z on an empty prompt stops the app as a shell's programs stop (the terminal given back to the
shell), and `fg` brings it back redrawn and answering keys (issue 46, item 4)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from tests.e2e.tmux_harness import Tmux, app_env, needs_tmux

pytestmark = needs_tmux


def _state(pid: int) -> str:
    """The process's state letter from /proc (`T`: stopped)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0]


def test_ctrl_z_suspends_to_the_shell_and_fg_resumes_redrawn(hermes_home: Path, tmp_path: Path) -> None:
    shell = "env PS1='SHELL$ ' bash --norc --noprofile -i"  # an interactive shell: job control
    tmux = Tmux((100, 30), shell, app_env(hermes_home))
    pid = 0
    try:
        tmux.wait_for("SHELL$")
        tmux.keys(f"cd {tmp_path} && {sys.executable} -m hermes_tui.cli --demo", "Enter")
        tmux.wait_for("Message Hermes")
        tmux.keys("C-z")
        shown = tmux.wait_for("Stopped")
        assert "Message Hermes" not in shown  # the terminal restored: the shell's screen, not the app's
        tmux.keys("jobs -p", "Enter")
        shown = tmux.wait_until(lambda s: re.search(r"jobs -p\n(\d+)", s) is not None, "the job's pid")
        match = re.search(r"jobs -p\n(\d+)", shown)
        assert match is not None
        pid = int(match.group(1))
        assert _state(pid) == "T"
        tmux.keys("fg", "Enter")
        tmux.wait_for("Message Hermes")  # redrawn
        assert _state(pid) != "T"
        tmux.keys("hello")
        tmux.wait_until(lambda s: "❯ hello" in s, "the typed text in the prompt")
        tmux.keys("Enter")
        tmux.wait_for("scripted demo model")  # the demo answers: the app runs on
    finally:
        if pid and Path(f"/proc/{pid}").exists() and _state(pid) == "T":
            tmux.keys("fg", "Enter")  # a stopped app would never see the tmux server's hang-up
        tmux.close()

"""A real terminal: `hermes-tui --demo` in tmux, driven with send-keys, read with capture-pane."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    # One terminal at a time: each run is a whole app whose keys wait on wall-clock guards, so two of them
    # competing for the same cores would test the scheduler, not the app.
    pytest.mark.xdist_group("tmux"),
]
ROOT = Path(__file__).resolve().parents[2]


class Tmux:
    def __init__(self, size: tuple[int, int], command: str, env: dict[str, str]) -> None:
        self.socket = f"hermes-test-{uuid.uuid4().hex[:8]}"
        self.env = env
        self._run(
            "-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", str(size[0]), "-y", str(size[1]), command
        )
        self._run("set", "-g", "escape-time", "0")

    def _run(self, *args: str) -> str:
        proc = subprocess.run(
            ["tmux", "-L", self.socket, *args], env=self.env, capture_output=True, text=True, timeout=10
        )
        return proc.stdout

    def keys(self, *keys: str) -> None:
        self._run("send-keys", "-t", "t", *keys)

    def screen(self) -> str:
        return self._run("capture-pane", "-p", "-t", "t")

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; screen:\n{self.screen()}")

    def close(self) -> None:
        self._run("kill-server")


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_demo_turn_escape_and_quit(tmp_path: Path, hermes_home: Path, size: tuple[int, int]) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("TMUX")}
    env.update({"HERMES_HOME": str(hermes_home), "PYTHONPATH": str(ROOT), "TERM": "xterm-256color"})
    marker = tmp_path / "exited"
    command = f"cd {tmp_path} && {sys.executable} -m hermes_tui.cli --demo; echo $? > {marker}; sleep 5"
    tmux = Tmux(size, command, env)
    try:
        tmux.wait_for("Message Hermes")
        tmux.keys("hello", "Enter")  # text and Enter in one write, as a fast typist or a script sends them
        tmux.wait_for("esc to interrupt")  # the spinner before the first delta
        tmux.wait_for("Hermes asks")
        time.sleep(0.5)
        tmux.keys("3")
        tmux.wait_for("Approval needed")
        time.sleep(0.5)
        tmux.keys("d")  # deny the rm -rf
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

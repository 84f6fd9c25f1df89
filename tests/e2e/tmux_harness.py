"""A real terminal for tests: the app in a private tmux server, keys by send-keys, the screen by capture-pane.

Keys passed to one `keys()` call reach the app in one write, as a fast typist, a paste without bracketed
paste or a terminal that batches input sends them: that is what the key-order tests need.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli_process import panes_socket
from tests.waiting import TIMEOUT, wait_for_file, wait_until

ROOT = Path(__file__).resolve().parents[2]

needs_tmux = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
    # One terminal at a time: each run is a whole app whose keys wait on wall-clock guards, so two of them
    # competing for the same cores would test the scheduler, not the app.
    pytest.mark.xdist_group("tmux"),
]
"""`pytestmark` for a module of tmux tests: skipped cleanly without tmux, run one after the other."""


def app_env(hermes_home: Path) -> dict[str, str]:
    """The test's environment for the app: its own HERMES_HOME, no API keys, not inside the caller's tmux."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("TMUX")}
    env.update({"HERMES_HOME": str(hermes_home), "PYTHONPATH": str(ROOT), "TERM": "xterm-256color"})
    return env


def app_command(cwd: Path, *args: str, marker: Path | None = None, real: bool = False) -> str:
    """A shell command running `hermes-tui ARGS` in `cwd` (writing its exit code to `marker`): forked from
    this worker's warm process onto the pane's terminal (`pane_app.py`), or, when `real`, a new interpreter
    as a user's shell starts it (for tests about the app's own start)."""
    if real:
        program = f"{shlex.quote(sys.executable)} -m hermes_tui.cli"
    else:
        program = f"{shlex.quote(sys.executable)} -m tests.e2e.pane_app {shlex.quote(panes_socket())}"
    command = f"cd {shlex.quote(str(cwd))} && {program} {shlex.join(args)}"
    if marker is not None:
        command += f"; echo $? > {shlex.quote(str(marker))}; sleep 5"
    return command


def scripted_args(base_url: str) -> list[str]:
    """The arguments that point `hermes-tui` at a scripted server: a custom provider, any model and key."""
    return ["--base-url", base_url, "--model", "m", "--provider", "custom", "--api-key", "k"]


def demo_command(cwd: Path, *args: str, marker: Path | None = None, real: bool = False) -> str:
    """`app_command` for `hermes-tui --demo ARGS`."""
    return app_command(cwd, "--demo", *args, marker=marker, real=real)


CONFIG = Path(__file__).with_name("tmux.conf")
"""The server's options, read as it starts (before the app's first byte): no Escape delay, and a pane that
stays on screen after its program ends, so a failure shows how the app ended instead of an empty screen."""


class Tmux:
    def __init__(self, size: tuple[int, int], command: str, env: dict[str, str]) -> None:
        self.socket = f"hermes-test-{uuid.uuid4().hex[:8]}"
        self.env = env
        width, height = size
        started = self._call(
            "-f", str(CONFIG), "new-session", "-d", "-s", "t", "-x", f"{width}", "-y", f"{height}", command
        )
        if started.returncode != 0:
            raise AssertionError(f"tmux did not start: {started.stderr.strip()}")

    def _call(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], env=self.env, capture_output=True, text=True, timeout=10
        )

    def _run(self, *args: str) -> str:
        return self._call(*args).stdout

    def keys(self, *keys: str) -> None:
        """Send `keys` in one write (tmux key names like `C-r`, `Enter`, or literal text)."""
        self._run("send-keys", "-t", "t", *keys)

    def hex_keys(self, data: bytes) -> None:
        """Send raw bytes (any bytes, valid UTF-8 or not) in one write."""
        self._run("send-keys", "-t", "t", "-H", *(f"{byte:02x}" for byte in data))

    def paste(self, text: str) -> None:
        """Paste `text` the way a terminal does with bracketed paste on (`ESC[200~ ... ESC[201~`)."""
        self._run("set-buffer", "-b", "test", "--", text)
        self._run("paste-buffer", "-p", "-r", "-b", "test", "-t", "t")

    def screen(self) -> str:
        return self._run("capture-pane", "-p", "-t", "t")

    def pane_state(self) -> str:
        """How the pane's program stands, for a failure message: running, or how it ended."""
        shown = self._call("display", "-p", "-t", "t", "#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}")
        if shown.returncode != 0:
            return f"no tmux session: {shown.stderr.strip()}"
        dead, status, signal = [*shown.stdout.strip().split(":"), "", "", ""][:3]
        if dead != "1":
            return "the pane's program is running"
        return f"the pane's program ended ({f'signal {signal}' if signal else f'exit status {status}'})"

    def wait_for(self, text: str, timeout: float = TIMEOUT) -> str:
        return self.wait_until(lambda shown: text in shown, f"{text!r} never appeared", timeout)

    def wait_until(self, condition: Callable[[str], bool], what: str, timeout: float = TIMEOUT) -> str:
        """The screen once `condition(screen)` holds; at the deadline, fails showing the last screen."""
        last = [""]

        def shown() -> str:
            last[0] = self.screen()
            return last[0] if condition(last[0]) else ""

        return wait_until(shown, what, timeout=timeout, seen=lambda: f"[{self.pane_state()}]\n{last[0]}")

    def wait_ended(self, timeout: float = TIMEOUT) -> str:
        """How the pane's program ended, once it did (the pane stays, `tmux.conf`): a test that starts the
        app again on the same session must first see the old one gone, as a user's shell would wait for it;
        `close` only hangs it up, and it still holds the session while it finishes."""

        def ended() -> str:
            state = self.pane_state()
            return state if "ended" in state else ""

        return wait_until(ended, "the app did not exit", timeout=timeout, seen=self.screen)

    def wait_exit(self, marker: Path, timeout: float = TIMEOUT) -> str:
        """The exit code the app's shell wrote to `marker` (see `demo_command`), once it quit."""
        return wait_for_file(marker, "the app did not exit", timeout=timeout).strip()

    def close(self) -> None:
        self._run("kill-server")

"""Ctrl+D on an empty prompt quits, and the exit says how to come back (issue 34, item 4), in a terminal."""

from __future__ import annotations

import time
from pathlib import Path

from tests.e2e.test_key_bursts import prompt_line
from tests.e2e.tmux_harness import Tmux, app_env, demo_command, needs_tmux
from tests.waiting import QUIET

pytestmark = needs_tmux


def test_ctrl_d_quits_and_the_exit_line_names_the_session(tmp_path: Path, hermes_home: Path) -> None:
    marker = tmp_path / "exited"
    scenario = tmp_path / "reply.yaml"
    scenario.write_text("name: reply\ncalls:\n  - text: Here it is.\n")  # no tools, no question
    command = demo_command(tmp_path, "--scenario", str(scenario), marker=marker)
    tmux = Tmux((120, 40), command, app_env(hermes_home))
    try:
        tmux.wait_for("F1 help")
        tmux.keys("and now?", "Enter")
        # The reply, and the turn over: the status bar says idle again (as it did before the Enter was read).
        tmux.wait_until(lambda s: "Here it is." in s and "idle" in s.rstrip().splitlines()[-1], "no reply")
        tmux.keys("x", "C-d")  # with text, Ctrl+D deletes (here: nothing right of the cursor), no quit
        tmux.wait_until(lambda s: prompt_line(s) == "x", "the x never landed")
        time.sleep(QUIET)  # nothing to wait for: a quit would have written the marker by now
        assert not marker.exists()
        tmux.keys("BSpace", "C-d")  # empty: quit
        assert tmux.wait_exit(marker) == "0"
        shown = tmux.wait_for("continue it with: hermes-tui --demo -c")  # plain -c: the setup screen
        assert "Traceback" not in shown
    finally:
        tmux.close()
    again = Tmux((120, 40), demo_command(tmp_path, "-c"), app_env(hermes_home))
    try:
        shown = again.wait_for("and now?")  # the hint's command continues the demo's session
        assert "Welcome! Let's connect a model." not in shown
    finally:
        again.close()

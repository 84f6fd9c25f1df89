"""Typing through an approval dialog never approves (issue 34, item 1) and lands in the prompt (issue 46,
item 12), in a real terminal.

The model asks to `rm -rf` a folder while the user is writing their next message. They type, pause (the
dialog takes the keyboard then), and go on typing: letters that once meant "allow once" (`o`), "this
session" (`s`), "always" (`a`), and a digit right after a letter. The folder must survive; Escape denies.
"""

from __future__ import annotations

import time
from pathlib import Path

from scripted import ScriptedServer
from tests.e2e.tmux_harness import Tmux, app_command, app_env, needs_tmux, scripted_args

pytestmark = needs_tmux


def test_typing_into_an_approval_never_approves(tmp_path: Path, hermes_home: Path) -> None:
    victim = tmp_path / "precious"
    victim.mkdir()
    (victim / "work.txt").write_text("a day of work\n")
    scenario = {
        "name": "approval-typing",
        "calls": [
            {
                "first_delay": 1.0,
                "tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {victim}"}}],
            },
            {"text": "I left it alone."},
        ],
    }
    server = ScriptedServer(scenario).start()
    command = app_command(tmp_path, *scripted_args(server.base_url), "--cwd", str(tmp_path))
    tmux = Tmux((120, 40), command, app_env(hermes_home))
    try:
        tmux.wait_for("Message Hermes")
        tmux.keys("clean up the build", "Enter")
        tmux.keys("then run the tests")  # the next message, typed while the model answers
        time.sleep(0.3)  # a typist's pause, part of the scenario (not a wait for a condition)
        tmux.wait_for("Approval needed", timeout=30)  # once the typing paused
        for burst in (" so", " and also", " ok", " yes allow it", " 2 more", " as said 1"):
            tmux.keys(burst)
            time.sleep(0.25)  # a typist's pace between bursts: the scenario, not a wait
        time.sleep(1.5)  # the pause in which a stray key used to approve
        shown = tmux.screen()
        assert "Approval needed" in shown, "the dialog closed: something answered it"
        assert victim.exists() and (victim / "work.txt").exists()
        tmux.keys("Escape")
        tmux.wait_until(lambda s: "Approval needed" not in s, "Escape did not deny")
        shown = tmux.wait_for("I left it alone.")
        # Nothing typed was lost: the whole message is in the prompt, the dialog's share included.
        assert "❯ then run the tests so and also ok yes allow it 2 more as said 1" in shown
        assert victim.exists() and (victim / "work.txt").read_text() == "a day of work\n"
        tool_results = [
            m for r in server.requests for m in r.body.get("messages", []) if m.get("role") == "tool"
        ]
        assert tool_results and "denied" in str(tool_results[-1]["content"])  # the model was told
    finally:
        tmux.close()
        server.stop()

"""Permission modes in a real terminal (issue 43): Shift+Tab (what tmux sends as `BTab`) cycles the status
bar's mode; in plan mode a write is refused with no dialog; the plan card switches to default and the next
request carries the user's go-ahead; `-r` of that session starts in the mode it was left in."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from scripted import ScriptedServer
from tests.e2e.tmux_harness import Tmux, app_command, app_env, needs_tmux, scripted_args

pytestmark = needs_tmux


def _write(call_id: str) -> dict:
    return {
        "tool_calls": [
            {"name": "write_file", "arguments": {"path": "out.txt", "content": "x\n"}, "id": call_id}
        ]
    }


def _status(screen: str) -> str:
    """The status bar: the screen's last line."""
    return screen.rstrip().splitlines()[-1] if screen.strip() else ""


def test_the_mode_key_plan_mode_and_the_plan_card(tmp_path: Path, hermes_home: Path) -> None:
    scenario = {
        "name": "plan-tmux",
        "calls": [_write("w1"), {"text": "Plan: 1. write out.txt"}, _write("w2"), {"text": "Written."}],
    }
    (hermes_home / "tui").mkdir(parents=True, exist_ok=True)
    (hermes_home / "tui" / "config.yaml").write_text("auto_title: false\n")  # no title call to script
    server = ScriptedServer(scenario).start()
    command = app_command(tmp_path, *scripted_args(server.base_url), "--cwd", str(tmp_path))
    tmux = Tmux((100, 30), command, app_env(hermes_home))
    try:
        tmux.wait_for("Message Hermes")
        tmux.keys("BTab")
        tmux.wait_until(lambda s: "ask mode" in _status(s), "ask mode on the status bar")
        tmux.keys("BTab")
        shown = tmux.wait_until(lambda s: "plan mode" in _status(s), "plan mode on the status bar")
        assert "ask mode" not in _status(shown)
        tmux.keys("make the file", "Enter")
        shown = tmux.wait_for("The plan is ready", timeout=30)
        assert "Approval needed" not in shown  # refused by the mode, never asked
        assert not (tmp_path / "out.txt").exists()
        time.sleep(1.0)  # the user reads the plan (longer than the card's typing guard): the scenario
        tmux.keys("1")
        tmux.wait_for("Written.", timeout=30)
        tmux.wait_until(lambda s: "plan mode" not in _status(s), "the status bar left plan mode")
        assert (tmp_path / "out.txt").read_text() == "x\n"
        go = [m for m in server.requests[2].body["messages"] if m["role"] == "user"][-1]["content"]
        assert "The plan is approved: go ahead" in go
        tmux.keys("BTab")
        tmux.keys("BTab")  # default -> ask -> plan, and leave it there
        tmux.wait_until(lambda s: "plan mode" in _status(s), "plan mode again")
        tmux.keys("C-q")
        tmux.wait_ended()  # the app is gone (it holds the session until it is) before -r resumes it
    finally:
        tmux.close()
        server.stop()
    with sqlite3.connect(hermes_home / "tui" / "state.db") as db:
        [(session_id, mode)] = db.execute("SELECT id, permission_mode FROM sessions").fetchall()
    assert mode == "plan"
    resumed = Tmux((100, 30), f"{command} -r {session_id}", app_env(hermes_home))
    try:
        # -r starts in the mode the session was left in
        resumed.wait_until(lambda s: "plan mode" in _status(s), "plan mode after -r")
    finally:
        resumed.close()

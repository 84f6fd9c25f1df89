"""An exception that escapes anyway (issue 41, item 5): exit code 1, one line on stderr naming the log,
the traceback in the log, the session saved. Before, Textual printed a screenful of traceback and the
process exited 0, as after a quit.

The exception is real: the hidden hook `HERMES_TUI_DEBUG_RAISE` makes the chat screen's submit handler
raise when that text is sent (`hermes_tui.crash_log`), mid-turn here, so the session has a reply still
streaming when the app dies.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from agent.store import SessionStore
from hermes_tui.crash_log import DEBUG_RAISE
from tests.e2e.tmux_harness import Tmux, app_env, demo_command, needs_tmux

pytestmark = needs_tmux

WORDS = " ".join(f"word{i}" for i in range(400))


def test_a_crash_mid_turn_exits_1_with_one_line_a_log_and_the_session_saved(
    tmp_path: Path, hermes_home: Path
) -> None:
    scenario = tmp_path / "slow.json"
    scenario.write_text(
        json.dumps({"name": "slow", "calls": [{"text": WORDS, "chunk_size": 6, "delay": 0.05}]})
    )
    marker = tmp_path / "exited"
    env = app_env(hermes_home) | {DEBUG_RAISE: "boom"}
    tmux = Tmux((120, 40), demo_command(tmp_path, "--scenario", str(scenario), marker=marker, real=True), env)
    try:
        tmux.wait_for("F1 help")
        tmux.keys("hello there", "Enter")
        tmux.wait_for("word20 ")  # the reply is streaming
        tmux.keys("boom", "Enter")  # the hook: the submit handler raises
        deadline = time.monotonic() + 30
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert marker.exists(), tmux.screen()
        assert marker.read_text().strip() == "1"  # not the 0 of a quit
        shown = tmux.wait_for("hermes-tui: internal error")
    finally:
        tmux.close()

    assert "Traceback" not in shown and "DebugCrash:" in shown  # one line, not a screenful
    flat = shown.replace("\n", "")  # the line may wrap on screen
    assert flat.count("hermes-tui: internal error") == 1
    (log,) = (hermes_home / "tui" / "logs").glob("crash-*.log")
    assert f"the traceback is in {log}" in flat
    text = log.read_text()
    assert "Traceback" in text and "DebugCrash: HERMES_TUI_DEBUG_RAISE asked for a crash" in text
    assert "raise_if_asked" in text  # the frames, not just the message

    store = SessionStore(hermes_home / "tui" / "state.db")
    try:
        (session,) = store.list_sessions()
        messages = store.load_messages(session.id)
        assert session.status != "active"  # finalized on the way out, not left for the next start to repair
    finally:
        store.close()
    assert [m.content for m in messages if m.role == "user"] == ["hello there"]
    (reply,) = [m for m in messages if m.role == "assistant"]
    assert reply.content.startswith("word0 word1") and len(reply.content) < len(WORDS)  # kept, as interrupted
    assert "boom" not in [m.content for m in messages]

"""`/clear` and piped stdin in a real terminal (issue 34, item 3): after `/clear` the next message goes
without the old conversation (and the old session stays resumable); `echo X | hermes-tui -z PROMPT` sends X
with the prompt. Both against the scripted server, whose recorded requests say what the model was sent."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agent.store import SessionStore
from scripted import ScriptedServer
from tests.e2e.tmux_harness import Tmux, app_command, app_env, needs_tmux, scripted_args
from tests.waiting import wait_until

pytestmark = needs_tmux


def _user_texts(body: dict[str, object]) -> str:
    return json.dumps([m for m in body["messages"] if isinstance(m, dict) and m.get("role") == "user"])


def _sessions(home: Path) -> list[object]:
    store = SessionStore(home / "tui" / "state.db")
    try:
        return list(store.list_sessions(limit=10))
    finally:
        store.close()


def test_clear_sends_the_next_message_without_the_old_conversation(tmp_path: Path, hermes_home: Path) -> None:
    # The session's title is asked after the first turn: the second call.
    calls = [{"text": "Answer about quokkas."}, {"text": "Quokka facts"}, {"text": "Answer about wombats."}]
    with ScriptedServer({"name": "clear", "calls": calls}) as server:
        command = app_command(tmp_path, *scripted_args(server.base_url), "--cwd", str(tmp_path))
        tmux = Tmux((120, 40), command, app_env(hermes_home))
        try:
            tmux.wait_for("Message Hermes")
            tmux.keys("tell me about quokkas", "Enter")
            tmux.wait_for("Answer about quokkas.", timeout=30)
            wait_until(lambda: len(server.requests) >= 2, "the title call never came")
            tmux.keys("/clear", "Enter")
            shown = tmux.wait_until(lambda s: "Answer about quokkas." not in s, "/clear kept the screen")
            assert "new session" in shown.lower() or "fresh" in shown.lower(), shown  # it says so
            tmux.keys("and wombats?", "Enter")
            tmux.wait_for("Answer about wombats.", timeout=30)
            wait_until(lambda: len(_sessions(hermes_home)) >= 2, "the new session was never stored")
        finally:
            tmux.close()
        chats = [r.body for r in server.requests if "messages" in r.body]
    last = _user_texts(next(body for body in reversed(chats) if "wombats" in _user_texts(body)))
    assert "wombats" in last and "quokkas" not in last, last
    assert len(_sessions(hermes_home)) >= 2  # the old conversation is kept, resumable


def test_piped_stdin_goes_with_the_prompt_in_a_terminal(tmp_path: Path, hermes_home: Path) -> None:
    source = tmp_path / "calc.py"
    source.write_text("def add(a, b):\n    return a + b  # distinctive-line-7731\n")
    marker = tmp_path / "exited"
    with ScriptedServer({"name": "pipe", "calls": [{"text": "It adds two numbers."}]}) as server:
        command = (
            f"cd {tmp_path} && cat {source} | {sys.executable} -m hermes_tui.cli -z 'explain this code' "
            f"--base-url {server.base_url} --model m --provider custom --api-key k; "
            f"echo $? > {marker}; sleep 5"
        )
        tmux = Tmux((100, 30), command, app_env(hermes_home))
        try:
            tmux.wait_for("It adds two numbers.", timeout=30)
            tmux.wait_exit(marker)
        finally:
            tmux.close()
        chats = [r.body for r in server.requests if "messages" in r.body]
    assert marker.read_text().strip() == "0"
    sent = _user_texts(chats[0])
    assert "explain this code" in sent and "distinctive-line-7731" in sent, sent

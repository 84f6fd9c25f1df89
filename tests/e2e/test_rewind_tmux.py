"""Rewind in a real terminal (issue 43, item 2): Esc Esc on an empty prompt lists the messages, the card
takes the conversation back to just before the first one, the message is back in the prompt, the next
request holds only what came before it (read on the scripted server), and Ctrl+R's search still finds the
rewound turns."""

from __future__ import annotations

import json
from pathlib import Path

from scripted import ScriptedServer
from tests.e2e.tmux_harness import Tmux, app_command, app_env, needs_tmux, scripted_args
from tests.waiting import wait_until

pytestmark = needs_tmux


def _user_texts(body: dict[str, object]) -> list[str]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return [json.dumps(m["content"]) for m in messages if isinstance(m, dict) and m.get("role") == "user"]


def test_esc_esc_rewinds_the_conversation_and_search_still_finds_it(
    tmp_path: Path, hermes_home: Path
) -> None:
    # The session's title is asked after the first turn: the second call.
    calls = [
        {"text": "Answer about quokkas."},
        {"text": "Quokka facts"},
        {"text": "Answer about wombats."},
        {"text": "Answer about koalas."},
    ]
    with ScriptedServer({"name": "rewind", "calls": calls}) as server:
        command = app_command(tmp_path, *scripted_args(server.base_url), "--cwd", str(tmp_path))
        tmux = Tmux((120, 40), command, app_env(hermes_home))
        try:
            tmux.wait_for("Message Hermes")
            tmux.keys("tell me about quokkas", "Enter")
            tmux.wait_for("Answer about quokkas.", timeout=30)
            wait_until(lambda: len(server.requests) >= 2, "the title call never came")
            tmux.keys("and wombats?", "Enter")
            tmux.wait_for("Answer about wombats.", timeout=30)
            tmux.wait_for("idle")
            tmux.keys("Escape", "Escape")
            shown = tmux.wait_for("Rewind to just before a message")
            assert shown.index("and wombats?", shown.index("Rewind to")) < shown.rindex(
                "tell me about quokkas"
            )
            tmux.keys("Down", "Enter")
            tmux.wait_for("Back to just before your message")
            tmux.keys("Enter")  # Conversation
            # The notice and the message back in the prompt to edit (the prompt, below the notice, may be
            # drawn a moment later: a frame reaches the terminal in more than one read, and a look can fall
            # between them).
            tmux.wait_until(
                lambda s: "Rewound the conversation: 4 messages" in s and "❯ tell me about quokkas" in s,
                "the rewind's notice with the message back in the prompt never showed",
            )
            tmux.keys("C-u")  # the line before the cursor: the whole message
            tmux.wait_until(lambda s: "❯ tell me about quokkas" not in s, "the prompt was not cleared")
            tmux.keys("what about koalas?", "Enter")
            tmux.wait_for("Answer about koalas.", timeout=30)
            tmux.wait_for("idle")
            tmux.keys("C-r")
            tmux.wait_for("session")
            tmux.keys("wombats")
            # The list says "1 session" before any search too: the hit is the rewound message's text.
            tmux.wait_until(
                lambda s: "and wombats?" in s.split("1 session", 1)[-1], "no hit for the rewound turn"
            )
        finally:
            tmux.close()
        chats = [r.body for r in server.requests if r.body.get("tools")]  # turns, not title requests
    koalas = next(body for body in reversed(chats) if "koalas" in json.dumps(body))
    assert _user_texts(koalas) == [json.dumps("what about koalas?")]


def test_undo_after_a_turn_that_wrote_a_file(tmp_path: Path, hermes_home: Path) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("before\n")
    write = {"name": "write_file", "arguments": {"path": "notes.txt", "content": "after\n"}, "id": "w1"}
    calls = [
        {"text": "Hello."},
        {"text": "Greeting"},  # the title, asked after the first turn
        {"tool_calls": [write]},
        {"text": "I rewrote notes.txt."},
        {"text": "Something else, then."},
    ]
    with ScriptedServer({"name": "undo", "calls": calls}) as server:
        command = app_command(tmp_path, *scripted_args(server.base_url), "--cwd", str(tmp_path))
        tmux = Tmux((80, 24), command, app_env(hermes_home))
        try:
            tmux.wait_for("Message Hermes")
            tmux.keys("hi", "Enter")
            tmux.wait_for("Hello.", timeout=30)
            wait_until(lambda: len(server.requests) >= 2, "the title call never came")
            tmux.keys("rewrite notes.txt", "Enter")
            tmux.wait_for("I rewrote notes.txt.", timeout=30)
            tmux.wait_for("idle")
            assert target.read_text() == "after\n"
            tmux.keys("/undo", "Enter")
            tmux.wait_for("Files: restored 1 file.")
            assert target.read_text() == "before\n"
            tmux.wait_for("❯ rewrite notes.txt")  # back in the prompt
            tmux.keys("C-u")
            tmux.wait_until(lambda s: "❯ rewrite notes.txt" not in s, "the prompt was not cleared")
            tmux.keys("never mind", "Enter")
            tmux.wait_for("Something else, then.", timeout=30)
        finally:
            tmux.close()
        chats = [r.body for r in server.requests if r.body.get("tools")]
    assert _user_texts(chats[-1]) == [json.dumps("hi"), json.dumps("never mind")]
    assert "notes.txt" not in json.dumps(chats[-1]["messages"][1:])

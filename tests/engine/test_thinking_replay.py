"""Thinking kept and replayed: Anthropic's thinking and redacted-thinking blocks, signatures included, go
back unchanged on the next call of the turn (to Anthropic itself), are stripped for other Anthropic-protocol
endpoints, and OpenRouter's `reasoning_details` round-trip; thinking-only replies are left off the wire."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.core.events import ReasoningDelta
from agent.core.messages import Message
from agent.core.sanitize import sanitize_for_wire
from agent.store import SessionStore
from agent.transports.endpoint import Endpoint
from scripted import ScriptedServer
from tests.engine.helpers import make_agent

TOOL_TURN = [
    {
        "redacted_thinking": "opaque-1",
        "reasoning": "I should read the file.",
        "tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}, "id": "toolu_1"}],
    },
    {"text": "The secret is 42."},
    {"reasoning": "Easy.", "text": "Again: 42."},
]


def _assistant_blocks(body: dict[str, Any]) -> list[list[dict[str, Any]]]:
    return [m["content"] for m in body["messages"] if m["role"] == "assistant"]


def _run_two_turns(home: Path, cwd: Path) -> tuple[list[Any], SessionStore, str, Any]:
    (cwd / "notes.txt").write_text("the secret is 42\n")
    with ScriptedServer({"name": "t", "calls": TOOL_TURN}) as server:
        agent, store, ui = make_agent(
            server, home, cwd, api="anthropic", model="claude-opus-4-6", reasoning_effort="high"
        )
        first = agent.run_conversation("what is the secret?")
        agent.run_conversation("and again?")
        requests = server.requests
    assert first.exit_reason == "completed" and first.final_text == "The secret is 42."
    return requests, store, first.session_id, ui


def test_signed_thinking_comes_back_unchanged_to_anthropic(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The scripted server stands in for api.anthropic.com.
    monkeypatch.setattr(Endpoint, "anthropic_thinking_replay", property(lambda self: "signed"))
    requests, store, session_id, ui = _run_two_turns(hermes_home, tmp_path)
    assert "".join(e.text for e in ui.of_type(ReasoningDelta)).startswith("I should read the file.")
    second = requests[1].body
    assert second["thinking"] == {"type": "adaptive", "display": "summarized"}
    [blocks] = _assistant_blocks(second)
    assert blocks[0] == {"type": "redacted_thinking", "data": "opaque-1"}
    assert blocks[1] == {
        "type": "thinking",
        "thinking": "I should read the file.",
        "signature": "scripted-signature-1",
    }
    assert blocks[2]["type"] == "tool_use" and blocks[2]["id"] == "toolu_1"
    # Stored with the reply: a resumed session has them too.
    stored = [m for m in store.load(session_id).messages if m.role == "assistant"]
    assert stored[0].reasoning_details[1]["signature"] == "scripted-signature-1"
    # Next turn: the earlier turns' thinking is no longer the latest, so it is dropped (as Hermes does).
    third = requests[2].body
    assert all(
        b["type"] not in ("thinking", "redacted_thinking") for c in _assistant_blocks(third) for b in c
    )


def test_thinking_is_stripped_for_third_party_anthropic_endpoints(hermes_home: Path, tmp_path: Path) -> None:
    requests, _store, _sid, _ui = _run_two_turns(hermes_home, tmp_path)  # the loopback server: third party
    [blocks] = _assistant_blocks(requests[1].body)
    assert [b["type"] for b in blocks] == ["tool_use"]


def test_replay_rule_per_endpoint() -> None:
    assert Endpoint("anthropic", "", "claude-opus-4-6").anthropic_thinking_replay == "signed"  # its own host
    assert (
        Endpoint("minimax", "https://api.minimax.io/anthropic", "MiniMax-M2").anthropic_thinking_replay
        == "none"
    )
    assert Endpoint(
        "custom", "https://api.deepseek.com/anthropic", "deepseek-v4"
    ).anthropic_thinking_replay == ("unsigned")
    assert (
        Endpoint("kimi-coding", "https://api.kimi.com/coding", "kimi-k2").anthropic_thinking_replay == "as_is"
    )


def test_openrouter_reasoning_details_round_trip(hermes_home: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x\n")
    calls = [
        {
            "redacted_thinking": "enc-1",
            "tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}],
        },
        "done",
    ]
    for provider, expected in (
        ("openrouter", [{"type": "reasoning.encrypted", "data": "enc-1", "index": 0}]),
        ("custom", None),
    ):
        with ScriptedServer({"name": "o", "calls": calls}) as server:
            agent, _store, _ui = make_agent(
                server, hermes_home, tmp_path, provider=provider, model="openai/gpt-5"
            )
            assert agent.run_conversation("go").exit_reason == "completed"
            body = server.requests[1].body
        [assistant] = [m for m in body["messages"] if m["role"] == "assistant"]
        assert assistant.get("reasoning_details") == expected  # a strict provider never gets the field


def test_thinking_only_replies_are_dropped_and_the_users_merged() -> None:
    messages = [
        Message(role="user", content="one"),
        Message(role="assistant", content="", reasoning="all thinking, no answer"),
        Message(role="user", content="two"),
    ]
    wire = sanitize_for_wire(messages)
    assert wire == [{"role": "user", "content": "one\n\ntwo"}]
    kept = sanitize_for_wire(
        [Message(role="user", content="q"), Message(role="assistant", content="a", reasoning="r")]
    )
    assert [m["role"] for m in kept] == ["user", "assistant"]

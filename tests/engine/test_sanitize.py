"""Wire sanitizers: each broken-history case is repaired in the request body; the stored copy is untouched."""

from __future__ import annotations

import json
from pathlib import Path

from agent.core.messages import Message, ToolCall
from agent.core.sanitize import STUB_RESULT, canonical_arguments, repair_json, sanitize_for_wire
from scripted import ScriptedServer
from tests.engine.helpers import make_agent


def _send(history: list[Message], hermes_home: Path, tmp_path: Path) -> tuple[list[dict], list[Message]]:
    """Run one turn after `history` and return the request's messages (minus system) and the stored copy."""
    with ScriptedServer({"name": "t", "calls": [{"text": "ok"}]}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        agent.system_prompt = "SYSTEM"
        agent.messages = list(history)
        snapshot = [(m.role, m.content, [c.arguments for c in m.tool_calls], m.tool_call_id) for m in history]
        agent.run_conversation("next")
        body = server.requests[0].body
    after = [
        (m.role, m.content, [c.arguments for c in m.tool_calls], m.tool_call_id)
        for m in agent.messages[: len(history)]
    ]
    assert after == snapshot, "the stored transcript must not be modified"
    assert body["messages"][0] == {"role": "system", "content": "SYSTEM"}
    return body["messages"][1:], agent.messages


def test_lone_surrogates_are_replaced(hermes_home: Path, tmp_path: Path) -> None:
    history = [
        Message(role="user", content="bad \ud800 char"),
        Message(role="assistant", content="fine \udfff"),
    ]
    wire, _ = _send(history, hermes_home, tmp_path)
    assert wire[0]["content"] == "bad \ufffd char"
    assert wire[1]["content"] == "fine \ufffd"


def test_orphan_tool_result_is_dropped(hermes_home: Path, tmp_path: Path) -> None:
    history = [
        Message(role="user", content="hi"),
        Message(role="assistant", content="hello"),
        Message(role="tool", content="stray result", tool_call_id="call_nowhere", tool_name="terminal"),
    ]
    wire, _ = _send(history, hermes_home, tmp_path)
    assert all(m["role"] != "tool" for m in wire)
    assert [m["role"] for m in wire] == ["user", "assistant", "user"]


def test_call_without_result_gets_a_stub(hermes_home: Path, tmp_path: Path) -> None:
    history = [
        Message(role="user", content="run two"),
        Message(
            role="assistant",
            content="",
            tool_calls=[
                ToolCall("call_1", "terminal", '{"command":"ls"}'),
                ToolCall("call_2", "terminal", '{"command":"pwd"}'),
            ],
        ),
        Message(role="tool", content="file.txt", tool_call_id="call_1", tool_name="terminal"),
    ]
    wire, _ = _send(history, hermes_home, tmp_path)
    tools = [m for m in wire if m["role"] == "tool"]
    assert tools == [
        {"role": "tool", "tool_call_id": "call_1", "content": "file.txt"},
        {"role": "tool", "tool_call_id": "call_2", "content": STUB_RESULT},
    ]


def test_consecutive_same_role_messages_are_merged(hermes_home: Path, tmp_path: Path) -> None:
    history = [
        Message(role="user", content="first"),
        Message(role="user", content="second"),
        Message(role="assistant", content="part one"),
        Message(role="assistant", content="part two"),
    ]
    wire, _ = _send(history, hermes_home, tmp_path)
    assert wire[0] == {"role": "user", "content": "first\n\nsecond"}
    assert wire[1] == {"role": "assistant", "content": "part one\n\npart two"}
    assert wire[2] == {"role": "user", "content": "next"}


def test_malformed_tool_call_json_is_repaired_or_emptied(hermes_home: Path, tmp_path: Path) -> None:
    history = [
        Message(role="user", content="go"),
        Message(
            role="assistant",
            tool_calls=[
                ToolCall("call_a", "terminal", '{"command": "ls", "timeout": 5,'),  # truncated, repairable
                ToolCall("call_b", "terminal", "not json at all"),  # hopeless
            ],
        ),
        Message(role="tool", content="r1", tool_call_id="call_a"),
        Message(role="tool", content="r2", tool_call_id="call_b"),
    ]
    wire, _ = _send(history, hermes_home, tmp_path)
    calls = wire[1]["tool_calls"]
    assert calls[0]["function"]["arguments"] == '{"command":"ls","timeout":5}'
    assert calls[1]["function"]["arguments"] == "{}"
    assert wire[1]["content"] == ""  # never null: llama.cpp refuses it beside tool_calls


def test_arguments_are_canonical(hermes_home: Path, tmp_path: Path) -> None:
    history = [
        Message(role="user", content="go"),
        Message(
            role="assistant",
            tool_calls=[ToolCall("c1", "read_file", '{ "path" : "x",  "limit": 3,"offset":1 }')],
        ),
        Message(role="tool", content="...", tool_call_id="c1"),
    ]
    wire, _ = _send(history, hermes_home, tmp_path)
    assert wire[1]["tool_calls"][0]["function"]["arguments"] == '{"limit":3,"offset":1,"path":"x"}'


def test_malformed_arguments_from_the_model_become_a_readable_error(
    hermes_home: Path, tmp_path: Path
) -> None:
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments_raw": '{"command": ls}', "id": "bad"}]},
        {"text": "sorry"},
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("go")
        second = server.requests[1].body["messages"]
    assert result.exit_reason == "completed"
    tool = next(m for m in second if m["role"] == "tool")
    assert tool["tool_call_id"] == "bad" and "Invalid JSON arguments" in tool["content"]
    call = next(m for m in second if m.get("tool_calls"))
    json.loads(call["tool_calls"][0]["function"]["arguments"])  # valid JSON on the wire


def test_unknown_tool_lists_the_available_ones(hermes_home: Path, tmp_path: Path) -> None:
    calls = [{"tool_calls": [{"name": "teleport", "arguments": {}, "id": "x"}]}, {"text": "ok"}]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("go")
        tool = next(m for m in server.requests[1].body["messages"] if m["role"] == "tool")
    assert "does not exist" in tool["content"] and "read_file" in tool["content"]


def test_repair_json_cases() -> None:
    assert repair_json('{"a": [1, 2,') == {"a": [1, 2]}
    assert repair_json('{"a": "unterminated') == {"a": "unterminated"}
    assert repair_json('{"a": 1}}') == {"a": 1}
    assert repair_json("") == {}
    assert repair_json("nope") is None
    assert canonical_arguments('{"b":1,"a":2}') == ('{"a":2,"b":1}', True)


def test_sanitizer_is_idempotent() -> None:
    history = [
        Message(role="user", content="a"),
        Message(role="assistant", tool_calls=[ToolCall("c", "t", '{"x":1}')]),
        Message(role="user", content="b"),
    ]
    once = sanitize_for_wire(history)
    assert [m["role"] for m in once] == ["user", "assistant", "tool", "user"]
    again = sanitize_for_wire(
        [
            Message(
                role=m["role"],
                content=m.get("content") or "",
                tool_calls=[
                    ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"])
                    for c in m.get("tool_calls", [])
                ],
                tool_call_id=m.get("tool_call_id"),
            )
            for m in once
        ]
    )
    assert again == once

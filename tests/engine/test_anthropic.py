"""The Anthropic transport through the real `anthropic` SDK against the scripted server."""

from __future__ import annotations

from pathlib import Path

from agent.core.events import ReasoningDelta, ToolCallStarted
from agent.transports.anthropic import apply_cache_control, convert_messages
from scripted import ScriptedServer
from tests.engine.helpers import make_agent


def _agent(server: ScriptedServer, home: Path, cwd: Path, **kw):
    return make_agent(server, home, cwd, api="anthropic", model="claude-test", **kw)


def test_text_reasoning_and_tool_loop(hermes_home: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the secret is 42\n")
    calls = [
        {
            "reasoning": "I should read the file.",
            "text": "Let me read it.",
            "tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}, "id": "toolu_1"}],
        },
        {
            "text": "The secret is 42.",
            "usage": {"prompt_tokens": 900, "completion_tokens": 8, "cache_read_tokens": 800},
        },
    ]
    with ScriptedServer({"name": "a", "calls": calls}) as server:
        agent, store, ui = _agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("what is the secret?")
        requests = server.requests
    assert result.exit_reason == "completed" and result.final_text == "The secret is 42."
    assert "".join(e.text for e in ui.of_type(ReasoningDelta)) == "I should read the file."
    assert [e.name for e in ui.of_type(ToolCallStarted)] == ["read_file"]
    first, second = requests[0].body, requests[1].body
    assert requests[0].path.endswith("/v1/messages")
    assert first["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert "Hermes" in first["system"][0]["text"]
    assert all(m["role"] != "system" for m in first["messages"])
    assert first["tools"][0]["input_schema"]["type"] == "object"
    assert first["max_tokens"] > 0 and first["stream"] is True
    msgs = second["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    tool_use = next(b for b in msgs[1]["content"] if b["type"] == "tool_use")
    assert tool_use == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "read_file",
        "input": {"path": "notes.txt"},
        "cache_control": {"type": "ephemeral"},
    }
    tool_result = msgs[2]["content"][0]
    assert tool_result["type"] == "tool_result" and tool_result["tool_use_id"] == "toolu_1"
    assert "the secret is 42" in tool_result["content"]
    # The last three messages carry a cache breakpoint.
    assert all("cache_control" in m["content"][-1] for m in msgs[-3:])
    stored = store.load(result.session_id).messages
    assert [m.role for m in stored] == ["user", "assistant", "tool", "assistant"]
    assert stored[-1].usage is not None and stored[-1].usage.cache_read_tokens == 800


def test_stop_reasons_map_to_the_loop(hermes_home: Path, tmp_path: Path) -> None:
    calls = [{"text": "part one ", "finish_reason": "length"}, {"text": "part two"}]
    with ScriptedServer({"name": "a", "calls": calls}) as server:
        agent, _store, _ui = _agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("long")
    assert result.final_text == "part one part two"
    with ScriptedServer({"name": "a", "calls": [{"text": "", "finish_reason": "content_filter"}]}) as server:
        agent, _store, _ui = _agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("bad")
    assert result.exit_reason == "error:content_filter"


def test_errors_are_classified(hermes_home: Path, tmp_path: Path) -> None:
    fault = {"fault": {"status": 401, "message": "invalid x-api-key"}}
    with ScriptedServer({"name": "a", "calls": [fault]}) as server:
        agent, _store, _ui = _agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("hi")
    assert result.exit_reason == "error:auth"
    assert "ANTHROPIC_API_KEY" in result.error.user_line()


def test_conversion_merges_and_drops_orphans() -> None:
    wire = [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "a"},
        {"role": "user", "content": "b"},
        {
            "role": "assistant",
            "content": "x",
            "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "t1", "content": "r1"},
        {"role": "tool", "tool_call_id": "zz", "content": "orphan"},
        {"role": "user", "content": "c"},
    ]
    system, msgs = convert_messages(wire)
    assert system == "sys"
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert [b["text"] for b in msgs[0]["content"]] == ["a", "b"]
    assert [b["type"] for b in msgs[2]["content"]] == ["tool_result", "text"]
    blocks = apply_cache_control(system, msgs)
    assert blocks == [{"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}]

"""The Responses API transport (Hermes' `codex_responses`) through the real `openai` SDK against the
scripted server, which speaks it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.config.settings import Settings
from agent.core.events import ReasoningDelta, TextDelta, ToolCallStarted
from scripted import ScriptedServer
from tests.engine.helpers import make_agent


def _agent(server: ScriptedServer, home: Path, cwd: Path, **kw: Any):
    values: dict[str, Any] = {"provider": "openai", "model": "gpt-5.4", "wire_api": "codex_responses", **kw}
    return make_agent(server, home, cwd, **values)


def test_a_turn_with_a_function_call_completes(hermes_home: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the secret is 42\n")
    calls = [
        {
            "reasoning": "I should read the file.",
            "tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}, "id": "call_1"}],
            "usage": {"prompt_tokens": 500, "completion_tokens": 20, "cache_read_tokens": 100},
        },
        {"text": "The secret is 42."},
    ]
    with ScriptedServer({"name": "r", "calls": calls}) as server:
        agent, store, ui = _agent(server, hermes_home, tmp_path, reasoning_effort="high")
        result = agent.run_conversation("what is the secret?")
        requests = server.requests
    assert result.exit_reason == "completed" and result.final_text == "The secret is 42."
    assert "".join(e.text for e in ui.of_type(TextDelta)) == "The secret is 42."
    assert "".join(e.text for e in ui.of_type(ReasoningDelta)) == "I should read the file."
    assert [e.name for e in ui.of_type(ToolCallStarted)] == ["read_file"]
    first, second = requests[0], requests[1]
    assert first.path == "/v1/responses"
    body = first.body
    assert body["store"] is False and body["stream"] is True
    assert "Hermes" in body["instructions"]
    assert all(item.get("role") != "system" for item in body["input"])
    assert body["input"][-1] == {"role": "user", "content": "what is the secret?"}
    assert body["tools"][0]["type"] == "function" and body["tools"][0]["name"]
    # Effort `high` in the Responses form, the encrypted reasoning asked back.
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["include"] == ["reasoning.encrypted_content"]
    items = second.body["input"]
    kinds = [item.get("type", item.get("role")) for item in items]
    assert kinds[-3:] == ["reasoning", "function_call", "function_call_output"]
    reasoning, call, output = items[-3:]
    # The encrypted reasoning item comes back unchanged (no id: nothing is stored at the provider).
    assert reasoning["encrypted_content"] == "scripted-encrypted-1" and "id" not in reasoning
    assert reasoning["summary"] == [{"type": "summary_text", "text": "I should read the file."}]
    assert call == {
        "type": "function_call",
        "call_id": "call_1",
        "name": "read_file",
        "arguments": '{"path":"notes.txt"}',
    }
    assert output["call_id"] == "call_1" and "the secret is 42" in output["output"]
    stored = store.load(result.session_id).messages
    assert stored[1].usage is not None and stored[1].usage.prompt_tokens == 500
    assert stored[1].usage.cache_read_tokens == 100


def test_errors_cut_streams_and_the_output_limit(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "e", "calls": [{"fault": {"status": 401, "message": "bad key"}}]}) as server:
        agent, _store, _ui = _agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("hi")
    assert result.exit_reason.startswith("error:") and "auth" in result.exit_reason
    calls = [{"text": "cut here", "fault": {"kind": "close", "after_chunks": 1}}, "whole answer"]
    with ScriptedServer({"name": "c", "calls": calls}) as server:
        agent, _store, _ui = _agent(server, hermes_home, tmp_path, max_retries=1)
        result = agent.run_conversation("hi")
    assert result.final_text == "whole answer" and len(server.requests) == 2  # retried
    calls2 = [{"text": "part one ", "finish_reason": "length"}, {"text": "part two"}]
    with ScriptedServer({"name": "l", "calls": calls2}) as server:
        agent, _store, _ui = _agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("long")
    assert result.final_text == "part one part two"


def test_chosen_where_hermes_chooses_it() -> None:
    assert Settings(provider="openai", model="gpt-5.4").api_mode == "codex_responses"  # api.openai.com
    assert Settings(provider="xai", model="grok-4").api_mode == "codex_responses"
    assert Settings(provider="openrouter", model="openai/gpt-5").api_mode == "openai_chat"
    local = Settings(
        provider="custom", base_url="http://127.0.0.1:8000/v1", model="m", wire_api="codex_responses"
    )
    assert local.api_mode == "openai_chat"  # Hermes ignores it on a plain custom endpoint
    forced = Settings(
        provider="openai", base_url="http://127.0.0.1:8000/v1", model="m", wire_api="chat_completions"
    )
    assert forced.api_mode == "openai_chat"


def test_images_are_input_image_parts(hermes_home: Path, tmp_path: Path, mcp_http: str) -> None:
    """An attached image rides in the user's message, a tool's image (an MCP server's) in one user message
    after the run of results, both as `input_image` data URLs; never as text in the function output."""
    import base64

    from agent.config.images import VisionSettings
    from agent.images.store import save_image
    from agent.toolkit.toolsets import CATALOG
    from tests.app.test_mcp import call, manager_for, scenario, write_config
    from tests.mcp_fixture_server import PNG_1PX
    from tests.mcp_servers import http_entry

    write_config(hermes_home, {"fx": http_entry(mcp_http)})
    manager = manager_for(hermes_home, CATALOG)
    url = f"data:image/png;base64,{PNG_1PX}"
    try:
        with ScriptedServer(scenario(call("mcp_fx_picture", "c1"), {"text": "seen"})) as server:
            agent, _store, _ui = _agent(
                server, hermes_home, tmp_path, vision=VisionSettings(supports_vision=True)
            )
            ref = save_image(base64.b64decode(PNG_1PX), hermes_home, name="dot.png")
            result = agent.run_conversation("what is this?", images=[ref])
            first, second = (r.body for r in server.requests)
        agent.close()
    finally:
        manager.close()
    assert result.exit_reason == "completed", result.error
    assert first["input"][-1] == {
        "role": "user",
        "content": [
            {"type": "input_text", "text": "what is this?"},
            {"type": "input_image", "image_url": url},
        ],
    }
    items = second["input"]
    at = next(i for i, item in enumerate(items) if item.get("type") == "function_call_output")
    assert PNG_1PX not in items[at]["output"] and "a tiny picture" in items[at]["output"]
    follow = items[at + 1]
    assert follow["role"] == "user"
    assert [p["type"] for p in follow["content"]] == ["input_text", "input_image"]
    assert follow["content"][1]["image_url"] == url

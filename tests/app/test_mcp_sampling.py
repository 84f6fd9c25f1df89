"""MCP sampling end to end: the fixture server's `sample` tool calls `ctx.session.create_message(...)`, the
client runs it through the session's model (the scripted server, over the real OpenAI SDK), within Hermes'
limits, after the approval gate, and the sampled text comes back in the tool's result.

The first test runs on stdio (a server of its own, the stdio path end to end); the rest reach the worker's
shared server on streamable HTTP (`mcp_http`): what they check is the client's side of sampling."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.core.events import StatusNotice
from agent.core.ui import ApprovalDecision
from agent.mcp.config import SamplingSpec, parse_mcp_servers
from agent.mcp.sampling import SamplingHandler
from agent.toolkit.toolsets import CATALOG
from scripted import ScriptedServer
from tests.app.test_mcp import call, manager_for, scenario, write_config
from tests.engine.helpers import make_agent, tool_results
from tests.mcp_servers import http_entry, stdio_entry
from tests.recording_ui import RecordingUI

pytestmark = pytest.mark.slow


class Unattended(RecordingUI):
    """A UI nobody watches (`hermes-tui -z`): it cannot answer a question."""

    interactive = False


def _turn(
    home: Path, tmp_path: Path, entry: dict, calls: list[dict], ui: RecordingUI
) -> tuple[list[dict], str]:
    """One turn whose model calls `calls` in order; the bodies the model got and the tool's result."""
    write_config(home, {"fx": entry})
    manager = manager_for(home, CATALOG)
    try:
        with ScriptedServer(scenario(*calls)) as server:
            agent, _, _ = make_agent(server, home, tmp_path, ui=ui)
            result = agent.run_conversation("go")
            bodies = [r.body for r in server.requests]
        agent.close()
    finally:
        manager.close()
    assert result.exit_reason == "completed"
    results = [text for body in bodies for _, text in tool_results(body, "openai")]
    return bodies, results[-1] if results else ""


def test_the_sampled_text_reaches_the_tool_and_is_capped(hermes_home: Path, tmp_path: Path) -> None:
    ui = RecordingUI(approval=ApprovalDecision.ONCE)
    bodies, result = _turn(
        hermes_home,
        tmp_path,
        stdio_entry(sampling={"max_tokens_cap": 40}),
        [
            call("mcp_fx_sample", "c1", prompt="write a haiku", max_tokens=500),
            {"text": "an old pond"},
            {"text": "ok"},
        ],
        ui,
    )
    assert result == "sampled (scripted, endTurn): an old pond"
    sampled = bodies[1]
    assert sampled["max_tokens"] == 40
    assert [m["role"] for m in sampled["messages"]] == ["system", "user"]
    assert sampled["messages"][0]["content"] == "You answer for the fixture server."
    assert sampled["messages"][1]["content"] == "write a haiku"
    assert not sampled.get("tools")
    asked = [r for r in ui.approval_requests if r.tool_name == "mcp_fx_sampling"]
    assert len(asked) == 1 and asked[0].subject == "MCP sampling request"
    assert "write a haiku" in asked[0].command
    assert any("MCP server 'fx' sampled scripted" in n.text for n in ui.of_type(StatusNotice))


def test_a_denial_is_an_error_to_the_server_and_no_model_call(
    hermes_home: Path, tmp_path: Path, mcp_http: str
) -> None:
    ui = RecordingUI(approval=ApprovalDecision.DENY)
    bodies, result = _turn(
        hermes_home,
        tmp_path,
        http_entry(mcp_http),
        [call("mcp_fx_sample", "c1", prompt="hi"), {"text": "ok"}],
        ui,
    )
    assert len(bodies) == 2  # the turn's own two requests: no sampling call reached the model
    assert result.startswith("sampling refused: the user did not allow sampling for MCP server 'fx'")


def test_the_rate_limit_refuses_past_max_rpm(hermes_home: Path, tmp_path: Path, mcp_http: str) -> None:
    ui = RecordingUI()
    bodies, result = _turn(
        hermes_home,
        tmp_path,
        http_entry(
            mcp_http, approval="never", sampling={"max_rpm": "2"}
        ),  # a YAML string, as Hermes reads it
        [call("mcp_fx_sample", "c1", prompt="hi", times=3), {"text": "one"}, {"text": "two"}, {"text": "ok"}],
        ui,
    )
    assert len(bodies) == 4 and not ui.approval_requests
    lines = result.splitlines()
    assert lines[:2] == ["sampled (scripted, endTurn): one", "sampled (scripted, endTurn): two"]
    assert lines[2] == "sampling refused: Sampling rate limit exceeded for server 'fx' (2 requests/minute)"


def test_unattended_runs_follow_hermes_default(hermes_home: Path, tmp_path: Path, mcp_http: str) -> None:
    """Nobody to ask: Hermes' default (sampling on, no question) holds; `approval: always` still goes to the
    approval gate (which, in `-z`, denies unless --yolo: here the recording UI answers)."""
    ui = Unattended()
    _, result = _turn(
        hermes_home,
        tmp_path,
        http_entry(mcp_http),
        [call("mcp_fx_sample", "c1", prompt="hi"), {"text": "unattended"}, {"text": "ok"}],
        ui,
    )
    assert result == "sampled (scripted, endTurn): unattended" and not ui.approval_requests
    strict = Unattended(approval=ApprovalDecision.ONCE)
    _, result = _turn(
        hermes_home,
        tmp_path,
        http_entry(mcp_http, approval="always"),
        [call("mcp_fx_sample", "c1", prompt="hi"), {"text": "strict"}, {"text": "ok"}],
        strict,
    )
    assert result == "sampled (scripted, endTurn): strict"
    assert [r.tool_name for r in strict.approval_requests] == ["mcp_fx_sample", "mcp_fx_sampling"]


def test_a_model_outside_allowed_models_is_refused(hermes_home: Path, tmp_path: Path, mcp_http: str) -> None:
    bodies, result = _turn(
        hermes_home,
        tmp_path,
        http_entry(mcp_http, approval="never", sampling={"allowed_models": ["gpt-other"]}),
        [call("mcp_fx_sample", "c1", prompt="hi"), {"text": "ok"}],
        RecordingUI(),
    )
    assert len(bodies) == 2
    assert result == "sampling refused: Model 'scripted' not allowed for server 'fx'. Allowed: gpt-other"


def test_sampling_and_elicitation_are_advertised_only_when_enabled(hermes_home: Path, mcp_http: str) -> None:
    write_config(
        hermes_home,
        {
            "on": http_entry(mcp_http),
            "off": http_entry(mcp_http, sampling={"enabled": False}, elicitation={"enabled": False}),
        },
    )
    manager = manager_for(hermes_home)
    try:
        on = json.loads(manager.call("on", "capabilities", {}).text)
        off = json.loads(manager.call("off", "capabilities", {}).text)
    finally:
        manager.close()
    assert "tools" in on["sampling"] and "form" in on["elicitation"]
    assert "sampling" not in off and "elicitation" not in off


def test_disabled_sampling_is_refused(hermes_home: Path, tmp_path: Path, mcp_http: str) -> None:
    bodies, result = _turn(
        hermes_home,
        tmp_path,
        http_entry(mcp_http, approval="never", sampling={"enabled": False}),
        [call("mcp_fx_sample", "c1", prompt="hi"), {"text": "ok"}],
        RecordingUI(),
    )
    assert len(bodies) == 2
    assert result.startswith("sampling refused:"), result


def test_hermes_config_keys_and_the_sliding_window() -> None:
    (spec,) = parse_mcp_servers(
        {
            "s": {
                "command": "x",
                "sampling": {"max_rpm": "3", "timeout": "nan", "max_tokens_cap": 0, "allowed_models": "m"},
                "elicitation": False,
            }
        },
        env={},
    )
    assert not isinstance(spec, str) and hasattr(spec, "sampling")
    sampling = spec.sampling  # type: ignore[union-attr]
    assert (sampling.max_rpm, sampling.timeout, sampling.max_tokens_cap) == (3, 30.0, 1)
    assert sampling.allowed_models == ("m",) and sampling.enabled
    assert not spec.elicitation.enabled  # type: ignore[union-attr]
    now = [0.0]
    handler = SamplingHandler("s", SamplingSpec(max_rpm=2), lambda: None, clock=lambda: now[0])
    assert handler.allow_rate() and handler.allow_rate() and not handler.allow_rate()
    now[0] = 61.0
    assert handler.allow_rate()


def test_headless_samples_as_hermes_does_and_declines_elicitation(
    hermes_home: Path, tmp_path: Path, mcp_http: str
) -> None:
    """`hermes-tui -z` with the fixture server: nobody to ask, so sampling runs (Hermes' default) and an
    elicitation is declined; stderr says both."""
    from tests.app.test_headless import _run

    write_config(hermes_home, {"fx": http_entry(mcp_http)})
    plan = tmp_path / "plan.json"
    plan.write_text(
        scenario(
            call("mcp_fx_sample", "c1", prompt="hi"),
            {"text": "from the model"},
            call("mcp_fx_ask", "c2"),
            {"text": "all done"},
        )
    )
    proc = _run(["-z", "go", "--scenario", str(plan)], tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    assert "all done" in proc.stdout
    assert "┊ MCP server 'fx' sampled" in proc.stderr
    assert "┊ MCP server 'fx' asked for input (declined: nobody to answer): Who are you?" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_tool_use_is_returned_and_bounded_by_max_tool_rounds(
    hermes_home: Path, tmp_path: Path, mcp_http: str
) -> None:
    lookup = {"tool_calls": [{"name": "lookup", "arguments": {"word": "pond"}, "id": "t1"}]}
    bodies, result = _turn(
        hermes_home,
        tmp_path,
        http_entry(mcp_http, approval="never", sampling={"max_tool_rounds": 1}),
        [
            call("mcp_fx_sample", "c1", prompt="define pond", tool=True, times=2),
            lookup,
            lookup,
            {"text": "ok"},
        ],
        RecordingUI(),
    )
    assert len(bodies) == 4  # as in Hermes the rounds are counted on the reply: the model was asked twice
    assert [t["function"]["name"] for t in bodies[1]["tools"]] == ["lookup"]
    first, second = result.splitlines()
    assert first == 'sampled (scripted, toolUse): lookup({"word": "pond"})'
    assert second == "sampling refused: Tool loop limit exceeded for server 'fx' (max 1 rounds)"


@pytest.mark.parametrize("vision", [True, False])
def test_an_image_in_the_request_takes_the_vision_route(
    hermes_home: Path, tmp_path: Path, vision: bool, mcp_http: str
) -> None:
    from agent.config.images import VisionSettings
    from tests.mcp_fixture_server import PNG_1PX

    write_config(hermes_home, {"fx": http_entry(mcp_http, approval="never")})
    manager = manager_for(hermes_home, CATALOG)
    calls = [call("mcp_fx_sample", "c1", prompt="what is it?", image=True), {"text": "a dot"}, {"text": "ok"}]
    try:
        with ScriptedServer(scenario(*calls)) as server:
            agent, _, _ = make_agent(
                server, hermes_home, tmp_path, vision=VisionSettings(supports_vision=vision)
            )
            agent.run_conversation("go")
            sampled = server.requests[1].body
        agent.close()
    finally:
        manager.close()
    user = sampled["messages"][-1]
    if not vision:  # a note with the stored image's path, never the pixels
        assert user["role"] == "user" and PNG_1PX not in json.dumps(sampled)
        assert user["content"].startswith("what is it?") and "image" in user["content"][len("what is it?") :]
        return
    assert user["role"] == "user" and [p["type"] for p in user["content"]] == ["text", "image_url"]
    assert user["content"][1]["image_url"]["url"] == f"data:image/png;base64,{PNG_1PX}"


def test_a_slow_model_is_cut_at_the_sampling_timeout(
    hermes_home: Path, tmp_path: Path, mcp_http: str
) -> None:
    _, result = _turn(
        hermes_home,
        tmp_path,
        http_entry(mcp_http, approval="never", sampling={"timeout": 1}),
        [call("mcp_fx_sample", "c1", prompt="hi"), {"text": "late", "first_delay": 3}, {"text": "ok"}],
        RecordingUI(),
    )
    assert result == "sampling refused: Sampling LLM call timed out after 1s for server 'fx'"

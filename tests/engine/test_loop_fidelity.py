"""The loop's decisions Hermes 0.19 makes too, checked on the wire against the scripted server: the
terminal's configured timeout, the cap on calls to missing tools, the budget summary, what a model is told
about tools it does not have, a tool call cut at the output limit, the content-filter fallback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.config.settings import load_settings
from agent.core.events import StatusNotice
from agent.session.session import Session
from agent.store import SessionStore
from scripted import ScriptedServer, scripted_settings
from tests.engine.helpers import make_agent, tool_results
from tests.recording_ui import RecordingUI


def scenario(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"name": "fidelity", "calls": list(calls)}


def call(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments, "id": call_id}]}


def notices(ui: RecordingUI) -> list[str]:
    return [e.text for e in ui.events if isinstance(e, StatusNotice)]


def test_terminal_timeout_from_config_stops_a_longer_command(hermes_home: Path, tmp_path: Path) -> None:
    (hermes_home / "config.yaml").write_text("terminal:\n  timeout: 3\n")
    configured = load_settings({}, env={"HERMES_HOME": str(hermes_home)}).settings
    assert configured.terminal_timeout == 3
    calls = [call("terminal", {"command": "echo started; sleep 12; echo finished"}, "t1"), {"text": "ok"}]
    with ScriptedServer(scenario(*calls)) as server:
        settings = scripted_settings(
            server, configured, hermes_home=hermes_home, cwd=tmp_path, yolo=True, max_retries=0
        )
        agent = Session(settings, ui=RecordingUI(), store=SessionStore(hermes_home / "tui" / "state.db"))
        agent.run_conversation("run it")
        ((_, result),) = tool_results(server.requests[1].body, "openai")
    assert "started" in result and "finished" not in result
    assert "[Command timed out after 3 s]" in result and "[exit code: 124]" in result


# ------------------------------------------------------------------------------ calls to tools it lacks


def test_a_model_calling_a_missing_tool_is_stopped_after_3_tries(hermes_home: Path, tmp_path: Path) -> None:
    calls = [call("no_such_tool", {"x": i}, f"t{i}") for i in range(3)] + [{"text": "never asked"}]
    with ScriptedServer(scenario(*calls)) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("go")
        requests = len(server.requests)
    assert requests == 3
    assert result.exit_reason == "error:invalid_tool_call"
    assert result.error is not None
    line = result.error.user_line()
    assert "no_such_tool" in line and "3 tries" in line and "\n" not in line
    stored = store.load(agent.session_id).messages
    asked = [c.id for m in stored for c in m.tool_calls]
    answered = [m.tool_call_id for m in stored if m.role == "tool"]
    assert asked == answered == ["t0", "t1", "t2"]  # no call left unanswered
    assert sum("does not have (no_such_tool)" in n for n in notices(ui)) == 2


def test_a_real_call_between_missing_ones_resets_the_count(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        call("no_such_tool", {}, "a"),
        call("no_such_tool", {}, "b"),
        call("todo", {"todos": [{"id": "1", "content": "x", "status": "pending"}]}, "c"),
        call("no_such_tool", {}, "d"),
        call("no_such_tool", {}, "e"),
        {"text": "done"},
    ]
    with ScriptedServer(scenario(*calls)) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("go")
    assert result.exit_reason == "completed" and result.final_text == "done"


def test_the_unknown_tool_error_lists_only_the_tools_offered(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer(scenario(call("browse", {}, "t1"), {"text": "ok"})) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, toolsets=["file", "todo"])
        agent.run_conversation("go")
        offered = {t["function"]["name"] for t in server.requests[0].body["tools"]}
        ((_, error),) = tool_results(server.requests[1].body, "openai")
    listed = set(error.split("Available tools: ")[1].split(", "))
    assert listed == offered
    assert "terminal" not in listed and "web_search" not in listed


# ------------------------------------------------------------------------------ the budget summary


def test_a_summary_that_only_calls_tools_is_never_a_blank_success(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        call("terminal", {"command": "echo one"}, "t1"),
        call("terminal", {"command": "echo two"}, "t2"),  # the summary request: tools anyway, no text
        {"text": ""},  # asked once more: still nothing
    ]
    with ScriptedServer(scenario(*calls)) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, max_iterations=1, yolo=True)
        result = agent.run_conversation("work")
        assert len(server.requests) == 3 and not server.requests[1].body.get("tools")
    assert result.exit_reason == "budget_exhausted"
    assert (
        result.final_text == "I reached the iteration limit (1 model calls) and couldn't generate a summary."
    )
    assert result.final_text in notices(ui)
    stored = store.load(agent.session_id).messages
    asked = [c.id for m in stored for c in m.tool_calls]
    answered = [m.tool_call_id for m in stored if m.role == "tool"]
    assert asked == answered == ["t1"]  # the summary's call was dropped, not left unanswered
    assert not (tmp_path / "two").exists()
    assert stored[-1].role == "assistant" and stored[-1].content == result.final_text


def test_a_summary_with_text_and_a_tool_call_keeps_the_text_only(hermes_home: Path, tmp_path: Path) -> None:
    summary = {
        "text": "I echoed one.",
        "tool_calls": [{"name": "terminal", "arguments": {"command": "echo two"}, "id": "t2"}],
    }
    calls = [call("terminal", {"command": "echo one"}, "t1"), summary]
    with ScriptedServer(scenario(*calls)) as server:
        agent, store, _ui = make_agent(server, hermes_home, tmp_path, max_iterations=1, yolo=True)
        result = agent.run_conversation("work")
    assert (result.exit_reason, result.final_text) == ("budget_exhausted", "I echoed one.")
    last = store.load(agent.session_id).messages[-1]
    assert last.content == "I echoed one." and last.tool_calls == []


# ------------------------------------------------------------------------------ a tool call cut at the limit

CUT = {
    "tool_calls": [
        {"name": "write_file", "arguments_raw": '{"path": "out.txt", "content": "hel', "id": "cut1"}
    ],
    "finish_reason": "length",
}


def test_a_cut_tool_call_is_not_run_and_is_asked_again_with_a_larger_cap(
    hermes_home: Path, tmp_path: Path
) -> None:
    whole = call("write_file", {"path": "out.txt", "content": "hello"}, "w1")
    with ScriptedServer(scenario(CUT, whole, {"text": "written"})) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, yolo=True, max_output_tokens=1000)
        result = agent.run_conversation("write it")
        bodies = [r.body for r in server.requests]
    assert result.final_text == "written"
    assert bodies[0]["max_tokens"] == 1000 and bodies[1]["max_tokens"] == 2000
    assert bodies[2]["max_tokens"] == 1000  # the larger cap was for the retry only
    # The cut call is never replayed (repaired or not) and never answered: the retry is the same request.
    assert bodies[1]["messages"] == bodies[0]["messages"]
    assert all("cut1" not in str(m) for m in bodies[2]["messages"])
    assert (tmp_path / "out.txt").read_text() == "hello"
    assert any("cut at the output limit and was not run" in n and "(1 of 4)" in n for n in notices(ui))
    assert all(c.id != "cut1" for m in store.load(agent.session_id).messages for c in m.tool_calls)


def test_a_tool_call_cut_every_time_stops_after_4_retries(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer(scenario(*[CUT] * 5, {"text": "never"})) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, yolo=True)
        result = agent.run_conversation("write it")
        caps = [r.body.get("max_tokens") for r in server.requests]
    assert caps[1:] == [8192, 16384, 32768, 32768]  # 4096 doubled per retry, at most 32768
    assert result.exit_reason == "truncated" and result.error is not None
    assert "not run" in result.error.user_line()
    assert not (tmp_path / "out.txt").exists()


# ------------------------------------------------------------------------------ a safety filter's refusal


def test_content_filter_falls_back_to_the_next_provider(hermes_home: Path, tmp_path: Path) -> None:
    from agent.config.settings import FallbackProvider

    refusal = {"text": "", "finish_reason": "content_filter"}
    with (
        ScriptedServer(scenario(refusal)) as primary,
        ScriptedServer(scenario({"text": "answer from the fallback"})) as fallback,
    ):
        backup = FallbackProvider(provider="custom", model="backup-model", base_url=fallback.openai_base_url)
        agent, _store, ui = make_agent(primary, hermes_home, tmp_path, fallback_providers=[backup])
        result = agent.run_conversation("something")
    assert (result.exit_reason, result.final_text) == ("completed", "answer from the fallback")
    assert any("safety filter" in n and "Falling back to custom/backup-model" in n for n in notices(ui))


def test_content_filter_without_a_fallback_ends_with_one_clear_line(
    hermes_home: Path, tmp_path: Path
) -> None:
    with ScriptedServer(scenario({"text": "", "finish_reason": "content_filter"})) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("something")
    assert result.exit_reason == "error:content_filter" and result.error is not None
    assert "declined" in result.error.user_line() and "error:content_filter" not in result.error.user_line()


# ------------------------------------------------------------------------------ a custom HERMES_HOME's config


def test_editing_a_custom_hermes_homes_config_from_inside_it_asks(hermes_home: Path, tmp_path: Path) -> None:
    config = hermes_home / "config.yaml"
    config.write_text("approvals:\n  mode: manual\n")
    command = "sed -i 's/mode: manual/mode: off/' config.yaml"  # relative: the session runs in the home
    with ScriptedServer(scenario(call("terminal", {"command": command}, "t1"), {"text": "ok"})) as server:
        agent, _store, ui = make_agent(server, hermes_home, hermes_home)
        agent.run_conversation("turn approvals off")
        ((_, result),) = tool_results(server.requests[1].body, "openai")
    assert [list(r.reasons) for r in ui.approval_requests] == [["writes Hermes configuration"]]
    assert "BLOCKED" in result and config.read_text() == "approvals:\n  mode: manual\n"


def test_the_same_relative_edit_elsewhere_runs(hermes_home: Path, tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("mode: manual\n")
    command = "sed -i 's/mode: manual/mode: off/' config.yaml"
    with ScriptedServer(scenario(call("terminal", {"command": command}, "t1"), {"text": "ok"})) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("edit the project's config")
    assert ui.approval_requests == [] and (tmp_path / "config.yaml").read_text() == "mode: off\n"


# ------------------------------------------------------------------------------ whose key a 401 is about


def test_a_fallbacks_401_names_the_fallbacks_key_variable(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent.config.settings import FallbackProvider

    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-wrong")
    monkeypatch.setenv("WORK_DEEPSEEK_KEY", "sk-wrong-too")
    overloaded = {"fault": {"status": 503, "message": "overloaded"}}
    rejected = {"fault": {"status": 401, "message": "Authentication Fails"}}
    with (
        ScriptedServer(scenario(overloaded, overloaded)) as primary,
        ScriptedServer(scenario(rejected, rejected)) as backup,
    ):
        chain = [
            FallbackProvider(provider="deepseek", model="deepseek-chat", base_url=backup.openai_base_url),
            FallbackProvider(
                provider="deepseek",
                model="deepseek-chat",
                base_url=backup.openai_base_url,
                key_env="WORK_DEEPSEEK_KEY",
            ),
        ]
        agent, _store, ui = make_agent(primary, hermes_home, tmp_path, fallback_providers=chain)
        result = agent.run_conversation("hi")
    said = notices(ui)
    assert any("set DEEPSEEK_API_KEY" in n and "Falling back" in n for n in said)
    assert result.error is not None and "set WORK_DEEPSEEK_KEY" in result.error.user_line()
    assert all("OPENAI_API_KEY" not in n for n in said)

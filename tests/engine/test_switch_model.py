"""`Agent.switch_model`: the next turn goes to the new model, and everything that names the model says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.events import ApiCallStarted
from scripted import ScriptedServer
from tests.engine.helpers import error_lines, last_user_text, make_agent


def test_the_next_turn_uses_the_new_model_in_request_events_and_hooks(
    hermes_home: Path, tmp_path: Path
) -> None:
    (hermes_home / "plugins").mkdir()
    (hermes_home / "plugins" / "which.py").write_text(
        "def pre_llm_call(model, **kw):\n    return f'hook sees {model}'\n"
    )
    calls = [{"text": "from the first"}, {"text": "from the second"}]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("one")
        first_session = agent.session_id
        agent.switch_model("bigger-model")
        result = agent.run_conversation("two")
        assert result.completed and result.final_text == "from the second"
        assert [r.body["model"] for r in server.requests] == ["scripted", "bigger-model"]
        assert [e.model for e in ui.of_type(ApiCallStarted)] == ["scripted", "bigger-model"]
        assert "hook sees bigger-model" in last_user_text(server.requests[1].body, "openai")
        assert agent.session_id == first_session  # the conversation continues
        assert agent.model == "bigger-model" and agent.settings.model == "bigger-model"


def test_an_error_after_a_switch_names_the_new_model(hermes_home: Path, tmp_path: Path) -> None:
    calls = [{"fault": {"status": 404, "message": "The model `nope-1` does not exist"}}]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path)
        agent.switch_model("nope-1")
        result = agent.run_conversation("hi")
        assert not result.completed
        errors = error_lines(ui)
        assert len(errors) == 1 and "nope-1" in errors[0] and "scripted" not in errors[0]


def test_switching_provider_takes_its_key_from_the_environment(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
    calls = [{"text": "hello from claude"}]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        agent.switch_model("claude-test", provider="anthropic", base_url=server.anthropic_base_url)
        result = agent.run_conversation("hi")
        assert result.final_text == "hello from claude"
        assert server.requests[0].api == "anthropic"
        assert "sk-ant-from-env" in " ".join(server.requests[0].headers.values())


def test_the_model_cannot_change_during_a_turn(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t", "calls": []}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        with agent._busy, pytest.raises(RuntimeError):
            agent.switch_model("other")
        assert agent.model == "scripted"

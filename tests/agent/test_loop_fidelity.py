"""The loop's decisions Hermes 0.19 makes too, checked on the wire against the scripted server: the
terminal's configured timeout, the cap on calls to missing tools, the budget summary, what a model is told
about tools it does not have, a tool call cut at the output limit, the content-filter fallback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.config import load_settings
from agent.events import StatusNotice
from agent.loop import Agent
from agent.scripted import ScriptedServer, scripted_settings
from agent.store import SessionStore
from agent.ui import RecordingUI
from tests.agent.helpers import make_agent, tool_results


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
        agent = Agent(settings, ui=RecordingUI(), store=SessionStore(hermes_home / "tui" / "state.db"))
        agent.run_conversation("run it")
        ((_, result),) = tool_results(server.requests[1].body, "openai")
    assert "started" in result and "finished" not in result
    assert "[Command timed out after 3 s]" in result and "[exit code: 124]" in result

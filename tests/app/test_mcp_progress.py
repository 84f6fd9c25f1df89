"""An MCP call carries a progress token, and the server's progress notifications reach the UI as
`ToolProgress` events of that call, before it finishes (the tool panel shows them). The first test on stdio
(a server of its own), the second on the worker's shared server on streamable HTTP (`mcp_http`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.events import ToolFinished, ToolProgress
from agent.toolkit.toolsets import CATALOG
from scripted import ScriptedServer
from tests.app.test_mcp import call, manager_for, scenario, write_config
from tests.engine.helpers import make_agent, tool_results
from tests.mcp_servers import http_entry, stdio_entry

pytestmark = pytest.mark.slow


def test_the_servers_progress_reaches_the_ui_during_the_call(hermes_home: Path, tmp_path: Path) -> None:
    write_config(hermes_home, {"fx": stdio_entry()})
    manager = manager_for(hermes_home, CATALOG)
    try:
        with ScriptedServer(scenario(call("mcp_fx_steps", "c1", n=3), {"text": "done"})) as server:
            agent, _, ui = make_agent(server, hermes_home, tmp_path)
            result = agent.run_conversation("count")
            second = server.requests[1].body
        agent.close()
    finally:
        manager.close()
    assert result.exit_reason == "completed"
    assert tool_results(second, "openai") == [("c1", "3 steps done")]
    seen = [(e.call_id, e.progress, e.total, e.message) for e in ui.of_type(ToolProgress)]
    assert seen == [("c1", 1, 3, "step 1"), ("c1", 2, 3, "step 2"), ("c1", 3, 3, "step 3")]
    events = ui.events
    finished = next(i for i, e in enumerate(events) if isinstance(e, ToolFinished))
    assert all(i < finished for i, e in enumerate(events) if isinstance(e, ToolProgress))


def test_progress_goes_to_the_watcher_the_call_is_given_and_none_is_asked_otherwise(
    hermes_home: Path, mcp_http: str
) -> None:
    write_config(hermes_home, {"fx": http_entry(mcp_http)})
    manager = manager_for(hermes_home)
    try:
        seen: list[tuple[float, float | None, str]] = []
        assert manager.call("fx", "steps", {"n": 2}).text == "2 steps done"
        report = manager.call("fx", "steps", {"n": 2}, on_progress=lambda p, t, m: seen.append((p, t, m)))
        assert report.text == "2 steps done"
    finally:
        manager.close()
    assert seen == [(1, 2, "step 1"), (2, 2, "step 2")]

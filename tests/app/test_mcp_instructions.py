"""An MCP server's `instructions` (its `InitializeResult.instructions`) reach a new session's system prompt,
under the server's name and capped, and a server that gives none adds nothing (the worker's shared server on
streamable HTTP, `mcp_http`, gives none)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent.prompts.sources import SERVER_INSTRUCTIONS_MAX, server_instructions_section
from agent.toolkit.toolsets import CATALOG
from scripted import ScriptedServer
from tests.app.test_mcp import manager_for, scenario, write_config
from tests.engine.helpers import make_agent, system_text
from tests.mcp_servers import FIXTURE, http_entry


@pytest.mark.slow
def test_the_servers_instructions_are_in_a_new_sessions_prompt(
    hermes_home: Path, tmp_path: Path, mcp_http: str
) -> None:
    said = "Call echo before add. Never call hang."
    write_config(
        hermes_home,
        {
            "fx": {"command": sys.executable, "args": [str(FIXTURE), "stdio", "--instructions", said]},
            "quiet": http_entry(mcp_http),
        },
    )
    manager = manager_for(hermes_home, CATALOG)
    try:
        with ScriptedServer(scenario({"text": "ok"})) as server:
            agent, _, _ = make_agent(server, hermes_home, tmp_path)
            agent.run_conversation("hi")
            system = system_text(server.requests[0].body, "openai")
        agent.close()
    finally:
        manager.close()
    assert "## MCP server instructions" in system
    assert f"### fx\n{said}" in system
    assert "### quiet" not in system


def test_instructions_are_capped_per_server_and_in_total() -> None:
    long = "x" * (SERVER_INSTRUCTIONS_MAX + 500)
    section = server_instructions_section([("mcp-a", long), *((f"mcp-s{i}", "y" * 2000) for i in range(6))])
    assert "x" * SERVER_INSTRUCTIONS_MAX in section and "x" * (SERVER_INSTRUCTIONS_MAX + 1) not in section
    assert "cut at 2,048 characters" in section
    assert "### s2" in section and "### s3" not in section  # 2,048 + 3 x 2,000 fit 8,192; the 4th does not
    assert "Left out, over 8,192 characters: s3, s4, s5." in section
    assert server_instructions_section([("mcp-a", "  ")]) == ""

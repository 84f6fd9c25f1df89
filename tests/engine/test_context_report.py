"""`/context`'s breakdown on the scripted server: the parts add up to the engine's own estimate and to
within 5% of the status bar's count (the provider's count of the last request and its reply); switching the
browser toolset off shrinks the tool-schema row; the context files, memory and tool results are named."""

from __future__ import annotations

import sys
from pathlib import Path

from agent.session.compression import estimate_tokens
from agent.session.context_report import PARTS, render_context
from scripted import ScriptedServer
from tests.engine.helpers import make_agent


def turn_with_a_tool(tmp_path: Path) -> list[dict]:
    (tmp_path / "notes.txt").write_text("a line of notes\n" * 400)
    return [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        {"text": "The notes repeat one line. " * 20},
    ]


def test_the_parts_sum_to_the_status_bars_count(hermes_home: Path, tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Always run the tests.\n" * 50)
    (hermes_home / "memories").mkdir(parents=True, exist_ok=True)
    (hermes_home / "memories" / "MEMORY.md").write_text("The user deploys on Fridays.")
    with ScriptedServer({"name": "t", "calls": turn_with_a_tool(tmp_path)}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, browser_executable_path=sys.executable)
        agent.run_conversation("what is in notes.txt?")
        report = agent.context_report()
        expected = estimate_tokens(agent.wire_messages(), agent.toolsets.schemas())
    agent.close()
    summed = sum(row.tokens for row in report.rows)
    assert [row.key for row in report.rows] == [key for key, _label in PARTS]
    assert report.total == expected and abs(summed - expected) <= len(PARTS)  # the engine's one counter
    assert report.measured == agent.last_context_tokens > 0
    assert abs(summed - report.measured) <= 0.05 * report.measured  # the status bar's figure
    files = report.row("context_files")
    assert list(files.items) == ["AGENTS.md"] and files.tokens >= 250
    assert report.row("memory").tokens > 0
    assert report.row("tool_results").biggest(1)[0][0] == "read_file (turn 1)"
    assert report.row("tool_results").tokens > 1500  # the file's 6,400 characters
    assert report.row("images").tokens == 0
    text = render_context(report)
    assert "context files" in text and "AGENTS.md" in text and "read_file (turn 1)" in text and "█" in text


def test_switching_the_browser_off_shrinks_the_tool_schema_row(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t", "calls": [{"text": "ok"}]}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, browser_executable_path=sys.executable)
        before = agent.context_report()
        assert any(name.startswith("browser_") for name in before.row("tools").items)
        agent.toolsets.set_enabled("browser", False)
        after = agent.context_report()
    agent.close()
    assert after.row("tools").tokens < before.row("tools").tokens
    assert not any(name.startswith("browser_") for name in after.row("tools").items)
    assert after.tool_count < before.tool_count
    # before the first message the system prompt that message will build is measured
    assert before.row("system").tokens > 100 and agent.system_prompt == ""

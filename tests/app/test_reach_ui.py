"""What a user sees of subagents and MCP servers: the nested subagent list in a delegate_task panel, an
interrupt reaching the children, `/mcp` with a real server (the worker's shared fixture server on streamable
HTTP) and a broken one, subagent sessions listed under their parent."""

from __future__ import annotations

import json
from pathlib import Path

from textual.pilot import Pilot

from agent.store import SessionStore
from hermes_tui.app import HermesApp
from hermes_tui.screens.mcp import McpScreen, ServerList
from hermes_tui.screens.sessions.rows import nest_subagents
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, screen_text, shown, submit, wait_for
from tests.mcp_servers import http_entry
from widgets.transcript.entries.subagents import SubagentList
from widgets.transcript.entries.tool_call import ToolCallEntry

GOALS = ("count the python files", "list the tests")


def _delegate_scenario(child_tool: dict, *, child_delay: float = 0.0) -> dict:
    return {
        "name": "delegate",
        "calls": [
            {
                "tool_calls": [
                    {
                        "name": "delegate_task",
                        "id": "call_d",
                        "arguments": {"tasks": [{"goal": GOALS[0]}, {"goal": GOALS[1]}]},
                    }
                ]
            },
            {"match": GOALS[0], "text": "Looking around.\nStill looking.", "tool_calls": [child_tool]},
            {"match": GOALS[0], "text": "There are 7 python files."},
            {"match": GOALS[1], "first_delay": child_delay, "text": "Tests live under tests/."},
            {"text": "Both subagents are done."},
        ],
    }


def _panel(app: HermesApp, name: str) -> ToolCallEntry | None:
    panels = [p for p in chat(app).transcript.entries_of(ToolCallEntry) if p.tool_name == name]
    return panels[0] if panels else None


async def test_subagents_show_nested_in_the_delegate_task_panel(hermes_home: Path, tmp_path: Path) -> None:
    scenario = _delegate_scenario({"name": "terminal", "arguments": {"command": "echo 7"}})

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "count and list")
        await wait_for(pilot, lambda: "Both subagents are done." in screen_text(app), 30, "the answer")
        panel = _panel(app, "delegate_task")
        assert panel is not None and panel.status == "ok"
        nested = panel.nested
        assert isinstance(nested, SubagentList)
        children = nested.children_progress
        assert [children[i].goal for i in sorted(children)] == list(GOALS)
        assert all(c.status == "completed" for c in children.values())
        assert children[0].tool_count == 1 and children[1].tool_count == 0
        text = screen_text(app)
        assert "subagent 1: count the python files" in text and "subagent 2: list the tests" in text
        assert "There are 7 python files." in text
        # the children's tool calls live in the nested list, not as panels of the parent's turn
        assert _panel(app, "terminal") is None

    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path, size=(110, 40))


async def test_escape_interrupts_the_children_and_every_call_is_answered(
    hermes_home: Path, tmp_path: Path
) -> None:
    scenario = _delegate_scenario({"name": "terminal", "arguments": {"command": "sleep 60"}}, child_delay=60)

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "count and list")

        def running_child_tool() -> bool:
            panel = _panel(app, "delegate_task")
            nested = panel.nested if panel is not None else None
            return isinstance(nested, SubagentList) and any(
                t.status == "running" for c in nested.children_progress.values() for t in c.tools
            )

        await wait_for(pilot, running_child_tool, 30, "a child's command running")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not chat(app).busy, 30, "the turn to end")
        panel = _panel(app, "delegate_task")
        assert panel is not None and panel.status == "cancelled"
        assert isinstance(panel.nested, SubagentList)
        assert {c.status for c in panel.nested.children_progress.values()} == {"interrupted"}
        store = SessionStore(hermes_home / "tui" / "state.db")
        try:
            parent = chat(app).agent.session_id
            for info in store.list_sessions(20):
                loaded = store.load(info.id)
                calls = {c.id for m in loaded.messages for c in (m.tool_calls or ())}
                answered = {m.tool_call_id for m in loaded.messages if m.role == "tool"}
                assert calls <= answered, f"unanswered tool calls in {info.source} session {info.id}"
                if info.source == "subagent":
                    assert info.parent_session_id == parent
        finally:
            store.close()

    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path, size=(110, 40))


async def test_mcp_command_shows_a_real_server_and_a_broken_one(
    hermes_home: Path, tmp_path: Path, mcp_http: str
) -> None:
    config = {
        "mcp_servers": {
            "fx": http_entry(mcp_http, tools={"exclude": ["crash"]}),
            "bad": {"command": str(tmp_path / "no-such-server")},
        }
    }
    (hermes_home / "config.yaml").write_text(json.dumps(config))
    scenario = {"name": "idle", "calls": [{"text": "hi"}]}

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/mcp")
        await wait_for(pilot, lambda: isinstance(app.screen, McpScreen), what="the /mcp screen")

        def connected() -> bool:
            servers = app.screen.query(ServerList)  # the screen redraws itself as servers change
            shown = {s.name: s.state for s in servers.first().statuses} if servers else {}
            return shown == {"fx": "connected", "bad": "failed"}

        await wait_for(pilot, connected, 60, "fx connected and bad failed, shown while the screen is open")
        await wait_for(pilot, lambda: "bad: failed" in screen_text(app), 10, "the list redrawn")
        text = screen_text(app)
        assert "fx: connected" in text and "mcp_fx_echo" in text and "left out: crash" in text
        assert "bad: failed" in text and "command not found" in text
        notes = [n.message for n in app._notifications]  # a toast may have timed out under load: <= 1
        assert sum("MCP server 'bad' could not connect" in n for n in notes) <= 1
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, McpScreen), what="closed")
        await submit(pilot, "/mcp nonsense")
        await shown(pilot, "try /mcp reload")

    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path, size=(110, 40))


def test_subagent_sessions_are_listed_under_their_parent(hermes_home: Path) -> None:
    store = SessionStore(hermes_home / "tui" / "state.db")
    try:
        made = {"model": "m", "provider": "p", "cwd": "/", "system_prompt": ""}
        parent = store.create_session(**made, title="parent")
        other = store.create_session(**made, title="other")
        child = store.create_session(**made, title="child", source="subagent", parent_session_id=parent)
        listed = store.list_sessions(10)
    finally:
        store.close()
    ordered = [info.id for info in nest_subagents(listed)]
    assert ordered.index(child) == ordered.index(parent) + 1
    assert set(ordered) == {parent, other, child}


def test_a_failing_server_is_reported_once_per_distinct_error(tmp_path: Path) -> None:
    from agent.mcp import ServerStatus
    from hermes_tui.mcp_service import McpService

    service = McpService(tmp_path, post=lambda status: None)
    failed = ServerStatus(name="bad", state="failed", error="command not found: x")
    line = service.report(failed)
    assert line == "MCP server 'bad' could not connect: command not found: x"
    assert service.report(failed) is None  # the same error again: already said
    assert service.report(ServerStatus(name="bad", state="connecting")) is None
    exited = ServerStatus(name="bad", state="exited", error="the connection closed")
    assert service.report(exited) == "MCP server 'bad' exited: the connection closed"
    assert service.report(ServerStatus(name="bad", state="connected")) is None
    assert service.report(failed) is not None  # it connected in between: a new failure is news

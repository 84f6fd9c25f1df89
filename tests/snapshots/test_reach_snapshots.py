"""Snapshots of `/mcp` and of subagents nested in a running `delegate_task` panel.

Deterministic: the servers' status is data given to the screen (no process, no temp path) with a fixed
clock, and the panel's elapsed time is frozen. Regenerate after an intended change with
`pytest tests/snapshots/test_reach_snapshots.py -n 0 --snapshot-update`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static

from agent.core.events import (
    ApiCallStarted,
    ChildFinished,
    ChildStarted,
    TextDelta,
    ToolFinished,
    ToolStarted,
)
from agent.mcp.manager import LastCall, ServerStatus
from hermes_tui.screens.mcp import McpScreen
from themes.loader import builtin_themes
from widgets.transcript.entries.subagents import SubagentList
from widgets.transcript.entries.tool_call import ToolCallEntry
from widgets.transcript.view import Transcript

SIZES = [pytest.param((120, 40), id="120x40"), pytest.param((80, 24), id="80x24")]
NOW = 1_780_000_000.0

STATUSES = [
    ServerStatus(
        name="github",
        state="connected",
        transport="stdio",
        target="npx -y @modelcontextprotocol/server-github",
        tools=("mcp_github_search_repositories", "mcp_github_get_issue", "mcp_github_create_issue"),
        skipped=("delete_repository",),
        approval="by annotations",
        calls=3,
        last_call=LastCall("get_issue", "ok", 0.42, NOW - 125),
    ),
    ServerStatus(
        name="docs",
        state="failed",
        transport="http",
        target="http://127.0.0.1:8931/mcp",
        error="no answer within 60 s (connect_timeout)",
        approval="never",
    ),
    ServerStatus(
        name="scratch", state="disabled", transport="stdio", target="uvx mcp-scratch", approval="always"
    ),
    ServerStatus(name="broken", state="invalid", error="give either `command` (a stdio server) or `url`"),
]


class Source:
    def statuses(self) -> list[ServerStatus]:
        return list(STATUSES)

    def reload(self) -> None:
        raise AssertionError("not in a snapshot")


class ThemedApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        theme = builtin_themes()["default"].to_textual_theme()
        self.register_theme(theme)
        self.theme = theme.name


class McpSnapshotApp(ThemedApp):
    def compose(self) -> ComposeResult:
        yield Static("the chat")

    def on_mount(self) -> None:
        self.push_screen(McpScreen(Source(), clock=lambda: NOW))


@pytest.mark.parametrize("size", SIZES)
def test_mcp_screen_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(McpSnapshotApp(), terminal_size=size)


class SubagentSnapshotApp(ThemedApp):
    def compose(self) -> ComposeResult:
        yield Transcript()

    async def populate(self) -> None:
        transcript = self.query_one(Transcript)
        transcript.add_user("Check the repo in three parallel subagents")
        panel = transcript.add_tool_panel("call_d", "delegate_task", 0)
        panel.set_started({"tasks": [{}, {}, {}]}, "3 tasks")
        children = panel.nest(SubagentList())
        assert isinstance(children, SubagentList)
        goals = ("count the python files", "read the readme", "list the tests")
        for index, goal in enumerate(goals):
            children.child_started(ChildStarted("call_d", index, goal, f"s{index}", "scripted"))
        children.child_event(0, ApiCallStarted(1, "scripted", 50))
        children.child_event(0, ToolStarted("c0", "terminal", {"command": "ls"}, "ls **/*.py | wc -l"))
        children.child_event(0, ToolFinished("c0", "terminal", "ok", 0.3, "7"))
        children.child_finished(
            ChildFinished("call_d", 0, "completed", "There are 7 python files.", 2, 1, 2.4)
        )
        children.child_event(1, ToolStarted("c1", "read_file", {"path": "README.md"}, "README.md"))
        children.child_event(1, ToolFinished("c1", "read_file", "ok", 0.1, "# hermes"))
        children.child_event(1, ToolStarted("c2", "mcp_docs_search", {"q": "readme"}, "readme"))
        children.child_event(1, TextDelta("The readme describes\nthe terminal UI and"))
        children.child_event(2, ToolStarted("c3", "search_files", {"pattern": "test_*"}, "test_*.py"))
        children.child_event(2, ToolFinished("c3", "search_files", "error", 0.2, "Error: bad pattern"))


@pytest.fixture(autouse=True)
def static_animations() -> Iterator[None]:
    panel = ToolCallEntry.ANIMATE
    ToolCallEntry.ANIMATE = False
    yield
    ToolCallEntry.ANIMATE = panel


async def _populate(pilot: Pilot) -> None:
    app = pilot.app
    assert isinstance(app, SubagentSnapshotApp)
    await app.populate()
    for _ in range(5):
        await pilot.wait_for_scheduled_animations()
        await pilot.pause(0.05)


@pytest.mark.parametrize("size", SIZES)
def test_subagents_in_a_running_panel_snapshot(snap_compare: Any, size: tuple[int, int]) -> None:
    assert snap_compare(SubagentSnapshotApp(), terminal_size=size, run_before=_populate)

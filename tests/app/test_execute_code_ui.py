"""What a user sees of execute_code: the script's tool calls nested in its panel, Esc stopping it."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from hermes_tui.app import HermesApp
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, screen_text, submit, wait_for
from widgets.transcript.entries.subagents import SubagentList
from widgets.transcript.entries.tool_call import ToolCallEntry


def _scenario(code: str) -> dict:
    return {
        "name": "execute_code",
        "calls": [
            {"tool_calls": [{"name": "execute_code", "id": "call_x", "arguments": {"code": code}}]},
            {"text": "The script is done."},
        ],
    }


def _panel(app: HermesApp) -> ToolCallEntry | None:
    panels = [p for p in chat(app).transcript.entries_of(ToolCallEntry) if p.tool_name == "execute_code"]
    return panels[0] if panels else None


async def test_the_scripts_tool_calls_show_nested_in_its_panel(hermes_home: Path, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    code = (
        "from hermes_tools import read_file\nfor p in ('a.txt', 'b.txt'):\n    read_file(p)\n"
        "print('read both')\n"
    )

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "read them")
        await wait_for(pilot, lambda: "The script is done." in screen_text(app), 30, "the answer")
        panel = _panel(app)
        assert panel is not None and panel.status == "ok"
        assert isinstance(panel.nested, SubagentList)
        (script,) = panel.nested.children_progress.values()
        assert script.status == "completed" and script.tool_count == 2
        text = screen_text(app)
        assert "script: 4 lines of Python" in text and "completed · 2 tools" in text
        # the script's calls are not panels of the turn
        assert [p.tool_name for p in chat(app).transcript.entries_of(ToolCallEntry)] == ["execute_code"]

    await run_chat(_scenario(code), body, home=hermes_home, cwd=tmp_path, size=(110, 40))


async def test_escape_stops_a_long_script(hermes_home: Path, tmp_path: Path) -> None:
    code = "from hermes_tools import terminal\nterminal('echo one')\nimport time\ntime.sleep(300)\n"

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "wait")

        def inner_call_done() -> bool:
            panel = _panel(app)
            nested = panel.nested if panel is not None else None
            return isinstance(nested, SubagentList) and any(
                t.status == "ok" for c in nested.children_progress.values() for t in c.tools
            )

        await wait_for(pilot, inner_call_done, 30, "the script's first call")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not chat(app).busy, 30, "the turn to end")
        panel = _panel(app)
        assert panel is not None and panel.status == "cancelled"
        assert isinstance(panel.nested, SubagentList)
        assert {c.status for c in panel.nested.children_progress.values()} == {"interrupted"}

    await run_chat(_scenario(code), body, home=hermes_home, cwd=tmp_path, size=(110, 40))

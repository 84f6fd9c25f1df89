"""The command palette survives its toolkit's page-key crash (issue 20, item 14)."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandList
from textual.pilot import Pilot

from hermes_tui.app import HermesApp
from scripted import ScriptedServer, demo_scenario_path
from tests.ui.harness import run_chat, wait_for


async def test_page_keys_in_a_palette_too_short_to_show_its_list(tmp_path: Path, hermes_home: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await pilot.press("ctrl+p")
        commands = await wait_for(pilot, lambda: app.screen.query(CommandList).first(None), what="palette")
        await wait_for(pilot, lambda: commands.option_count, what="commands listed")
        assert not commands.scrollable_content_region  # 4 rows: no room for the list
        await pilot.press("pagedown", "pageup", "pagedown")
        await pilot.pause()
        assert app._exception is None and app.is_running
        await pilot.resize_terminal(80, 30)
        await wait_for(pilot, lambda: commands.scrollable_content_region, what="the list shown")
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: commands.highlighted, what="a page down")  # paging works when shown

    await run_chat(demo_scenario_path(), body, home=hermes_home, cwd=tmp_path, size=(60, 4))

"""The command palette survives its toolkit's page-key crash (issue 20, item 14)."""

from __future__ import annotations

from pathlib import Path

from textual.command import CommandList
from textual.pilot import Pilot

from hermes_tui.app import HermesApp
from scripted import ScriptedServer, demo_scenario_path
from tests.app.harness import run_chat, wait_for


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


async def test_the_palette_lists_our_commands_and_its_screenshot_writes_a_file(
    tmp_path: Path, hermes_home: Path
) -> None:
    """Ctrl+P: the slash commands and Screenshot; not Textual's Keys, Maximize and Theme (its themes, never
    saved), nor a Quit listed first (Ctrl+P then Enter quit). Screenshot writes the picture in the working
    directory and says where (Textual's entry said only "Failed to save screenshot")."""

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await pilot.press("ctrl+p")
        commands = await wait_for(pilot, lambda: app.screen.query(CommandList).first(None), what="palette")
        await wait_for(pilot, lambda: commands.option_count > 10, what="commands listed")
        await pilot.pause()
        listed = [str(commands.get_option_at_index(i).prompt) for i in range(commands.option_count)]
        names = {line.split()[0] for line in listed if line.strip()}
        assert {"Screenshot", "/help", "/theme", "/model", "/quit"} <= names
        assert not names & {"Keys", "Maximize", "Minimize", "Theme", "Quit"}
        await pilot.press(*"Screenshot", "enter")
        saved = await wait_for(pilot, lambda: list(tmp_path.glob("*.svg")), what="the screenshot file")
        assert saved[0].read_text().startswith("<svg")
        assert "CommandPalette" not in type(app.screen).__name__

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path, size=(100, 40))


async def test_a_commands_name_ranks_above_commands_whose_help_mentions_it(
    tmp_path: Path, hermes_home: Path
) -> None:
    """`yolo` in the palette: `/yolo` first, though `/mode`'s help names the yolo mode (it came first and
    Enter listed the modes)."""

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await pilot.press("ctrl+p")
        commands = await wait_for(pilot, lambda: app.screen.query(CommandList).first(None), what="palette")
        await pilot.press(*"yolo")

        def first() -> str:
            if not commands.option_count:
                return ""
            return str(commands.get_option_at_index(0).prompt).split()[0]

        assert await wait_for(pilot, lambda: first() == "/yolo", what="/yolo listed first")
        await pilot.press(*"ab")  # `yoloab`: no name matches; a help that matches still ranks, lower

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path, size=(100, 40))

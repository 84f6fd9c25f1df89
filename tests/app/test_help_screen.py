"""F1 and /help open a readable help screen: keys and commands in two columns, grouped, filtered by typing."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from hermes_tui.app import HermesApp
from hermes_tui.commands import BUILTIN_COMMANDS, new_registry
from hermes_tui.commands.plugins import PluginCommand
from hermes_tui.screens.help import HelpScreen, matching_rows
from scripted import ScriptedServer
from tests.app.harness import run_chat, screen_text, submit, wait_for


def test_help_rows_hold_every_command_and_the_skills() -> None:
    registry = new_registry()
    registry.set_skills({"deploy-zebra": "Deploy [bold]the[/] zebra"})
    registry.set_plugins([PluginCommand("forecast", "A forecast")])
    rows = registry.help_rows()
    keys = [key for _, key, _ in rows]
    assert all(f"/{c.name}" in keys for c in BUILTIN_COMMANDS)
    assert {"Esc", "Ctrl+R", "F1"} <= set(keys)
    assert ("Skills", "/deploy-zebra", "Deploy [bold]the[/] zebra") in rows
    assert ("Plugins", "/forecast", "A forecast") in rows


def test_filter_keeps_rows_with_every_word() -> None:
    rows = new_registry().help_rows()
    found = matching_rows(rows, "new session")
    assert ("Commands", "/new", "Start a new session  (ctrl+n)") in found
    assert all("new" in " ".join(r).lower() and "session" in " ".join(r).lower() for r in found)
    assert matching_rows(rows, "zzzz-nothing") == []


async def test_f1_opens_help_and_typing_filters_it(hermes_home: Path, tmp_path: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help screen")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        everything = help_screen.query_one(OptionList).option_count
        await pilot.press(*"rollback")
        await wait_for(pilot, lambda: [k for _, k, _ in help_screen.shown_rows] == ["/rollback"])
        assert help_screen.query_one(OptionList).option_count < everything
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen), what="help closed")

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path)


async def test_slash_help_opens_the_same_screen(hermes_home: Path, tmp_path: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/help")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help screen")

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path)


class HelpApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(HelpScreen(new_registry().help_rows()))


def _line_with(text: str, needle: str) -> tuple[int, str]:
    lines = text.splitlines()
    return next((n, line) for n, line in enumerate(lines) if needle in line)


async def test_help_columns_fit_the_keys_and_wrapped_text_hangs_under_its_column() -> None:
    """80x24: every key has room before its text; a wrapped text goes on under the text column (never back
    at the card's edge); PageDown/PageUp scroll the list while the filter has the focus; `y` and the
    mouse copy are listed."""
    app = HelpApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        text = screen_text(app)  # type: ignore[arg-type]
        n, first = _line_with(text, "Ctrl+R  ")
        column = first.index("with text typed")
        continued = text.splitlines()[n + 1]
        assert continued[:column].strip(" │") == "" and continued[column] != " "
        listing = help_screen.query_one(OptionList)
        await pilot.press("pagedown")
        await pilot.pause()
        assert listing.scroll_y > 5 and app.focused is help_screen.query_one(Input)
        for _ in range(6):  # further pages until the transcript's keys show (rows above it come and go)
            text = screen_text(app)  # type: ignore[arg-type]
            if "Ctrl+Home / Ctrl+End" in text:
                break
            await pilot.press("pagedown")
            await pilot.pause()
        _, jump = _line_with(text, "Ctrl+Home / Ctrl+End")
        assert "Ctrl+Home / Ctrl+End  jump" in jump
        for _ in range(6):
            await pilot.press("pageup")
        await pilot.pause()
        assert listing.scroll_y == 0
    keys = [key for _, key, _ in new_registry().help_rows()]
    assert "y" in keys and any("Ctrl+C" in key and "Drag" in key for key in keys)

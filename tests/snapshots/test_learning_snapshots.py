"""Snapshots of `/skills` and `/tools` at 120x40 and 80x24, on a Hermes-made HERMES_HOME.

Deterministic: paths are shown relative to HERMES_HOME, the skills come from the fixture, and the app uses
the built-in `default` theme. Regenerate after an intended change with
`pytest tests/snapshots/test_learning_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import OptionList, Static

from agent.config.settings import Settings
from agent.session.catalogue import default_registry
from agent.skills.library import SkillLibrary
from agent.toolkit.toolsets import SessionToolsets
from hermes_tui.screens.skills import SkillsScreen
from hermes_tui.screens.tools import ToolsScreen
from tests.hermes_home_fixture import write_hermes_home
from themes.loader import builtin_themes

SIZES = [pytest.param((120, 40), id="120x40"), pytest.param((80, 24), id="80x24")]


class ModalSnapshotApp(App[None]):
    def __init__(self, modal: Screen[Any]) -> None:
        super().__init__()
        self.modal = modal
        theme = builtin_themes()["default"].to_textual_theme()
        self.register_theme(theme)
        self.theme = theme.name

    def compose(self) -> ComposeResult:
        yield Static("the chat")

    def on_mount(self) -> None:
        self.push_screen(self.modal)


def _highlight(option_id: str) -> Any:
    async def run(pilot: Pilot) -> None:
        await pilot.pause()
        options = pilot.app.screen.query_one(OptionList)
        options.highlighted = options.get_option_index(option_id)
        await pilot.pause(0.1)
        await pilot.pause()

    return run


@pytest.mark.parametrize("size", SIZES)
def test_skills_screen_snapshot(snap_compare: Any, hermes_home: Path, size: tuple[int, int]) -> None:
    write_hermes_home(hermes_home)
    (hermes_home / "skills" / "broken").mkdir()
    (hermes_home / "skills" / "broken" / "SKILL.md").write_text("# no front matter here\n")
    library = SkillLibrary(hermes_home, ["note-taking"])
    app = ModalSnapshotApp(SkillsScreen(library))
    assert snap_compare(app, terminal_size=size, run_before=_highlight("skill:zebra-deploy"))


@pytest.mark.parametrize("size", SIZES)
def test_tools_screen_snapshot(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    settings = Settings(
        model="m",
        hermes_home=tmp_path,
        cwd=tmp_path,
        disabled_toolsets=["session_search"],
        user_profile_enabled=False,
        # the picture must not depend on whether this machine has a Chromium: none here, whatever it has
        browser_executable_path="/nonexistent/chromium",
    )
    toolsets = SessionToolsets(default_registry(), settings)
    toolsets.set_enabled("terminal", False)
    app = ModalSnapshotApp(ToolsScreen(toolsets))
    assert snap_compare(app, terminal_size=size, run_before=_highlight("terminal"))

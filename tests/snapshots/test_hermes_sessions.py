"""The session browser with a Hermes user's history beside ours (the state.db Hermes 0.19 made): Hermes'
sessions are listed with their badge, found by search, previewed, refused for rename and delete, resumed;
a snapshot of the list with one of ours that cost money. The fixture's bytes never change."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static

import agent.store.records
from agent.core.messages import Message, Usage
from agent.store.hermes import side_files
from agent.store.library import SessionLibrary, open_library
from hermes_tui.screens.modals import PromptModal
from hermes_tui.screens.sessions import SessionsResult, SessionsScreen
from tests.hermes_home_fixture import (
    FIXTURE_0_19,
    QUOKKA_SESSION,
    copy_hermes_home_0_19,
    tree_digest,
    utc_clock,
)
from themes.loader import builtin_themes

pytestmark = pytest.mark.anyio
ORIGINAL = tree_digest(FIXTURE_0_19)
NOW = 1796112552.76 + 2 * 3600  # two hours after Hermes made the fixture
UNSET = object()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def utc_time(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    utc_clock(monkeypatch)
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SessionLibrary]:
    counter = itertools.count(1)
    monkeypatch.setattr(
        agent.store.records, "new_session_id", lambda now=None: f"20261201_100000_{next(counter):06x}"
    )
    home = copy_hermes_home_0_19(tmp_path / "hermes")
    lib = open_library(home / "tui" / "state.db", home)
    ours = lib.create_session(
        model="gpt-4o",
        provider="openai",
        cwd="/home/user/src/zoo",
        system_prompt="s",
        title="Count the animals in the zoo inventory",
    )
    lib.append_message(ours, Message("user", "how many quokkas are in inventory.csv?"))
    lib.append_message(ours, Message("assistant", "There are 12 quokkas."))
    lib.record_call(
        ours,
        usage=Usage(1200, 40),
        model="gpt-4o",
        provider="openai",
        cost_usd=0.0123,
        cost_source="price-table",
    )
    with lib._write() as conn:
        conn.execute(
            "UPDATE sessions SET updated_at = ?, created_at = ?, status = 'completed' WHERE id = ?",
            (NOW - 600, NOW - 900, ours),
        )
    yield lib
    lib.close()
    assert {k: v for k, v in tree_digest(home).items() if not k.startswith("tui/")} == ORIGINAL
    assert side_files(home / "state.db") == []
    assert tree_digest(FIXTURE_0_19) == ORIGINAL


class BrowserApp(App[None]):
    def __init__(self, library: SessionLibrary, query: str = "") -> None:
        super().__init__()
        self.library = library
        self.query_text = query
        self.result: Any = UNSET
        theme = builtin_themes()["default"].to_textual_theme()
        self.register_theme(theme)
        self.theme = theme.name

    def compose(self) -> ComposeResult:
        yield Static("the chat")

    def on_mount(self) -> None:
        self.browser = SessionsScreen(self.library, now=NOW, home="/home/user", query=self.query_text)
        self.push_screen(self.browser, self._done)

    def _done(self, result: Any) -> None:
        self.result = result


async def wait_until(pilot: Pilot, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        await pilot.pause(0.02)


async def settled(pilot: Pilot) -> SessionsScreen:
    app = pilot.app
    assert isinstance(app, BrowserApp)
    screen = app.browser
    await wait_until(
        pilot, lambda: app.screen is screen and screen.shown_query == app.query_text and not screen.is_filling
    )
    await wait_until(
        pilot, lambda: screen.preview_row is not None and screen.preview_row is screen.highlighted_row
    )
    screen.search_input.cursor_blink = False
    await pilot.pause()
    return screen


async def test_hermes_sessions_listed_with_their_badge_and_ours_with_its_cost(
    library: SessionLibrary,
) -> None:
    app = BrowserApp(library)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await settled(pilot)
        rows = [screen.option_list.get_option_at_index(i).prompt.plain for i in range(4)]
        assert rows[0].startswith("● Count the animals in the zoo inventory")
        assert "10 min ago · 2 msgs · $0.0123 · gpt-4o" in rows[0]
        assert rows[1].startswith("● hermes remember my preferences and save the deploy procedure")
        assert "1 h ago · 8 msgs · ? · scripted" in rows[1]  # Hermes could not price it: "?", not $0
        assert rows[3].startswith("● hermes what files are here?")
        assert screen.search_input.border_subtitle == "4 sessions"


async def test_search_finds_both_and_the_preview_says_where_it_is_from(library: SessionLibrary) -> None:
    app = BrowserApp(library, query="quokka")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await settled(pilot)
        found = [row.session_id for row in screen.rows]
        assert f"hermes:{QUOKKA_SESSION}" in found and found[0] != f"hermes:{QUOKKA_SESSION}"
        await pilot.press("down")
        while (
            screen.highlighted_row is not None
            and screen.highlighted_row.session_id != f"hermes:{QUOKKA_SESSION}"
        ):
            await pilot.press("down")
        await wait_until(pilot, lambda: screen.preview_row is screen.highlighted_row)
        preview = screen.preview_text.plain
        assert "From Hermes' history, which is never changed here" in preview
        assert "The word is quokka." in preview and "→ terminal" in preview
        await pilot.press("r")  # rename: refused at once, no dialog
        await pilot.pause()
        assert not isinstance(app.screen, PromptModal)
        assert any("never changed here" in n.message for n in app._notifications)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.result is not UNSET)
    assert app.result == SessionsResult("resume", f"hermes:{QUOKKA_SESSION}")


async def test_an_unreadable_hermes_history_is_told_once_and_ours_still_listed(tmp_path: Path) -> None:
    """A newer Hermes that renamed a column we read: our sessions are listed, the reason told once."""
    import sqlite3

    home = copy_hermes_home_0_19(tmp_path / "hermes")
    with sqlite3.connect(home / "state.db") as conn:
        conn.execute("UPDATE schema_version SET version = 99")
        conn.execute("ALTER TABLE messages RENAME COLUMN timestamp TO created")
    lib = open_library(home / "tui" / "state.db", home)
    try:
        lib.create_session(model="m", provider="custom", cwd="/", system_prompt="s", title="ours alone")
        app = BrowserApp(lib)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await settled(pilot)
            assert [row.info.display_title for row in screen.rows] == ["ours alone"]
            told = [n.message for n in app._notifications if n.title == "Hermes' history"]
            assert len(told) == 1 and "schema version 99" in told[0] and "messages.timestamp" in told[0]
            await pilot.press(*"ours")
            await wait_until(pilot, lambda: screen.shown_query == "ours" and not screen.is_filling)
            assert len([n for n in app._notifications if n.title == "Hermes' history"]) == 1
    finally:
        lib.close()


@pytest.mark.parametrize("size", [pytest.param((120, 40), id="120x40"), pytest.param((80, 24), id="80x24")])
def test_sessions_with_hermes_history_snapshot(
    snap_compare: Any, library: SessionLibrary, size: tuple[int, int]
) -> None:
    async def ready(pilot: Pilot) -> None:
        screen = await settled(pilot)
        await pilot.press("down", "down", "down")
        await wait_until(pilot, lambda: screen.preview_row is screen.highlighted_row)
        await pilot.pause(0.1)

    assert snap_compare(BrowserApp(library), terminal_size=size, run_before=ready)

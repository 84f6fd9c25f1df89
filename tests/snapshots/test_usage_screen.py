"""The `/usage` screen: a column per day, per model and top sessions tables, cache hit rate; cost or tokens
with `t`; unknown prices marked; Pilot test and snapshots (the clock is fixed)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from agent.core.messages import Message, Usage
from agent.store.library import SessionLibrary, open_library
from hermes_tui.screens.usage import UsageScreen
from tests.hermes_home_fixture import copy_hermes_home_0_19, utc_clock
from themes.loader import builtin_themes
from widgets.usage_chart import DailyChart

pytestmark = pytest.mark.anyio
HERMES_DAY = datetime.fromtimestamp(1796112552.76, tz=UTC)  # the tests run with local time = UTC
NOW = (HERMES_DAY + timedelta(days=5)).replace(hour=15, minute=0).timestamp()
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
def library(tmp_path: Path) -> Iterator[SessionLibrary]:
    home = copy_hermes_home_0_19(tmp_path / "hermes")
    lib = open_library(home / "tui" / "state.db", home)
    plan = [
        (
            "Refactor the parser",
            "claude-sonnet-4-5",
            [(1, 30_000, 900, 22_000, 0.041), (1, 34_000, 700, 30_000, 0.028), (3, 12_000, 400, 0, 0.052)],
        ),
        ("Release notes", "gpt-4o", [(9, 8_000, 1_200, 2_000, 0.031), (16, 4_000, 300, 0, 0.012)]),
        ("Local experiments", "llama3.1", [(2, 6_000, 800, 0, None), (20, 3_000, 200, 0, None)]),
    ]
    for title, model, calls in plan:
        sid = lib.create_session(
            model=model, provider="openai", cwd="/home/user/src", system_prompt="s", title=title
        )
        lib.append_message(sid, Message("user", title.lower()))
        for days_ago, prompt, completion, cached, cost in calls:
            lib.record_call(
                sid,
                usage=Usage(prompt, completion, cache_read_tokens=cached),
                model=model,
                provider="openai",
                cost_usd=cost,
                cost_source="price-table" if cost else "unknown",
                created_at=NOW - days_ago * 86400,
            )
    yield lib
    lib.close()


class UsageApp(App[None]):
    def __init__(self, library: SessionLibrary) -> None:
        super().__init__()
        self.library = library
        self.result: Any = UNSET
        theme = builtin_themes()["default"].to_textual_theme()
        self.register_theme(theme)
        self.theme = theme.name

    def compose(self) -> ComposeResult:
        yield Static("the chat")

    def on_mount(self) -> None:
        self.usage = UsageScreen(self.library, now=NOW)
        self.push_screen(self.usage, self._done)

    def _done(self, result: Any) -> None:
        self.result = result


async def wait_until(pilot: Pilot, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        await pilot.pause(0.02)


async def ready(pilot: Pilot) -> UsageScreen:
    app = pilot.app
    assert isinstance(app, UsageApp)
    await wait_until(pilot, lambda: app.screen is app.usage and app.usage.report is not None)
    await pilot.pause()
    return app.usage


async def test_usage_screen_shows_days_models_sessions_and_cache(library: SessionLibrary) -> None:
    app = UsageApp(library)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await ready(pilot)
        summary = str(screen.query_one("#usage-summary", Static).render())
        assert summary.startswith("$0.1640+?") and "cache hit rate" in summary
        chart = screen.query_one(DailyChart)
        assert len(chart.values) == 30 and chart.values[-2] == pytest.approx(0.069)  # yesterday's two calls
        assert chart.unknown[-3] and chart.unknown[-21]  # the local model's days
        models = screen.query_one("#usage-models", DataTable)
        assert [str(models.get_row_at(i)[0]) for i in range(models.row_count)] == [
            "claude-sonnet-4-5",
            "gpt-4o",
            "scripted",
            "llama3.1",
        ]
        sessions = screen.query_one("#usage-sessions", DataTable)
        assert str(sessions.get_row_at(0)[0]) == "Refactor the parser"
        assert any(str(sessions.get_row_at(i)[0]).startswith("hermes ") for i in range(sessions.row_count))
        await pilot.press("t")
        assert screen.metric == "tokens" and chart.values[-2] == 30_900 + 34_700
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.result is None)


@pytest.mark.parametrize("size", [pytest.param((120, 40), id="120x40"), pytest.param((80, 24), id="80x24")])
def test_usage_screen_snapshot(snap_compare: Any, library: SessionLibrary, size: tuple[int, int]) -> None:
    async def settle(pilot: Pilot) -> None:
        await ready(pilot)
        await pilot.pause(0.1)

    assert snap_compare(UsageApp(library), terminal_size=size, run_before=settle)

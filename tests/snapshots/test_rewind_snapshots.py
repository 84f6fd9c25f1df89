"""The look of a rewind, at 120x40 and 80x24: the message list, the choice card, and the transcript after a
rewind of the conversation (the rewound turns dimmed, the line saying what happened, the message back in
the prompt). Fixed instants in UTC, so no picture depends on the clock or the time zone."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from agent.config.settings import Settings
from agent.core.events import (
    ApiCallStarted,
    AssistantMessageDone,
    FirstDelta,
    TextDelta,
    TurnFinished,
    TurnStarted,
)
from agent.core.messages import Usage
from agent.session.rewind import RewindPoint
from hermes_tui.app import HermesApp
from hermes_tui.chat.screen import ChatScreen
from hermes_tui.screens.rewind import RewindChoiceScreen, RewindScreen
from tests.hermes_home_fixture import utc_clock
from tests.snapshots.still import still
from widgets.transcript.entries.thinking import ThinkingLine

SIZES = [(120, 40), (80, 24)]
NOON = 1_764_849_600.0  # 2025-12-04 12:00 UTC

POINTS = [
    RewindPoint(
        6, 7, NOON + 600, "Now rename the column in the migration and run the tests again", ("cp2", "cp3")
    ),
    RewindPoint(3, 4, NOON + 240, "Why does the users migration fail? Read db/0042_users.py first", ("cp1",)),
    RewindPoint(0, 1, NOON, "hello"),
]


@pytest.fixture(autouse=True)
def _deterministic(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(ThinkingLine, "ANIMATE", False)
    monkeypatch.setattr(ChatScreen, "STATUS_CLOCK", lambda: 100.0)
    utc_clock(monkeypatch)
    yield
    monkeypatch.undo()
    time.tzset()


def _app(tmp_path: Path) -> HermesApp:
    settings = Settings(
        model="hermes-4-405b",
        provider="custom",
        base_url="http://127.0.0.1:9/v1",
        api_key=SecretStr("unused"),
        auto_title=False,
        hermes_home=tmp_path / "home",
        cwd=Path("/home/user/project"),
    )
    return HermesApp(settings)


def _chat(pilot: Any) -> ChatScreen:
    return next(s for s in pilot.app.screen_stack if isinstance(s, ChatScreen))


def _turn(reply: str) -> list[Any]:
    usage = Usage(prompt_tokens=1_200, completion_tokens=40)
    return [
        TurnStarted("s", "q"),
        ApiCallStarted(1, "hermes-4-405b", 90),
        FirstDelta(),
        TextDelta(reply),
        AssistantMessageDone(reply, None, (), "stop", usage),
        TurnFinished("completed", reply, usage),
    ]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_message_list(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await pilot.app.push_screen(RewindScreen(POINTS))
        await still(pilot, _chat(pilot))

    assert snap_compare(_app(tmp_path), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_choice_card(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        await pilot.app.push_screen(RewindChoiceScreen(POINTS[1]))
        await still(pilot, _chat(pilot))

    assert snap_compare(_app(tmp_path), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_transcript_after_a_rewind(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        screen = _chat(pilot)
        for text, reply in (
            ("Why does the users migration fail?", "The migration drops `email` before copying it."),
            ("Fix it by dropping the table", "Dropped the users table and recreated it empty."),
        ):
            screen.transcript.add_user(text)
            for event in _turn(reply):
                screen.bridge.on_event(event)
            screen.pipeline.drain()
        screen.transcript.mark_rewound(1)
        screen.transcript.add_notice(
            "info",
            "Rewound the conversation: 2 messages out of the model's context (kept in the session, dimmed, "
            "and found by search).\nFiles: restored 1 file.",
            multiline=True,
        )
        screen.prompt_input.set_text("Fix it by dropping the table")
        await still(pilot, _chat(pilot))

    assert snap_compare(_app(tmp_path), terminal_size=size, run_before=run_before)

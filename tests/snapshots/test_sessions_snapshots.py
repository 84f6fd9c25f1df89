"""Snapshots of the session browser at 120x40 and 80x24: the full list, and an active search.

Deterministic by construction: session ids come from a counter (not the clock and random hex), every
timestamp is set relative to a fixed `NOW` that the screen gets as its clock, `~` is a fixed home, the
search cursor does not blink, and the app uses the built-in `default` theme.
Regenerate after an intended change with `pytest tests/snapshots/test_sessions_snapshots.py
--snapshot-update`.
"""

from __future__ import annotations

import itertools
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Static

import agent.store.records
from agent.core.messages import Message, ToolCall
from agent.store import SessionStore
from hermes_tui.screens.sessions import SessionsScreen
from themes.loader import builtin_themes

SIZES = [pytest.param((120, 40), id="120x40"), pytest.param((80, 24), id="80x24")]
NOW = datetime(2026, 3, 10, 12, 0).timestamp()


def build_store(path: Path, monkeypatch: pytest.MonkeyPatch) -> SessionStore:
    counter = itertools.count(1)
    monkeypatch.setattr(
        agent.store.records, "new_session_id", lambda now=None: f"20260310_120000_{next(counter):06x}"
    )
    store = SessionStore(path)

    def add(
        title: str | None, messages: list[Message], ago: float, status: str, cwd: str, model: str
    ) -> None:
        sid = store.create_session(model=model, provider="p", cwd=cwd, system_prompt="", title=title)
        for message in messages:
            message.created_at = NOW - ago - 30
            store.append_message(sid, message)
        store.set_status(sid, status)
        with store._write() as conn:
            conn.execute(
                "UPDATE sessions SET updated_at = ?, created_at = ? WHERE id = ?",
                (NOW - ago, NOW - ago - 900, sid),
            )

    add(
        "Rust borrow checker question",
        [
            Message("user", "why does this not compile: let r = &mut v; v.push(1);"),
            Message("assistant", "Because `r` is a mutable borrow that is still alive when you push."),
        ],
        40 * 86400,
        "completed",
        "/home/user/src/rusty",
        "anthropic/claude-sonnet-4.5",
    )
    add("Empty draft", [], 4 * 86400, "empty", "/home/user", "gpt-5")
    add(
        "Docker compose for the postgres dev database",
        [
            Message("user", "write a docker compose file for postgres 16 with a migration container"),
            Message("assistant", "Here it is:\n\n```yaml\nservices:\n  db:\n    image: postgres:16\n```"),
        ],
        30 * 3600,
        "error",
        "/srv/work/infra",
        "qwen3-coder",
    )
    add(
        None,
        [
            Message("user", "Summarize the meeting notes in notes/2026-03-09.md"),
            Message(
                "assistant", "", tool_calls=[ToolCall("c2", "read_file", '{"path": "notes/2026-03-09.md"}')]
            ),
            Message(
                "tool",
                "# Standup\n- ship the session browser\n- review search ranking",
                tool_call_id="c2",
                tool_name="read_file",
                meta={"status": "ok", "duration": 0.01},
            ),
            Message("assistant", "Two items: ship the session browser, and review search ranking."),
        ],
        3 * 3600,
        "interrupted",
        "/home/user/notes",
        "gpt-5",
    )
    add(
        "Fixing the migration bug",
        [
            Message("user", "The alembic migration fails on postgres, can you look?"),
            Message(
                "assistant",
                "Let me run the tests first.",
                tool_calls=[ToolCall("c1", "terminal", '{"command": "pytest -q tests/db"}')],
            ),
            Message(
                "tool",
                "FAILED tests/db/test_migrate.py::test_upgrade - DuplicateColumn: column "
                '"flux_capacitor" already exists\n1 failed, 41 passed in 3.02s',
                tool_call_id="c1",
                tool_name="terminal",
                meta={"status": "error", "duration": 3.2},
            ),
            Message("assistant", "The column is added twice: the second migration must check for it first."),
        ],
        180,
        "completed",
        "/home/user/src/hermes",
        "anthropic/claude-sonnet-4.5",
    )
    return store


class BrowserSnapshotApp(App[None]):
    def __init__(self, store: SessionStore, query: str = "") -> None:
        super().__init__()
        self.store = store
        self.query_text = query
        theme = builtin_themes()["default"].to_textual_theme()
        self.register_theme(theme)
        self.theme = theme.name

    def compose(self) -> ComposeResult:
        yield Static("the chat")

    def on_mount(self) -> None:
        self.browser = SessionsScreen(self.store, now=NOW, home="/home/user", query=self.query_text)
        self.push_screen(self.browser)


async def settle(pilot: Pilot, downs: int = 0) -> None:
    """Wait for the list, the search results and the preview (after `downs` presses of Down); stop the
    cursor blinking."""
    app = pilot.app
    assert isinstance(app, BrowserSnapshotApp)
    browser = app.browser

    async def wait(predicate: Any) -> None:
        deadline = time.monotonic() + 10
        while not predicate():
            assert time.monotonic() < deadline, "the browser did not settle"
            await pilot.pause(0.02)

    await wait(
        lambda: app.screen is browser and browser.shown_query == app.query_text and not browser.is_filling
    )
    for _ in range(downs):
        await pilot.press("down")
    await wait(lambda: browser.preview_row is not None and browser.preview_row is browser.highlighted_row)
    browser.search_input.cursor_blink = False
    await pilot.pause(0.1)
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_sessions_list_snapshot(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    store = build_store(tmp_path / "state.db", monkeypatch)
    assert snap_compare(BrowserSnapshotApp(store), terminal_size=size, run_before=settle)


@pytest.mark.parametrize("size", SIZES)
def test_sessions_search_snapshot(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    store = build_store(tmp_path / "state.db", monkeypatch)
    # "migration" is in a title, in user messages and in a tool output: every kind of result shows.
    app = BrowserSnapshotApp(store, query="migration")
    assert snap_compare(app, terminal_size=size, run_before=lambda pilot: settle(pilot, downs=2))

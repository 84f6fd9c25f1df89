"""Pilot tests for the session browser: listing, full-text search, and resume / rename / delete / branch /
export, driven with keys and the mouse the way a user would.

Every test builds a real `SessionStore` in `tmp_path` through its public API and opens `SessionsScreen` in a
tiny app that records what the screen dismissed with.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from agent.core.humanize import format_age
from agent.core.messages import Message, ToolCall
from agent.store import SessionStore
from hermes_tui.screens.modals import ConfirmModal, PromptModal
from hermes_tui.screens.sessions import (
    ExportPathModal,
    SessionsResult,
    SessionsScreen,
    snippet_text,
)

NOW = datetime(2026, 3, 10, 12, 0).timestamp()
UNSET = object()


# ------------------------------------------------------------------------------------------ fixtures


def add_session(
    store: SessionStore,
    title: str | None,
    messages: list[Message],
    *,
    updated: float,
    status: str = "completed",
    cwd: str = "/home/user/src/project",
    model: str = "anthropic/claude-sonnet-4.5",
) -> str:
    session_id = store.create_session(
        model=model, provider="openrouter", cwd=cwd, system_prompt="sys", title=title
    )
    for message in messages:
        message.created_at = updated - 60
        store.append_message(session_id, message)
    store.set_status(session_id, status)
    with store._write() as conn:  # pin the activity time: ordering must not depend on the wall clock
        conn.execute(
            "UPDATE sessions SET updated_at = ?, created_at = ? WHERE id = ?",
            (updated, updated - 600, session_id),
        )
    return session_id


@pytest.fixture
def store(tmp_path: Path) -> SessionStore:
    store = SessionStore(tmp_path / "state.db")
    yield store
    store.close()


@pytest.fixture
def sessions(store: SessionStore) -> dict[str, str]:
    """Three sessions: `old` (docker), `mid` (a tool call whose output alone says 'zanzibar'), `new`."""
    old = add_session(
        store,
        "Docker compose setup",
        [
            Message("user", "write a docker compose file for postgres"),
            Message("assistant", "Here it is: services, db, image postgres:16."),
        ],
        updated=NOW - 30 * 3600,
    )
    mid = add_session(
        store,
        "Fixing the migration bug",
        [
            Message("user", "the alembic migration fails on startup"),
            Message(
                "assistant",
                "Let me run the tests.",
                tool_calls=[ToolCall("call_1", "terminal", '{"command": "pytest -q tests/db"}')],
            ),
            Message(
                "tool",
                "FAILED tests/db/test_upgrade.py - column zanzibar_flux already exists\n1 failed, 41 passed",
                tool_call_id="call_1",
                tool_name="terminal",
                meta={"status": "error", "duration": 3.2},
            ),
            Message("assistant", "The column is added twice; I guarded the ALTER TABLE."),
        ],
        updated=NOW - 3600,
    )
    new = add_session(
        store,
        None,
        [
            Message("user", "summarize my notes about the ocelot project"),
            Message("assistant", "The ocelot project ships in April."),
        ],
        updated=NOW - 120,
        status="interrupted",
    )
    return {"old": old, "mid": mid, "new": new}


class BrowserApp(App[None]):
    """Opens the browser over a placeholder chat and records what it dismissed with."""

    def __init__(self, screen: SessionsScreen) -> None:
        super().__init__()
        self.browser = screen
        self.result: Any = UNSET

    def compose(self) -> ComposeResult:
        yield Static("the chat")

    def on_mount(self) -> None:
        self.push_screen(self.browser, self._done)

    def _done(self, result: Any) -> None:
        self.result = result


def browser(store: SessionStore, **kwargs: Any) -> BrowserApp:
    kwargs.setdefault("now", NOW)
    kwargs.setdefault("home", "/home/user")
    return BrowserApp(SessionsScreen(store, **kwargs))


async def wait_until(pilot: Pilot, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        await pilot.pause(0.02)


async def loaded(pilot: Pilot) -> SessionsScreen:
    app = pilot.app
    assert isinstance(app, BrowserApp)
    screen = app.browser
    await wait_until(pilot, lambda: screen.shown_query is not None and not screen.is_filling)
    return screen


async def search(pilot: Pilot, screen: SessionsScreen, text: str, timeout: float = 5.0) -> None:
    """Type `text` into the search box (replacing what is there) and wait for its results."""
    screen.search_input.value = ""
    screen.search_input.focus()
    await pilot.press(*text) if text else None
    await wait_until(pilot, lambda: screen.shown_query == text and not screen.is_filling, timeout)
    await pilot.pause()


def keys(screen: SessionsScreen) -> list[str]:
    return [row.key for row in screen.rows]


def spans_text(text: Text, style: Any) -> list[str]:
    return [text.plain[span.start : span.end] for span in text.spans if span.style == style]


# ------------------------------------------------------------------------------------------ listing


async def test_rows_are_ordered_by_activity_and_show_title_time_model_count_cwd_status(
    store: SessionStore, sessions: dict[str, str]
) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        assert keys(screen) == [sessions["new"], sessions["mid"], sessions["old"]]
        prompts = [screen.option_list.get_option_at_index(i).prompt for i in range(3)]
        assert all(isinstance(prompt, Text) for prompt in prompts)
        newest, middle, oldest = (prompt.plain for prompt in prompts)
        # Untitled: the first user message stands in for the title.
        assert newest.startswith("◐ summarize my notes about the ocelot project")
        assert "2 min ago · 2 msgs · anthropic/claude-sonnet-4.5 · ~/src/project · interrupted" in newest
        assert middle.startswith("● Fixing the migration bug") and "1 h ago · 4 msgs" in middle
        assert "yesterday · 2 msgs" in oldest
        assert screen.search_input.border_subtitle == "3 sessions"
        # The preview shows the highlighted (newest) session.
        await wait_until(pilot, lambda: "ocelot project ships" in screen.preview_text.plain)

    # New activity moves a session to the top.
    store.append_message(sessions["old"], Message("user", "and add redis"))
    app = browser(store, now=time.time() + 10)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        assert keys(screen)[0] == sessions["old"]


async def test_a_session_made_in_an_editor_says_so(store: SessionStore) -> None:
    """`hermes-tui acp` stores its sessions with source `acp`: listed like any other, marked "editor"."""
    session_id = store.create_session(model="m", provider="custom", cwd="/w", system_prompt="s", source="acp")
    store.append_message(session_id, Message("user", "from zed"))
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        assert keys(screen) == [session_id]
        assert screen.option_list.get_option_at_index(0).prompt.plain.endswith(" · editor")


async def test_empty_store_shows_a_friendly_line(store: SessionStore) -> None:
    app = browser(store)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await loaded(pilot)
        assert screen.rows == []
        message = screen.query_one("#sessions-empty", Static)
        assert message.display
        assert "No sessions yet. Start typing in the chat" in str(message.render())
        await pilot.press("enter")  # nothing to resume: nothing happens
        await pilot.pause()
        assert app.result is UNSET and app.screen is screen
        for action in ("resume", "rename", "delete", "branch", "export"):
            assert screen.check_action(action, ()) is None  # shown disabled, and a no-op
            await screen.run_action(action)
        assert app.result is UNSET and app.screen is screen
        await pilot.press("escape")
        assert app.result is None


# ------------------------------------------------------------------------------------------ search


async def test_a_word_only_in_a_tool_output_finds_its_session_with_a_highlighted_snippet(
    store: SessionStore, sessions: dict[str, str]
) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        await search(pilot, screen, "zanzibar")
        assert len(screen.rows) == 1
        row = screen.rows[0]
        assert row.session_id == sessions["mid"]
        assert row.hit is not None and row.hit.role == "tool" and row.hit.seq == 2
        prompt = screen.option_list.get_option_at_index(0).prompt
        assert isinstance(prompt, Text)
        assert "Fixing the migration bug" in prompt.plain
        assert "tool terminal › " in prompt.plain
        match_style = screen._styles.match
        assert spans_text(prompt, match_style) == ["zanzibar"]  # the tokenizer splits at "_"
        assert "\x02" not in prompt.plain and "\x03" not in prompt.plain
        assert screen.search_input.border_subtitle == "1 session"
        # The preview shows the output around the match, highlighted, with the call on one line.
        await wait_until(pilot, lambda: "zanzibar" in screen.preview_text.plain)
        preview = screen.preview_text
        assert "→ terminal: pytest -q tests/db  failed · 3.2s" in preview.plain
        assert "zanzibar" in spans_text(preview, match_style)


async def test_a_scroll_to_the_match_due_after_the_browser_closed_does_nothing(
    store: SessionStore, sessions: dict[str, str]
) -> None:
    """The preview scrolls to the match a frame after it is drawn; Enter on a match closes the browser at
    once, and a series run's app died of the scroll that came due after (a traceback: no preview left)."""
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        await search(pilot, screen, "zanzibar")
        await wait_until(pilot, lambda: "zanzibar" in screen.preview_text.plain)
        preview = screen.preview_text
        app.pop_screen()
        await pilot.pause()
        assert screen not in app.screen_stack
        screen._scroll_preview_to(preview, preview.plain.index("zanzibar"))  # as the queued call would
        await pilot.pause()
        assert app.is_running and app.return_code is None


async def test_a_restyle_due_after_the_browser_closed_does_nothing(
    store: SessionStore, sessions: dict[str, str]
) -> None:
    """A theme change restyles the rows a frame later; a browser closed within that frame has no search
    field left to read (the same traceback as the scroll's above)."""
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        await search(pilot, screen, "zanzibar")
        app.pop_screen()
        await pilot.pause()
        assert screen not in app.screen_stack
        screen._restyle()  # as the queued call would
        await pilot.pause()
        assert app.is_running and app.return_code is None


async def test_a_session_with_many_hits_is_one_row_that_counts_them(store: SessionStore) -> None:
    """Ctrl+R lists a session once, however many of its messages match, and says how many do; a count
    that grows on a later page is drawn again."""
    said = [Message("user" if n % 2 == 0 else "assistant", f"note {n} about the quokka") for n in range(7)]
    many = add_session(store, "A long chat", said, updated=NOW - 60)
    one = add_session(store, "Another", [Message("user", "a quokka once")], updated=NOW - 120)
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        screen.HIT_PAGE = 3  # the count of `many` grows over three pages
        await search(pilot, screen, "quokka")
        assert sorted((row.session_id, row.matches) for row in screen.rows) == sorted([(many, 7), (one, 1)])
        assert screen.search_input.border_subtitle == "2 sessions"
        index = next(i for i, row in enumerate(screen.rows) if row.session_id == many)
        prompt = screen.option_list.get_option_at_index(index).prompt
        assert isinstance(prompt, Text) and "7 messages match" in prompt.plain


async def test_titles_and_ids_match_too(store: SessionStore, sessions: dict[str, str]) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        await search(pilot, screen, "compose setup")
        title_rows = [row for row in screen.rows if row.hit is None]
        assert [row.session_id for row in title_rows] == [sessions["old"]]
        prompt = screen.option_list.get_option_at_index(0).prompt
        assert sorted(spans_text(prompt, screen._styles.match)) == ["compose", "setup"]

        await search(pilot, screen, sessions["new"][-6:])
        assert [row.session_id for row in screen.rows] == [sessions["new"]]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('"alembic migration"', {"mid"}),  # a phrase
        ('"migration alembic"', set()),  # order matters in a phrase
        ("ocelot OR docker", {"new", "old"}),
        ("docker NOT compose", set()),
        ("postgres NOT compose", {"old"}),  # the assistant's reply mentions postgres, not compose
        ("ocel*", {"new"}),  # prefix
        ("migr", {"mid"}),  # search as you type: the last word is a prefix
    ],
)
async def test_query_syntax(
    store: SessionStore, sessions: dict[str, str], query: str, expected: set[str]
) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        await search(pilot, screen, query)
        found = {name for name, sid in sessions.items() if any(row.session_id == sid for row in screen.rows)}
        assert found == expected
        assert not screen.search_failed


@pytest.mark.parametrize("nasty", ['"', "(", "NEAR(", "*", "' OR 1=1 --", "a:b ^c -d", "\x1b[31mred", "🙂"])
async def test_nasty_input_never_errors(store: SessionStore, sessions: dict[str, str], nasty: str) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        screen.search_input.value = nasty
        await wait_until(pilot, lambda: screen.shown_query == nasty)
        await pilot.pause()
        assert app.screen is screen and app.is_running
        if not screen.rows:
            message = str(screen.query_one("#sessions-empty", Static).render())
            assert message.startswith("No results")
        assert app.result is UNSET


async def test_search_failure_in_the_store_reads_as_no_results(
    store: SessionStore, sessions: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> list[Any]:
        raise RuntimeError("database is locked")

    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        monkeypatch.setattr(store, "iter_search", broken)
        await search(pilot, screen, "zzzz")
        assert screen.rows == []
        assert screen.search_failed
        assert "No results" in str(screen.query_one("#sessions-empty", Static).render())


# ------------------------------------------------------------------------------------------ keys


async def test_enter_resumes_from_the_search_box_and_from_the_list(
    store: SessionStore, sessions: dict[str, str]
) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("enter")  # focus is in the search box: resumes the highlighted (newest) session
        assert app.result == SessionsResult("resume", sessions["new"])

    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("down")  # into the list, one row down
        assert screen.option_list.has_focus
        await pilot.press("enter")
        assert app.result == SessionsResult("resume", sessions["mid"])


async def test_enter_right_after_typing_resumes_the_best_match_not_a_stale_row(
    store: SessionStore, sessions: dict[str, str]
) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press(*"zanzibar", "enter")  # faster than the debounce
        await wait_until(pilot, lambda: app.result is not UNSET)
        assert app.result == SessionsResult("resume", sessions["mid"])


async def test_the_session_open_in_the_chat_cannot_be_deleted(
    store: SessionStore, sessions: dict[str, str]
) -> None:
    app = browser(store, current_id=sessions["new"])
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        # It shows as active (running here), not as interrupted.
        assert screen.option_list.get_option_at_index(0).prompt.plain.startswith("▶ ")
        await pilot.press("tab", "d")
        await pilot.pause()
        assert app.screen is screen
        assert store.get_session(sessions["new"]) is not None


async def test_arrow_keys_move_between_the_search_box_and_the_list(
    store: SessionStore, sessions: dict[str, str]
) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        assert screen.search_input.has_focus
        await pilot.press("down", "down")
        assert screen.option_list.has_focus and screen.option_list.highlighted == 2
        await pilot.press("up", "up")
        assert screen.option_list.has_focus and screen.option_list.highlighted == 0
        await pilot.press("up")  # past the first row: back to the search box
        assert screen.search_input.has_focus
        await pilot.press("tab", "slash")
        assert screen.search_input.has_focus
        # The footer tells how to reach the actions from the search box.
        shown = {b.binding.description for b in screen.active_bindings.values() if b.binding.show}
        assert {"Resume", "Results", "Back"} <= shown


async def test_theme_change_restyles_the_rows(store: SessionStore, sessions: dict[str, str]) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        before = screen._styles.glyphs["completed"]
        app.theme = "nord"
        await wait_until(pilot, lambda: screen._styles.glyphs["completed"] != before)
        completed = screen._styles.glyphs["completed"]

        def glyph_style() -> Any:
            return screen.option_list.get_option_at_index(1).prompt.spans[0].style

        await wait_until(pilot, lambda: glyph_style() == completed)
        assert len(screen.rows) == 3 and screen.option_list.highlighted == 0


async def test_mouse_click_selects_and_double_click_resumes(
    store: SessionStore, sessions: dict[str, str]
) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        option_list = screen.option_list
        # Rows are two lines high: y = 2 is the second session's title line.
        await pilot.click(option_list, offset=(4, 2))
        await pilot.pause()
        assert option_list.highlighted == 1
        assert app.result is UNSET
        await pilot.double_click(option_list, offset=(4, 4))
        await pilot.pause()
        assert app.result == SessionsResult("resume", sessions["old"])


async def test_rename_changes_the_title_in_the_store_and_the_row(
    store: SessionStore, sessions: dict[str, str]
) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("down")  # the list, on "Fixing the migration bug"
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptModal))
        field = app.screen.query_one(Input)
        assert field.value == "Fixing the migration bug"
        field.value = ""
        await pilot.press(*"Alembic duplicate column", "enter")
        await wait_until(pilot, lambda: app.screen is screen)
        assert store.get_session(sessions["mid"]).title == "Alembic duplicate column"
        prompt = screen.option_list.get_option_at_index(1).prompt
        assert prompt.plain.startswith("● Alembic duplicate column")
        # Escape in the dialog changes nothing.
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptModal))
        await pilot.press("x", "escape")
        await wait_until(pilot, lambda: app.screen is screen)
        assert store.get_session(sessions["mid"]).title == "Alembic duplicate column"
        # The renamed title is searchable at once.
        await search(pilot, screen, "duplicate")
        assert any(row.session_id == sessions["mid"] and row.hit is None for row in screen.rows)
        assert app.result is UNSET


async def test_delete_asks_first_with_cancel_focused(store: SessionStore, sessions: dict[str, str]) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        await pilot.press("down")  # "Fixing the migration bug"
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        assert isinstance(app.focused, Button) and app.focused.id == "cancel"
        await pilot.press("enter")  # a stray Enter cancels
        await wait_until(pilot, lambda: app.screen is screen)
        assert store.get_session(sessions["mid"]) is not None

        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        assert store.get_session(sessions["mid"]) is not None
        assert keys(screen) == [sessions["new"], sessions["mid"], sessions["old"]]

        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_until(pilot, lambda: app.screen is screen)
        assert store.get_session(sessions["mid"]) is None
        assert keys(screen) == [sessions["new"], sessions["old"]]
        assert screen.highlighted_row is not None and screen.highlighted_row.session_id == sessions["old"]
        assert screen.search_input.border_subtitle == "2 sessions"

        # The Delete button works as well, and a cleared search does not bring the row back.
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.click("#confirm")
        await wait_until(pilot, lambda: app.screen is screen)
        assert store.get_session(sessions["old"]) is None
        await search(pilot, screen, "docker")
        await search(pilot, screen, "")
        assert keys(screen) == [sessions["new"]]
        assert app.result is UNSET


async def test_branch_from_a_search_hit_copies_up_to_that_message_and_opens_it(
    store: SessionStore, sessions: dict[str, str]
) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        await search(pilot, screen, "zanzibar")
        await pilot.press("tab")  # into the list, the hit stays highlighted
        assert screen.option_list.has_focus and screen.highlighted_row.hit is not None
        await pilot.press("b")
        assert isinstance(app.result, SessionsResult) and app.result.action == "resume"
        branch_id = app.result.session_id
        assert branch_id != sessions["mid"]
    branch = store.load(branch_id)
    assert branch.info.parent_session_id == sessions["mid"]
    assert [m.role for m in branch.messages] == ["user", "assistant", "tool"]
    assert "zanzibar_flux" in branch.messages[-1].content
    assert len(store.load(sessions["mid"]).messages) == 4  # the original is untouched


async def test_branch_without_a_hit_copies_the_whole_session(
    store: SessionStore, sessions: dict[str, str]
) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("down", "b")
    assert isinstance(app.result, SessionsResult)
    assert len(store.load(app.result.session_id).messages) == 4


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
async def test_escape_clears_the_search_then_closes(
    store: SessionStore, sessions: dict[str, str], key: str
) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        await search(pilot, screen, "docker")
        assert len(screen.rows) < 3
        await pilot.press(key)
        await wait_until(pilot, lambda: screen.shown_query == "")
        assert screen.search_input.value == ""
        assert len(screen.rows) == 3
        assert app.result is UNSET
        await pilot.press(key)
        assert app.result is None


async def test_export_asks_for_a_path_and_writes_markdown(
    store: SessionStore, sessions: dict[str, str], tmp_path: Path
) -> None:
    out_dir = tmp_path / "exports"
    app = browser(store, export_dir=out_dir)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await loaded(pilot)
        await pilot.press("down", "e")
        await wait_until(pilot, lambda: isinstance(app.screen, ExportPathModal))
        assert app.screen.query_one(Input).value == "./fixing-the-migration-bug.md"
        where = str(app.screen.query_one("#prompt-preview", Static).render())
        assert f"→ {out_dir / 'fixing-the-migration-bug.md'}" in where  # the absolute path it means
        await pilot.press("enter")  # the folder does not exist yet: it is not created silently
        assert "does not exist. Press enter again to create it" in str(
            app.screen.query_one("#prompt-error", Static).render()
        )
        await pilot.press("enter")
        await wait_until(pilot, lambda: (out_dir / "fixing-the-migration-bug.md").exists())
        assert app.screen is screen
        text = (out_dir / "fixing-the-migration-bug.md").read_text()
        assert text.startswith("# Fixing the migration bug")
        assert "<details>" in text and "zanzibar_flux" in text

        # A directory is refused in the dialog; an existing file needs a second Enter.
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, ExportPathModal))
        dialog = app.screen
        dialog.query_one(Input).value = "."
        await pilot.press("enter")
        error = dialog.query_one("#prompt-error", Static)
        assert "is a directory" in str(error.render())
        assert app.screen is dialog
        dialog.query_one(Input).value = "./fixing-the-migration-bug.md"
        await pilot.press("enter")
        assert "exists" in str(error.render()) and app.screen is dialog
        (out_dir / "fixing-the-migration-bug.md").write_text("old")
        await pilot.press("enter")
        await wait_until(pilot, lambda: (out_dir / "fixing-the-migration-bug.md").read_text() != "old")
        # JSON by extension.
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, ExportPathModal))
        await pilot.press(*"sub/dir/session.json")  # typing replaces the suggested name, never appends to it
        assert app.screen.query_one(Input).value == "sub/dir/session.json"
        await pilot.press("enter", "enter")
        await wait_until(pilot, lambda: (out_dir / "sub/dir/session.json").exists())
        assert '"format": "hermes-tui-session"' in (out_dir / "sub/dir/session.json").read_text()
        assert app.result is UNSET


async def test_narrow_terminals_put_the_preview_below(store: SessionStore, sessions: dict[str, str]) -> None:
    app = browser(store)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await loaded(pilot)
        assert screen.has_class("-narrow")
        list_region = screen.query_one("#sessions-list-area").region
        preview_region = screen.query_one("#sessions-preview").region
        assert preview_region.y >= list_region.bottom
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert screen.has_class("-wide")
        assert (
            screen.query_one("#sessions-preview").region.x
            >= screen.query_one("#sessions-list-area").region.right
        )


async def test_five_thousand_sessions_fill_the_list(store: SessionStore) -> None:
    for index in range(5000):
        store.create_session(
            model="m",
            provider="p",
            cwd=f"/home/user/p{index % 40}",
            system_prompt="",
            title=f"Session {index:04d} topic{index}x",
        )
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.browser
        started = time.monotonic()
        await wait_until(pilot, lambda: screen.shown_query is not None, timeout=10)
        first_rows = time.monotonic() - started
        await wait_until(pilot, lambda: len(screen.rows) == 5000 and not screen.is_filling, timeout=10)
        all_rows = time.monotonic() - started
        print(f"5,000 sessions: first rows after {first_rows:.3f} s, all after {all_rows:.3f} s")
        assert screen.option_list.option_count == 5000
        assert screen.rows[0].info.title == "Session 4999 topic4999x"  # the most recent first
        assert screen.search_input.border_subtitle == "5,000 sessions"
        assert all_rows < 10
        # Usable: keys move the cursor, a search narrows the list, clearing it restores all rows.
        await pilot.press("down", "down", "end")
        assert screen.option_list.highlighted == 4999
        await search(pilot, screen, "topic42x", timeout=10)  # (not digits alone: ids hold digits too)
        assert [row.info.title for row in screen.rows] == ["Session 0042 topic42x"]
        await search(pilot, screen, "", timeout=10)
        assert screen.option_list.option_count == 5000


# ------------------------------------------------------------------------------------------ helpers


def test_format_age() -> None:
    assert format_age(NOW - 5, NOW) == "just now"
    assert format_age(NOW - 180, NOW) == "3 min ago"
    assert format_age(NOW - 5 * 3600, NOW) == "5 h ago"
    assert format_age(NOW - 20 * 3600, NOW) == "yesterday"
    assert format_age(NOW - 3 * 86400, NOW) == "3 days ago"
    assert format_age(datetime(2026, 3, 1, 9, 0).timestamp(), NOW) == "Mar 1"
    assert format_age(datetime(2025, 3, 4, 9, 0).timestamp(), NOW) == "Mar 4 2025"


def test_snippet_text_styles_the_marked_words_and_never_reads_markup() -> None:
    text = snippet_text(
        "…a [bold]x[/bold] \x02migration\x03 fails \x1b[31m \x02again\x03", "reverse", max_lead=None
    )
    assert text.plain == "…a [bold]x[/bold] migration fails  again"  # markup kept literally, escapes dropped
    assert [text.plain[s.start : s.end] for s in text.spans] == ["migration", "again"]
    long = snippet_text("word " * 20 + "\x02hit\x03 tail", "reverse", max_lead=10)
    assert long.plain.startswith("…") and "hit" in long.plain and len(long.plain) < 30


# ------------------------------------------------------------------------------------------ paged search


async def test_results_arrive_in_pages_and_a_new_query_cancels_a_slow_one(
    store: SessionStore, sessions: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old query's second page is held back (deterministically, by the search gate) while the user
    types a new query: the first page shows at once, and nothing of the old query reaches the list later."""
    held, release, old_closed = threading.Event(), threading.Event(), threading.Event()

    def gate(text: str, page: int) -> None:
        if text == "postgres" and page == 1:
            held.set()
            assert release.wait(10)

    real_iter_search = store.iter_search

    def iter_search(query: Any, **kwargs: Any) -> Iterator[list[Any]]:
        try:
            yield from real_iter_search(query, **kwargs)
        finally:
            if query.source == "postgres":
                old_closed.set()

    monkeypatch.setattr(store, "iter_search", iter_search)
    monkeypatch.setattr(SessionsScreen, "HIT_PAGE", 1)  # one message hit per page
    app = browser(store, search_gate=gate)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        added: list[str | None] = []  # ids of the options put in the list, in order
        for name in ("set_options", "add_options"):
            original = getattr(screen.option_list, name)

            def record(options: Any, _original: Any = original) -> Any:
                options = list(options)
                added.extend(option.id for option in options)
                return _original(options)

            monkeypatch.setattr(screen.option_list, name, record)

        screen.search_input.value = "postgres"
        await wait_until(pilot, lambda: held.is_set() and screen.shown_query == "postgres")
        # The first page is on screen while the rest of the query is still running.
        assert [row.session_id for row in screen.rows] == [sessions["old"]]
        assert screen.is_filling and screen.search_input.border_subtitle == "1 session…"
        old_keys = {row.key for row in screen.rows}

        typed_at = len(added)
        screen.search_input.value = "ocelot"
        await wait_until(pilot, lambda: screen.shown_query == "ocelot" and not screen.is_filling)
        assert [(row.session_id, row.matches) for row in screen.rows] == [(sessions["new"], 2)]  # grouped
        release.set()
        await wait_until(pilot, old_closed.is_set)
        screen.search_input.value = "ocelot project"  # one more round trip after the old search ended
        await wait_until(pilot, lambda: screen.shown_query == "ocelot project" and not screen.is_filling)
        assert {row.session_id for row in screen.rows} == {sessions["new"]}
        late = [key for key in added[typed_at:] if key is not None and key.split("#")[0] == sessions["old"]]
        assert late == [] and not (old_keys & {row.key for row in screen.rows})
        assert screen.search_input.border_subtitle == "1 session"


async def test_a_negation_means_the_same_for_titles_and_messages(store: SessionStore) -> None:
    both = add_session(store, "alpha beta notes", [Message("user", "alpha beta")], updated=NOW - 60)
    add_session(store, "beta only", [Message("user", "beta only")], updated=NOW - 120)
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        await search(pilot, screen, "alpha OR NOT beta")  # the lone NOT selects nothing: `alpha`
        # One row: the title found it, and it counts the message that matches too.
        assert [(row.session_id, row.hit is None, row.matches) for row in screen.rows] == [(both, True, 1)]
        await search(pilot, screen, "beta -alpha")
        assert {row.session_id for row in screen.rows} != {both} and all(
            row.info.title == "beta only" for row in screen.rows
        )


async def test_a_command_with_a_flag_is_found_in_quotes_and_the_empty_list_says_so(
    store: SessionStore, sessions: dict[str, str]
) -> None:
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        await search(pilot, screen, "pytest -q")  # "pytest, without q"
        assert screen.rows == []
        message = str(screen.query_one("#sessions-empty", Static).render())
        assert 'put a command in quotes, like "rm -rf"' in message
        await search(pilot, screen, '"pytest -q"')
        assert [(row.session_id, row.hit.seq) for row in screen.rows if row.hit] == [(sessions["mid"], 1)]


async def test_the_preview_draws_a_reply_as_markdown_not_raw(store: SessionStore) -> None:
    reply = (
        "## Plan\n\nRun **the suite** with `pytest -q`, then:\n\n- fix the parser\n- zebra [docs](http://x)"
    )
    add_session(
        store, "Markdown reply", [Message("user", "what now?"), Message("assistant", reply)], updated=NOW - 60
    )
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        await wait_until(pilot, lambda: "zebra" in screen.preview_text.plain)
        shown = screen.preview_text.plain
        assert "Plan" in shown and "## Plan" not in shown
        assert "Run the suite with pytest -q, then:" in shown  # no ** or backticks
        assert "• fix the parser" in shown and "- fix the parser" not in shown
        assert "**" not in shown and "`" not in shown
        assert "what now?" in shown  # the user's words stay as typed
        bold = [span for span in screen.preview_text.spans if "the suite" in shown[span.start : span.end]]
        assert any(getattr(span.style, "bold", False) for span in bold)


async def test_the_preview_shows_a_clarify_answer_not_the_question_alone(store: SessionStore) -> None:
    offered = {
        "question": "Which database?",
        "choices_offered": ["sqlite", "postgres"],
        "user_response": "postgres",
    }
    payload = json.dumps(offered)
    add_session(
        store,
        "Picking a database",
        [
            Message("user", "set up the app"),
            Message(
                "assistant",
                "",
                tool_calls=[ToolCall("call_1", "clarify", '{"question": "Which database?"}')],
            ),
            Message("tool", payload, tool_call_id="call_1", tool_name="clarify", meta={"status": "ok"}),
            Message("assistant", "Setting it up."),
        ],
        updated=NOW - 60,
    )
    app = browser(store)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await loaded(pilot)
        await wait_until(pilot, lambda: "Which database?" in screen.preview_text.plain)
        lines = screen.preview_text.plain.split("\n")
        at = next(i for i, line in enumerate(lines) if "→ clarify: Which database?" in line)
        assert lines[at + 1].strip() == "│ → postgres"

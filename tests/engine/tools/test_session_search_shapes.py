"""session_search's other shapes, as Hermes 0.19 has them, on a real store: scroll around a match, read a
whole session, browse the recent ones; and the discovery shape pointing at them."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.core.messages import Message, ToolCall
from agent.store import SessionStore
from agent.toolkit.registry import ToolContext
from agent.tools.session_search import READ_HEAD, READ_TAIL, SessionSearchArgs, session_search
from tests.recording_ui import RecordingUI


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    s = SessionStore(tmp_path / "state.db")
    yield s
    s.close()


def add_session(store: SessionStore, title: str, messages: list[Message]) -> tuple[str, list[int]]:
    sid = store.create_session(model="m", provider="p", cwd="/w", system_prompt="s", title=title)
    return sid, [store.append_message(sid, m) for m in messages]


def context(store: SessionStore, tmp_path: Path, current: str = "now") -> ToolContext:
    return ToolContext(
        cwd=tmp_path,
        session_id=current,
        call_id="c1",
        interrupt=threading.Event(),
        hermes_home=tmp_path,
        ui=RecordingUI(),
        store=store,
    )


def chat(n: int, needle_at: int | None = None) -> list[Message]:
    out = []
    for i in range(n):
        text = f"message {i}" + (" about the quokka" if i == needle_at else "")
        out.append(Message(role="user" if i % 2 == 0 else "assistant", content=text))
    return out


def test_scroll_shows_the_messages_around_a_match(store: SessionStore, tmp_path: Path) -> None:
    sid, ids = add_session(store, "Long talk", chat(30, needle_at=15))
    ctx = context(store, tmp_path)
    found = session_search(SessionSearchArgs(query="quokka"), ctx)
    assert f"message {ids[15]}]" in found.content and "around_message_id" in found.content
    result = session_search(SessionSearchArgs(session_id=sid, around_message_id=ids[15], window=3), ctx)
    assert result.status == "ok" and result.data["mode"] == "scroll"
    assert result.data["message_ids"] == ids[12:19]
    assert (result.data["messages_before"], result.data["messages_after"]) == (12, 11)
    assert f"#{ids[15]} assistant: message 15 about the quokka <- match" in result.content
    assert "message 11" not in result.content and "message 19" not in result.content


def test_scrolling_on_from_the_last_id_shown(store: SessionStore, tmp_path: Path) -> None:
    sid, ids = add_session(store, "Long talk", chat(30))
    ctx = context(store, tmp_path)
    first = session_search(SessionSearchArgs(session_id=sid, around_message_id=ids[5], window=2), ctx)
    last = first.data["message_ids"][-1]
    on = session_search(SessionSearchArgs(session_id=sid, around_message_id=last, window=2), ctx)
    assert on.data["message_ids"] == ids[5:10]  # the boundary message is in both windows


def test_scroll_at_the_start_says_nothing_comes_before(store: SessionStore, tmp_path: Path) -> None:
    sid, ids = add_session(store, "Short", chat(4))
    result = session_search(
        SessionSearchArgs(session_id=sid, around_message_id=ids[0]), context(store, tmp_path)
    )
    assert result.data["message_ids"] == ids and result.data["messages_before"] == 0
    assert "To scroll on" not in result.content


def test_read_returns_a_short_session_whole(store: SessionStore, tmp_path: Path) -> None:
    messages = [
        Message(role="user", content="list the files"),
        Message(role="assistant", content="", tool_calls=[ToolCall("t1", "terminal", '{"command": "ls"}')]),
        Message(role="tool", content="a.txt", tool_call_id="t1", tool_name="terminal"),
        Message(role="assistant", content="There is a.txt."),
    ]
    sid, ids = add_session(store, "Files", messages)
    result = session_search(SessionSearchArgs(session_id=sid), context(store, tmp_path))
    assert result.data == {"mode": "read", "session_id": sid, "message_ids": ids, "truncated": False}
    assert "Files (session" in result.content and "4 messages" in result.content
    assert "[calls terminal]" in result.content and "tool:terminal: a.txt" in result.content


def test_read_of_a_long_session_gives_its_head_and_tail(store: SessionStore, tmp_path: Path) -> None:
    sid, ids = add_session(store, "Very long", chat(50))
    result = session_search(SessionSearchArgs(session_id=sid), context(store, tmp_path))
    assert result.data["truncated"] is True
    assert result.data["message_ids"] == ids[:READ_HEAD] + ids[-READ_TAIL:]
    assert f"... {50 - READ_HEAD - READ_TAIL} more ..." in result.content
    assert "pass around_message_id to read the middle" in result.content


def test_browse_lists_the_recent_sessions_but_not_this_one(store: SessionStore, tmp_path: Path) -> None:
    old, _ = add_session(store, "Older", chat(2))
    new, _ = add_session(store, "Newer", chat(3))
    current, _ = add_session(store, "Current", chat(1))
    result = session_search(SessionSearchArgs(), context(store, tmp_path, current=current))
    assert result.data == {"mode": "browse", "sessions": [new, old]}
    assert "1. Newer (session" in result.content and "3 messages" in result.content


def test_bad_shapes_are_one_clear_line(store: SessionStore, tmp_path: Path) -> None:
    sid, ids = add_session(store, "S", chat(3))
    other, other_ids = add_session(store, "Other", chat(2))
    ctx = context(store, tmp_path, current=other)
    cases = {
        "no session 'nope'": SessionSearchArgs(session_id="nope"),
        f"message {other_ids[0]} is not in session {sid}": SessionSearchArgs(
            session_id=sid, around_message_id=other_ids[0]
        ),
        "needs the session_id": SessionSearchArgs(around_message_id=ids[0]),
        "already in your context": SessionSearchArgs(session_id=other),
    }
    for expected, args in cases.items():
        result = session_search(args, ctx)
        assert result.status == "error" and expected in result.content and "\n" not in result.content
    assert session_search(SessionSearchArgs(session_id=other, include_current=True), ctx).status == "ok"

"""Hermes' own history, from a `state.db` made by Hermes 0.19 itself: listed, searched with our query
language, previewed and resumed (the copy continues in our store), and never changed, not even by a
`-wal`/`-shm` beside it. A locked or unreadable-schema file gives one clear line."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.core.messages import Message
from agent.store.hermes import HermesHistory, HermesHistoryError, side_files
from agent.store.library import ReadOnlySession, SessionLibrary, open_library
from agent.toolkit.registry import ToolContext
from agent.tools.session_search import SessionSearchArgs, session_search
from scripted import ScriptedServer
from tests.engine.helpers import make_settings
from tests.hermes_home_fixture import (
    FIXTURE_0_19,
    QUOKKA_SESSION,
    SKILL_SESSION,
    ZEBRA_SESSION,
    copy_hermes_home_0_19,
    tree_digest,
)
from tests.recording_ui import RecordingUI

ORIGINAL = tree_digest(FIXTURE_0_19)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the Hermes-made home as HERMES_HOME; afterwards the copy's Hermes files are byte for byte
    what Hermes left (nothing created beside state.db), and so is the original fixture."""
    home = copy_hermes_home_0_19(tmp_path / "hermes")
    monkeypatch.setenv("HERMES_HOME", str(home))
    yield home
    after = {name: digest for name, digest in tree_digest(home).items() if not name.startswith("tui/")}
    assert after == ORIGINAL
    assert side_files(home / "state.db") == []
    assert tree_digest(FIXTURE_0_19) == ORIGINAL


@pytest.fixture
def library(home: Path) -> Iterator[SessionLibrary]:
    lib = open_library(home / "tui" / "state.db", home)
    yield lib
    lib.close()


def test_hermes_sessions_are_listed_with_their_badge(library: SessionLibrary) -> None:
    sessions = library.list_sessions()
    assert [s.id for s in sessions] == [
        f"hermes:{SKILL_SESSION}",
        f"hermes:{ZEBRA_SESSION}",
        f"hermes:{QUOKKA_SESSION}",
    ]
    assert all(s.is_hermes and s.from_hermes for s in sessions)
    quokka = sessions[-1]
    assert quokka.preview == "what files are here?" and quokka.message_count == 4
    assert quokka.model == "scripted" and quokka.cwd == "/work/scratch/hfix/work"
    assert (quokka.input_tokens, quokka.output_tokens, quokka.api_call_count) == (14980, 51, 2)
    assert quokka.cost_unknown_calls == 2  # Hermes could not price "scripted" either: "?" not $0
    assert library.hermes_problem is None


def test_ours_and_hermes_sorted_together(library: SessionLibrary) -> None:
    sid = library.create_session(model="m", provider="custom", cwd="/", system_prompt="s")
    library.append_message(sid, Message(role="user", content="a session of ours"))
    assert [s.id for s in library.list_sessions()][:2] == [sid, f"hermes:{SKILL_SESSION}"]
    assert [s.id for s in library.list_sessions(limit=2, offset=1)] == [
        f"hermes:{SKILL_SESSION}",
        f"hermes:{ZEBRA_SESSION}",
    ]


@pytest.mark.parametrize(
    ("query", "session", "seq", "role"),
    [
        ("quokka", QUOKKA_SESSION, 3, "assistant"),
        ("quok", QUOKKA_SESSION, 3, "assistant"),  # search as you type: a prefix
        ('"two files"', QUOKKA_SESSION, 3, "assistant"),
        ("command ls", QUOKKA_SESSION, 1, "assistant"),  # a tool call's arguments
        ("capital NOT zebra", ZEBRA_SESSION, 0, "user"),  # the answer says zebra, the question does not
        ("quokka NOT alpha", None, None, None),
        ("paris zebra", ZEBRA_SESSION, 1, "assistant"),
    ],
)
def test_search_with_the_same_query_language(
    library: SessionLibrary, query: str, session: str | None, seq: int | None, role: str | None
) -> None:
    hits = library.search(query)
    if session is None:
        assert hits == []
        return
    assert (hits[0].session_id, hits[0].seq, hits[0].role) == (f"hermes:{session}", seq, role)
    assert "\x02" in hits[0].snippet


def test_substring_search_uses_the_trigram_table_or_like(tmp_path: Path) -> None:
    """CJK text is one token to FTS5's word tokenizer: a word inside it is found as a substring, through
    Hermes' trigram table (3+ characters) or a LIKE scan (shorter)."""
    home = copy_hermes_home_0_19(tmp_path / "cjk")
    with sqlite3.connect(home / "state.db") as conn:  # as Hermes writes it: its triggers index the row
        conn.execute(
            "INSERT INTO messages (session_id, role, content, timestamp, active) "
            "VALUES (?, 'assistant', '已经部署到生产环境了', 2.0, 1)",
            (ZEBRA_SESSION,),
        )
    history = HermesHistory(home / "state.db")
    assert history.check().trigram
    for query in ("生产环境", "生产"):
        hits = history.search(query)
        assert [(h.session_id, h.seq) for h in hits] == [(f"hermes:{ZEBRA_SESSION}", 2)]
        assert f"\x02{query}\x03" in hits[0].snippet


def test_preview_slices_and_tool_calls(library: SessionLibrary) -> None:
    sid = f"hermes:{QUOKKA_SESSION}"
    window = library.load_messages(sid, 1, 3)
    assert [m.role for m in window] == ["assistant", "tool"]
    call = window[0].tool_calls[0]
    assert (call.id, call.name, call.arguments) == ("call_1", "terminal", '{"command": "ls"}')
    assert window[1].tool_call_id == "call_1" and window[1].tool_name == "terminal"
    loaded = library.load(sid)
    assert loaded.info.system_prompt.startswith("You are Hermes Agent")
    assert loaded.messages[-1].content.endswith("The word is quokka.")


def test_a_hermes_session_is_read_only(library: SessionLibrary) -> None:
    sid = f"hermes:{ZEBRA_SESSION}"
    for change in (
        lambda: library.set_title(sid, "new"),
        lambda: library.delete_session(sid),
        lambda: library.append_message(sid, Message(role="user", content="x")),
    ):
        with pytest.raises(ReadOnlySession, match="never changes"):
            change()


def test_resume_copies_once_and_continues_in_our_store(
    home: Path, library: SessionLibrary, tmp_path: Path
) -> None:
    from agent.session.session import Session

    hermes_id = f"hermes:{QUOKKA_SESSION}"
    original = library.load(hermes_id)
    with ScriptedServer({"name": "t", "calls": [{"text": "Still a quokka."}]}) as server:
        agent = Session(make_settings(server, home, tmp_path), ui=RecordingUI(), store=library)
        agent.resume(hermes_id)
        copy_id = agent.session_id
        assert not copy_id.startswith("hermes:")
        assert [m.content for m in agent.messages] == [m.content for m in original.messages]
        result = agent.run_conversation("and the word again?")
        body = server.requests[0].body
    assert result.final_text == "Still a quokka."
    assert body["messages"][0]["content"] == original.info.system_prompt  # byte for byte
    wire = body["messages"][1:]
    assert [m["role"] for m in wire] == ["user", "assistant", "tool", "assistant", "user"]
    assert wire[1]["tool_calls"][0]["function"]["name"] == "terminal"
    assert wire[2]["tool_call_id"] == wire[1]["tool_calls"][0]["id"]
    info = library.get_session(copy_id)
    assert info is not None and info.origin == hermes_id and info.from_hermes and not info.is_hermes
    assert info.message_count == 6
    # Resuming it again continues the same copy; the list shows one row for the conversation.
    assert library.adopt(hermes_id) == copy_id
    assert library.resolve(QUOKKA_SESSION).id == copy_id
    listed = [s.id for s in library.list_sessions()]
    assert copy_id in listed and hermes_id not in listed and len(listed) == 3
    assert {h.session_id for h in library.search("quokka")} == {copy_id}


def test_session_search_tool_searches_both(library: SessionLibrary, home: Path) -> None:
    sid = library.create_session(model="m", provider="custom", cwd="/", system_prompt="s")
    library.append_message(sid, Message(role="assistant", content="our own quokka notes"))
    ctx = ToolContext(
        cwd=home,
        session_id="current",
        call_id="c1",
        interrupt=threading.Event(),
        hermes_home=home,
        store=library,
    )
    result = session_search(SessionSearchArgs(query="quokka"), ctx)
    assert result.status == "ok"
    found = [group["session_id"] for group in result.data["results"]]
    assert found == [sid, f"hermes:{QUOKKA_SESSION}"]
    assert f"Hermes session hermes:{QUOKKA_SESSION}" in result.content
    # A Hermes session is read and scrolled like ours (its own message ids).
    hermes_hit = result.data["results"][1]["matches"][0]["message_id"]
    read = session_search(SessionSearchArgs(session_id=f"hermes:{QUOKKA_SESSION}"), ctx)
    assert read.status == "ok" and hermes_hit in read.data["message_ids"]
    around = session_search(
        SessionSearchArgs(session_id=f"hermes:{QUOKKA_SESSION}", around_message_id=hermes_hit, window=1), ctx
    )
    assert around.status == "ok" and hermes_hit in around.data["message_ids"]
    assert len(around.data["message_ids"]) <= 3


def test_live_wal_is_read_without_being_changed(tmp_path: Path) -> None:
    """Hermes running: its newest message is only in the WAL. We read it, and the database and the WAL
    stay as they were (no checkpoint, no write)."""
    home = copy_hermes_home_0_19(tmp_path / "live")
    db = home / "state.db"
    writer = sqlite3.connect(db)
    try:
        writer.execute("PRAGMA wal_autocheckpoint = 0")
        writer.execute(
            "INSERT INTO messages (session_id, role, content, timestamp, active) "
            "VALUES (?, 'user', ?, 1.0, 1)",
            (ZEBRA_SESSION, "a wombat arrived while Hermes ran"),
        )
        writer.commit()
        assert side_files(db) == ["state.db-shm", "state.db-wal"]
        before = {name: (home / name).read_bytes() for name in ("state.db", "state.db-wal")}
        history = HermesHistory(db)
        assert [h.session_id for h in history.search("wombat")] == [f"hermes:{ZEBRA_SESSION}"]
        assert history.get_session(ZEBRA_SESSION).message_count == 3
        assert {name: (home / name).read_bytes() for name in before} == before
    finally:
        writer.close()


def test_a_locked_hermes_db_gives_one_clear_line(tmp_path: Path) -> None:
    home = copy_hermes_home_0_19(tmp_path / "locked")
    db = home / "state.db"
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode = DELETE")  # Hermes on a filesystem without WAL
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(HermesHistoryError) as caught:
            HermesHistory(db).list_sessions()
        line = str(caught.value)
        assert "\n" not in line and "is locked by another program" in line and str(db) in line
        lib = open_library(home / "tui" / "state.db", home)
        try:
            assert lib.list_sessions() == []
            assert lib.hermes_problem == line
        finally:
            lib.close()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(HermesHistory(db).list_sessions()) == 3  # free again: shown again


def test_a_newer_schema_is_read_when_its_columns_are_there(tmp_path: Path) -> None:
    home = copy_hermes_home_0_19(tmp_path / "newer")
    db = home / "state.db"
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE schema_version SET version = 99")
    history = HermesHistory(db)
    assert history.check().newer and len(history.list_sessions()) == 3
    with sqlite3.connect(db) as conn:
        conn.execute("ALTER TABLE messages RENAME COLUMN timestamp TO created")
    with pytest.raises(HermesHistoryError) as caught:
        history.list_sessions()
    assert str(caught.value) == (
        f"Hermes' history ({db}, schema version 99, newer than the 22 this version knows) lacks "
        "messages.timestamp: its sessions are not shown"
    )


def test_not_a_database_gives_one_clear_line(tmp_path: Path) -> None:
    bad = tmp_path / "state.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(HermesHistoryError, match="is not a readable SQLite database"):
        HermesHistory(bad).check()


def test_headless_resume_accepts_a_hermes_id(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`hermes-tui -r <Hermes id>` continues the Hermes session in our store (twice: the same copy)."""
    from hermes_tui.cli import main

    scenario = tmp_path / "scenario.yaml"
    scenario.write_text("name: t\ncalls:\n  - text: The word was quokka.\n  - text: Still quokka.\n")
    assert main(["-z", "what was the word?", "-r", QUOKKA_SESSION, "--scenario", str(scenario)]) == 0
    assert capsys.readouterr().out.strip() == "The word was quokka."
    library = open_library(home / "tui" / "state.db", home)
    try:
        copy = library.copy_for(f"hermes:{QUOKKA_SESSION}")
        assert copy is not None and library.get_session(copy).message_count == 6
    finally:
        library.close()
    assert main(["-z", "again?", "-r", f"hermes:{QUOKKA_SESSION}", "--scenario", str(scenario)]) == 0
    library = open_library(home / "tui" / "state.db", home)
    try:
        assert library.copy_for(f"hermes:{QUOKKA_SESSION}") == copy
        assert library.get_session(copy).message_count == 8
    finally:
        library.close()
    assert main(["-z", "x", "-r", "no-such-session", "--scenario", str(scenario)]) == 2
    assert "no session found for no-such-session" in capsys.readouterr().err


def test_hermes_api_content_is_replayed_as_hermes_sent_it(tmp_path: Path) -> None:
    from agent.session.session import Session

    home = copy_hermes_home_0_19(tmp_path / "sidecar")
    sent = "what is the magic word?\n\n[plugin context Hermes added]"
    with sqlite3.connect(home / "state.db") as conn:  # the copy: as a Hermes with a plugin would leave it
        first = conn.execute(
            "SELECT min(id) FROM messages WHERE session_id = ? AND role = 'user'", (QUOKKA_SESSION,)
        ).fetchone()[0]
        conn.execute("UPDATE messages SET api_content = ? WHERE id = ?", (sent, first))
    conn.close()
    library = open_library(home / "tui" / "state.db", home)
    try:
        with ScriptedServer({"name": "t", "calls": [{"text": "Still a quokka."}]}) as server:
            agent = Session(make_settings(server, home, tmp_path), ui=RecordingUI(), store=library)
            agent.resume(f"hermes:{QUOKKA_SESSION}")
            typed = agent.messages[0].content
            agent.run_conversation("again?")
            users = [m["content"] for m in server.requests[0].body["messages"] if m["role"] == "user"]
    finally:
        library.close()
    assert users[0] == sent and typed != sent and users[-1] == "again?"

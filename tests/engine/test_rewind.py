"""Rewinding a session to just before one of the user's messages, on the scripted server through the real
SDK: the next request holds only what came before (read on the wire), the store keeps the rewound rows
(marked, still found by search, left out of a resume's context), files come back from the checkpoints the
rewound turns took, a checkpoint that is gone is said, a running turn is stopped first, and a Hermes
session rewinds our copy of it."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from agent.core.events import TextDelta
from agent.session.session import Session
from agent.store.library import open_library
from scripted import ScriptedServer
from tests.engine.helpers import make_agent, make_settings
from tests.hermes_home_fixture import QUOKKA_SESSION, copy_hermes_home_0_19
from tests.recording_ui import RecordingUI
from tests.waiting import QUIET, eventually, wait_until


def _wire(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of a chat-completions request, the system prompt left out."""
    return [(m["role"], m.get("content") or "") for m in body["messages"] if m["role"] != "system"]


def _write(path: str, content: str, call_id: str) -> dict[str, Any]:
    call = {"name": "write_file", "arguments": {"path": path, "content": content}, "id": call_id}
    return {"tool_calls": [call]}


def test_the_next_request_holds_only_what_came_before(hermes_home: Path, tmp_path: Path) -> None:
    calls = ["one", "two", "three", "after the rewind"]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, store, _ui = make_agent(server, hermes_home, tmp_path)
        for text in ("first", "second", "third"):
            agent.run_conversation(text)
        points = agent.rewind_points()
        assert [p.text for p in points] == ["third", "second", "first"]  # newest first
        report = agent.rewind(points[1])  # to just before "second"
        assert report.ok and report.rewound == 4 and report.text == "second"
        assert [m.content for m in agent.messages] == ["first", "one"]
        agent.run_conversation("second, edited")
        body = server.requests[-1].body
    assert _wire(body) == [("user", "first"), ("assistant", "one"), ("user", "second, edited")]
    stored = store.load(agent.session_id).messages
    assert [(m.content, m.rewound_at is not None) for m in stored] == [
        ("first", False),
        ("one", False),
        ("second", True),
        ("two", True),
        ("third", True),
        ("three", True),
        ("second, edited", False),
        ("after the rewind", False),
    ]
    # Nothing lost: search finds the rewound turns.
    assert {h.seq for h in store.search("three")} == {5}


def test_a_resume_leaves_rewound_messages_out_of_the_context(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t", "calls": ["one", "two", "three"]}) as server:
        agent, store, _ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("first")
        agent.run_conversation("second")
        agent.rewind(agent.rewind_points()[0])
        agent.close()
        resumed = Session(make_settings(server, hermes_home, tmp_path), ui=RecordingUI(), store=store)
        resumed.resume(agent.session_id)
        assert [m.content for m in resumed.messages] == ["first", "one"]
        assert [(m.content, m.rewound_at is not None) for m in resumed.stored_transcript] == [
            ("first", False),
            ("one", False),
            ("second", True),
            ("two", True),
        ]
        resumed.run_conversation("again")
        body = server.requests[-1].body
    assert _wire(body) == [("user", "first"), ("assistant", "one"), ("user", "again")]


def test_undo_after_a_turn_that_wrote_a_file(hermes_home: Path, tmp_path: Path) -> None:
    """Hermes' `/undo`: the last exchange, conversation and code."""
    (tmp_path / "kept.txt").write_text("original\n")
    calls = [
        "hello",
        _write("kept.txt", "changed\n", "w1"),
        _write("new.txt", "made\n", "w2"),
        "done",
        "fresh reply",
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("hi")
        agent.run_conversation("edit the files")
        assert (tmp_path / "kept.txt").read_text() == "changed\n" and (tmp_path / "new.txt").exists()
        last = agent.rewind_points()[0]
        assert last.text == "edit the files" and len(last.checkpoints) == 2
        report = agent.rewind(last, conversation=True, code=True)
        assert report.ok, report.lines()
        assert (tmp_path / "kept.txt").read_text() == "original\n"
        assert not (tmp_path / "new.txt").exists()
        assert report.lines()[1].startswith("Files: restored 1 file")
        agent.run_conversation("something else")
        body = server.requests[-1].body
    assert _wire(body) == [("user", "hi"), ("assistant", "hello"), ("user", "something else")]


def test_code_only_restores_files_from_several_turns_and_keeps_the_conversation(
    hermes_home: Path, tmp_path: Path
) -> None:
    target = tmp_path / "notes.md"
    target.write_text("v0\n")
    calls = [_write("notes.md", "v1\n", "a"), "one", _write("notes.md", "v2\n", "b"), "two"]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("first edit")
        agent.run_conversation("second edit")
        assert target.read_text() == "v2\n"
        before = len(agent.messages)
        report = agent.rewind(agent.rewind_points()[-1], conversation=False, code=True)
    assert report.ok and report.rewound == 0
    assert target.read_text() == "v0\n"  # as before the first edit, not the second
    assert len(agent.messages) == before
    assert report.files is not None and report.files.backup_id  # the state before the rewind is kept
    assert report.lines() == ["Files: restored 1 file."]


def test_a_checkpoint_that_is_gone_rewinds_the_conversation_and_says_so(
    hermes_home: Path, tmp_path: Path
) -> None:
    calls = [_write("made.txt", "x\n", "w"), "written", "next"]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("make a file")
        assert agent.checkpoints is not None
        (checkpoint,) = agent.checkpoints.list()
        shutil.rmtree(checkpoint.path)  # pruned
        report = agent.rewind(agent.rewind_points()[0], conversation=True, code=True)
        assert agent.messages == []
        agent.run_conversation("start over")
        body = server.requests[-1].body
    assert report.missing == [checkpoint.id] and not report.ok
    gone = f"The files could not be restored: checkpoint {checkpoint.id} is gone (pruned)."
    assert report.lines()[1] == gone
    assert (tmp_path / "made.txt").exists()
    assert _wire(body) == [("user", "start over")]


def test_a_rewind_while_a_turn_runs_stops_it_first(hermes_home: Path, tmp_path: Path) -> None:
    stall = {"text": "I am thinking about this at length", "fault": {"kind": "stall", "after_chunks": 2}}
    calls = ["one", stall, "after"]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("first")
        deltas = len(ui.of_type(TextDelta))
        worker = threading.Thread(target=agent.run_conversation, args=("a long one",))
        worker.start()
        # Its reply has begun: a partial reply to rewind (with only the request in flight, as a loaded
        # machine can catch it, nothing of the reply is stored and the next turn's message is the fourth).
        wait_until(lambda: len(ui.of_type(TextDelta)) > deltas, what="the turn's reply streaming")
        point = agent.rewind_points()[0]
        assert point.text == "a long one"
        report = agent.rewind(point)
        worker.join(10)
        assert not worker.is_alive()
        assert report.ok and report.rewound >= 1
        assert [m.content for m in agent.messages] == ["first", "one"]
        agent.run_conversation("instead")
        body = server.requests[-1].body
    assert _wire(body) == [("user", "first"), ("assistant", "one"), ("user", "instead")]
    assert all(m.rewound_at for m in store.load(agent.session_id).messages[2:4])


def test_nothing_to_rewind(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t", "calls": []}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        assert agent.rewind_points() == []


def test_a_point_no_longer_in_the_conversation_changes_nothing(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t", "calls": ["one", "two"]}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("first")
        agent.run_conversation("second")
        stale = agent.rewind_points()[0]
        agent.rewind(agent.rewind_points()[1])
        report = agent.rewind(stale)
    assert report.problem == "That message is no longer in the conversation: nothing was rewound."
    assert report.lines() == [report.problem]


@pytest.fixture
def hermes_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = copy_hermes_home_0_19(tmp_path / "hermes")
    monkeypatch.setenv("HERMES_HOME", str(home))
    return home


def test_a_resumed_hermes_session_rewinds_our_copy(hermes_copy: Path, tmp_path: Path) -> None:
    library = open_library(hermes_copy / "tui" / "state.db", hermes_copy)
    hermes_id = f"hermes:{QUOKKA_SESSION}"
    original = [m.content for m in library.load(hermes_id).messages]
    try:
        with ScriptedServer({"name": "t", "calls": ["Still a quokka.", "A wombat."]}) as server:
            agent = Session(make_settings(server, hermes_copy, tmp_path), ui=RecordingUI(), store=library)
            agent.resume(hermes_id)
            agent.run_conversation("and the word again?")
            report = agent.rewind(agent.rewind_points()[0])
            assert report.ok and report.rewound == 2
            agent.run_conversation("another animal?")
            body = server.requests[-1].body
        assert [m["content"] for m in body["messages"][1:] if m["role"] == "user"][-1] == "another animal?"
        assert "and the word again?" not in [m.get("content") for m in body["messages"]]
        assert [m.content for m in library.load(hermes_id).messages] == original  # Hermes' own: untouched
        copy = library.load(agent.session_id).messages
        assert [m.content for m in copy if m.rewound_at] == ["and the word again?", "Still a quokka."]
    finally:
        library.close()


def test_a_rewind_to_the_first_message_keeps_the_title(hermes_home: Path, tmp_path: Path) -> None:
    """The first turn titles the session (a second, small call); after a rewind to the first message the
    next turn is the first of the live history again, but the title (perhaps the user's) stays."""
    with ScriptedServer({"name": "t", "calls": ["one", "Quokka Facts", "two"]}) as server:
        agent, store, _ui = make_agent(server, hermes_home, tmp_path, auto_title=True)
        agent.run_conversation("tell me about quokkas")
        wait_until(lambda: (store.get_session(agent.session_id).title or "") == "Quokka Facts", what="title")
        agent.rewind(agent.rewind_points()[0])
        agent.run_conversation("tell me about wombats")
        # A title call starts the moment a first turn ends: QUIET seconds is ample for one to arrive.
        asked = eventually(lambda: len(server.requests) > 3, timeout=QUIET)
    assert not asked, [r.body["messages"][-1] for r in server.requests[3:]]  # no second title call
    assert store.get_session(agent.session_id).title == "Quokka Facts"

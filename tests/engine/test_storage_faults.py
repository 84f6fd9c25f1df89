"""Storage faults (issue 20, items 9, 11, 12, 18): a bad home, a read-only, damaged, newer or full store,
a session cut off mid-tool, two writers. Each ends in one line, a read-only mode or a repair; never a
traceback, never a turn blamed on the provider, never "saved" when it was not."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any, ClassVar

import pytest

from agent.core.events import AgentEvent, ToolStarted
from agent.core.messages import Message, ToolCall
from agent.store import SessionStore
from agent.store.core import StoreConnection
from agent.store.errors import StoreError
from agent.store.opening import open_store
from agent.store.repair import INTERRUPTED_RESULT
from scripted import ScriptedServer
from tests.engine.helpers import make_agent
from tests.recording_ui import RecordingUI


def _session(store: SessionStore, **kw: Any) -> str:
    return store.create_session(model="m", provider="p", cwd="/w", system_prompt="sys", **kw)


def _filled(path: Path, sessions: int = 3, messages: int = 150) -> list[str]:
    store = SessionStore(path)
    ids = []
    for k in range(sessions):
        sid = _session(store)
        for i in range(messages):
            store.append_message(sid, Message(role="user", content=f"quokka number {k} {i} " * 30))
        store.set_status(sid, "completed")
        ids.append(sid)
    store.close()
    return ids


class _FullDiskUI(RecordingUI):
    """Fills the disk (SQLite's own limit: `max_page_count`, a real SQLITE_FULL) when the tool starts."""

    store: SessionStore | None = None

    def on_event(self, event: AgentEvent) -> None:
        super().on_event(event)
        if isinstance(event, ToolStarted) and self.store is not None:
            self.store.conn.execute("VACUUM")  # no free pages left to grow into
            pages = self.store.conn.execute("PRAGMA page_count").fetchone()[0]
            self.store.conn.execute(f"PRAGMA max_page_count = {pages}")


def test_disk_full_mid_turn_stops_the_turn_saying_what_is_lost(hermes_home: Path, tmp_path: Path) -> None:
    command = 'python3 -c "import os; print(os.urandom(40000).hex())"'
    calls = [{"tool_calls": [{"name": "terminal", "arguments": {"command": command}}]}, {"text": "all done"}]
    ui = _FullDiskUI()
    with ScriptedServer({"name": "full", "calls": calls}) as server:
        agent, store, _ = make_agent(server, hermes_home, tmp_path, ui=ui, max_retries=3, yolo=True)
        ui.store = store
        result = agent.run_conversation("fill the disk")
        requests = len(server.requests)
    assert result.exit_reason == "error:storage"
    assert result.error is not None
    line = result.error.user_line()
    assert line.startswith("disk full: 1 message not saved"), line
    assert "provider" not in line.lower()
    assert requests == 1  # never retried, never sent on as if the tool result existed
    finished = [e for e in ui.events if type(e).__name__ == "TurnFinished"]
    assert len(finished) == 1 and finished[0].error == line
    store.conn.execute("PRAGMA max_page_count = 1000000000")
    assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    roles = [m.role for m in store.load(result.session_id).messages]
    assert roles == ["user", "assistant"]  # what was saved is whole; the lost result is counted above
    store.close()


def test_home_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.write_text("not a folder")
    with pytest.raises(StoreError) as refused:
        open_store(home / "tui" / "state.db")
    assert refused.value.user_line() == f"cannot use {home} as a folder: it is a file"


@pytest.mark.parametrize("damage", ["garbage", "text", "header"])
def test_damaged_store_is_refused_with_the_doctor_hint(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "state.db"
    if damage == "text":
        path.write_text("hello, this is not a database\n" * 200)
    else:
        _filled(path, sessions=1, messages=20)
        data = bytearray(path.read_bytes())
        span = slice(0, 100) if damage == "header" else slice(0, len(data))
        data[span] = os.urandom(len(data[span]))
        path.write_bytes(bytes(data))
    before = path.read_bytes()
    with pytest.raises(StoreError) as refused:
        open_store(path)
    assert refused.value.kind == "corrupt"
    assert "hermes-tui doctor" in refused.value.user_line() and "\n" not in refused.value.user_line()
    assert path.read_bytes() == before  # never written to


def test_newer_schema_opens_read_only_naming_the_version(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    sid = _filled(path, sessions=1, messages=3)[0]
    raw = sqlite3.connect(path)
    newest = raw.execute("SELECT max(version) FROM schema_version").fetchone()[0] + 7
    raw.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, 0)", (newest,))
    raw.commit()
    raw.close()
    store = open_store(path)
    try:
        assert store.read_only is not None and f"schema version {newest}" in store.read_only
        assert [h.session_id for h in store.search("quokka")][:1] == [sid]  # browsing and search work
        with pytest.raises(StoreError):
            store.append_message(sid, Message(role="user", content="never written"))
    finally:
        store.close()
    assert len(SessionStore(path, read_only="check").load(sid).messages) == 3


class _ReadOnlyConnection(StoreConnection):
    """What SQLite says on a read-only file or filesystem, where a root test run cannot make one."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        if sql.startswith("BEGIN IMMEDIATE"):
            raise StoreError("read_only", "attempt to write a readonly database", self.store_path)
        return super().execute(sql, parameters)


class _ReadOnlyFileStore(SessionStore):
    connection_class: ClassVar[type[StoreConnection]] = _ReadOnlyConnection


def test_read_only_file_opens_read_only(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    sid = _filled(path, sessions=1, messages=2)[0]
    store = open_store(path, store_class=_ReadOnlyFileStore)
    try:
        assert store.read_only is not None and "read-only" in store.read_only
        assert store.load(sid).messages[0].content.startswith("quokka")
        with pytest.raises(StoreError) as refused:
            store.set_title(sid, "x")
        assert refused.value.kind == "read_only"
    finally:
        store.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only files")
def test_read_only_permissions_open_read_only(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    _filled(path, sessions=1, messages=2)
    path.chmod(0o444)
    store = open_store(path)
    try:
        assert store.read_only is not None
    finally:
        store.close()


def _crashed_mid_tool(path: Path) -> str:
    """A session as kill -9 leaves it while its second tool runs: one result of two, status active."""
    store = SessionStore(path)
    sid = _session(store)
    store.append_message(sid, Message(role="user", content="run both"))
    calls = [ToolCall(id="call_a", name="terminal"), ToolCall(id="call_b", name="read_file")]
    store.append_message(sid, Message(role="assistant", content="", tool_calls=calls))
    store.append_message(
        sid, Message(role="tool", content="a ran", tool_call_id="call_a", tool_name="terminal")
    )
    store.set_status(sid, "active")
    store.close()
    return sid


def test_session_killed_mid_tool_is_repaired_on_open(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    sid = _crashed_mid_tool(path)
    store = open_store(path)
    try:
        loaded = store.load(sid)
        assert loaded.info.status == "interrupted"
        last = loaded.messages[-1]
        assert (last.role, last.tool_call_id, last.meta.get("status")) == ("tool", "call_b", "interrupted")
        assert last.content == INTERRUPTED_RESULT.format(name="read_file")
        assert store.repair_session(sid) == 0  # whole now: a second repair changes nothing
        assert len(store.load(sid).messages) == 4
    finally:
        store.close()


def test_partial_reply_left_by_a_crash_is_finalized_as_interrupted(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    store = SessionStore(path)
    sid = _session(store)
    store.append_message(sid, Message(role="user", content="tell me"))
    store.append_message(sid, Message(role="assistant", content="half a rep", partial=True))
    store.close()
    store = open_store(path)
    try:
        reply = store.load(sid).messages[-1]
        assert (reply.content, reply.partial, reply.finish_reason) == ("half a rep", False, "interrupted")
        assert store.load(sid).info.status == "interrupted"
    finally:
        store.close()


def test_a_session_another_process_writes_is_neither_repaired_nor_continued(
    hermes_home: Path, tmp_path: Path
) -> None:
    path = hermes_home / "tui" / "state.db"
    sid = _crashed_mid_tool(path)
    writer = SessionStore(path)  # another process's store: its own lock file descriptor
    writer.claim_session(sid)
    try:
        second = open_store(path)
        try:
            assert second.load(sid).info.status == "active"  # not repaired under a live writer
            with ScriptedServer({"name": "t", "calls": ["hi"]}) as server:
                agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
                with pytest.raises(StoreError) as refused:
                    agent.resume(sid)
                agent.close()
                _store.close()
            line = refused.value.user_line()
            assert refused.value.kind == "in_use" and f"pid {os.getpid()}" in line and sid in line
        finally:
            second.close()
    finally:
        writer.close()  # the claim goes with it: now the session can be continued
    store = open_store(path)
    try:
        assert store.load(sid).info.status == "interrupted"
    finally:
        store.close()

"""SessionStore: schema, persistence round trips, search (and its query safety), crash safety."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import ClassVar

import pytest

from agent.core.messages import Message, ToolCall, Usage
from agent.store import (
    MIGRATIONS,
    Migration,
    SessionStore,
    sanitize_title,
)
from agent.store.errors import StoreError
from agent.store.query import parse

HERE = Path(__file__).resolve().parent


@pytest.fixture
def store(tmp_path: Path):
    s = SessionStore(tmp_path / "tui" / "state.db")
    yield s
    s.close()


def new_session(store: SessionStore, **kw) -> str:
    args = {"model": "gpt-x", "provider": "openai", "cwd": "/proj", "system_prompt": "You are Hermes."}
    args.update(kw)
    return store.create_session(**args)


def fts_rows(store: SessionStore) -> dict[int, tuple[str, str, str]]:
    rows = store.conn.execute("SELECT rowid, content, tool_name, tool_args FROM messages_fts").fetchall()
    return {row[0]: (row[1], row[2], row[3]) for row in rows}


# ------------------------------------------------------------------------------------------ schema / file


def test_schema_created_with_version_and_pragmas(store: SessionStore):
    conn = store.conn
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table')")}
    assert {
        "sessions",
        "messages",
        "approvals",
        "messages_fts",
        "schema_version",
        "search_terms",
        "usage",
        "turns",
    } <= tables
    triggers = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert {"messages_fts_ai", "messages_fts_ad", "messages_fts_au", "search_terms_ai"} <= triggers
    assert store.schema_version == len(MIGRATIONS) == 5
    assert [row[0] for row in conn.execute("SELECT version FROM schema_version")] == [1, 2, 3, 4, 5]
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    indexes = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert "idx_messages_session_seq" in indexes


def test_file_created_0600_with_parent_dirs(tmp_path: Path):
    path = tmp_path / "a" / "b" / "state.db"
    s = SessionStore(path)
    new_session(s)  # some writes, so -wal/-shm exist
    try:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                assert stat.S_IMODE(side.stat().st_mode) & 0o077 == 0
    finally:
        s.close()


def test_session_id_format_and_defaults(store: SessionStore):
    sid = new_session(store, base_url="http://x")
    assert re.fullmatch(r"\d{8}_\d{6}_[0-9a-f]{6}", sid)
    info = store.get_session(sid)
    assert info is not None
    assert (info.model, info.provider, info.cwd, info.base_url) == ("gpt-x", "openai", "/proj", "http://x")
    assert info.system_prompt == "You are Hermes."
    assert info.status == "active" and info.source == "tui" and info.title is None
    assert info.message_count == 0 and info.preview == ""
    assert store.get_session("nope") is None
    with pytest.raises(KeyError):
        store.load("nope")


def test_close_is_idempotent_and_context_manager(tmp_path: Path):
    with SessionStore(tmp_path / "s.db") as s:
        new_session(s)
    s.close()
    with pytest.raises(sqlite3.ProgrammingError):
        s.list_sessions()


# ------------------------------------------------------------------------------------------ messages


def test_append_load_round_trip(store: SessionStore):
    sid = new_session(store)
    user = Message(role="user", content="List the files, please", created_at=1000.0)
    calls = [
        ToolCall(id="call_1", name="terminal", arguments='{"command":"ls -la"}'),
        ToolCall(id="call_2", name="read_file", arguments='{"path":"README.md"}'),
    ]
    assistant = Message(
        role="assistant",
        content="Let me look.",
        reasoning="The user wants files.",
        tool_calls=calls,
        finish_reason="tool_calls",
        usage=Usage(prompt_tokens=120, completion_tokens=30, cache_read_tokens=100, reasoning_tokens=7),
        meta={"model": "gpt-x", "nested": {"a": [1, 2]}},
    )
    tool1 = Message(
        role="tool",
        content="total 0",
        tool_call_id="call_1",
        tool_name="terminal",
        meta={"ok": True, "duration": 0.25},
    )
    tool2 = Message(role="tool", content="# Readme", tool_call_id="call_2", tool_name="read_file")
    ids = [store.append_message(sid, m) for m in (user, assistant, tool1, tool2)]
    assert ids == sorted(ids) and all(isinstance(i, int) for i in ids)
    assert [m.id for m in (user, assistant, tool1, tool2)] == ids

    loaded = store.load(sid)
    assert loaded.seqs == [0, 1, 2, 3]
    assert [m.role for m in loaded.messages] == ["user", "assistant", "tool", "tool"]
    for original, back in zip((user, assistant, tool1, tool2), loaded.messages, strict=True):
        assert back == original  # dataclass equality over every field, incl. id, usage, meta, created_at
    assert loaded.messages[1].usage == Usage(120, 30, 100, 0, 7)
    assert loaded.messages[0].usage is None
    assert loaded.info.message_count == 4
    assert loaded.info.tool_call_count == 2
    assert loaded.info.preview == "List the files, please"


def test_seq_ordering_and_counters(store: SessionStore):
    a, b = new_session(store), new_session(store)
    for i in range(5):
        store.append_message(a, Message(role="user", content=f"a{i}"))
        store.append_message(b, Message(role="user", content=f"b{i}"))
    la, lb = store.load(a), store.load(b)
    assert la.seqs == lb.seqs == [0, 1, 2, 3, 4]
    assert [m.content for m in la.messages] == [f"a{i}" for i in range(5)]
    assert [m.content for m in store.load_messages(a, 1, 3)] == ["a1", "a2"]
    assert [m.content for m in store.load_messages(a, 3)] == ["a3", "a4"]
    assert la.info.message_count == 5
    with pytest.raises(KeyError):
        store.append_message("missing", Message(role="user", content="x"))


def test_surrogates_and_nul_survive(store: SessionStore):
    sid = new_session(store)
    store.append_message(sid, Message(role="user", content="bad \ud800 surrogate and nul \x00 end"))
    [msg] = store.load(sid).messages
    assert msg.content == "bad \ufffd surrogate and nul \x00 end"


def test_partial_checkpoint_then_update(store: SessionStore):
    sid = new_session(store)
    store.append_message(sid, Message(role="user", content="write a poem"))
    reply = Message(role="assistant", content="", partial=True)
    mid = store.append_message(sid, reply)
    store.checkpoint_partial(mid, "Roses are", "thinking...")
    store.checkpoint_partial(mid, "Roses are red, violets", "thinking more")
    loaded = store.load(sid).messages[-1]
    assert loaded.partial is True
    assert loaded.content == "Roses are red, violets"
    assert loaded.reasoning == "thinking more"
    # The FTS index follows the streaming updates: old text gone, new text searchable.
    assert [h.message_id for h in store.search("violets")] == [mid]

    reply.content = "Roses are red, violets are blue; call a tool."
    reply.reasoning = "done thinking"
    reply.tool_calls = [ToolCall("c9", "terminal", '{"command": "echo hi"}')]
    reply.finish_reason = "tool_calls"
    reply.usage = Usage(10, 20)
    reply.meta = {"status": "complete"}
    store.update_message(reply)
    assert reply.partial is False
    final = store.load(sid)
    last = final.messages[-1]
    assert last.partial is False
    assert last.content == reply.content and last.reasoning == "done thinking"
    assert last.tool_calls == reply.tool_calls and last.finish_reason == "tool_calls"
    assert last.usage == Usage(10, 20) and last.meta == {"status": "complete"}
    assert final.info.tool_call_count == 1
    assert store.search("blue")[0].message_id == mid
    assert store.search("echo")[0].message_id == mid
    # A late checkpoint after completion never overwrites the final text.
    store.checkpoint_partial(mid, "stale", None)
    assert store.load(sid).messages[-1].content == reply.content
    # The index holds exactly one row for the message, with the final content.
    assert fts_rows(store)[mid][0] == reply.content
    with pytest.raises(KeyError):
        store.update_message(Message(role="assistant", id=999_999))


def test_load_returns_unanswered_tool_calls_as_is(store: SessionStore):
    sid = new_session(store)
    store.append_message(sid, Message(role="user", content="do it"))
    store.append_message(sid, Message(role="assistant", tool_calls=[ToolCall("c1", "terminal", "{}")]))
    before = store.conn.execute("SELECT count(*) FROM messages").fetchone()[0]
    loaded = store.load(sid)
    assert loaded.messages[-1].tool_calls[0].id == "c1"
    assert len(loaded.messages) == 2
    assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == before


# ------------------------------------------------------------------------------------------ listing


def test_list_sessions_by_activity_and_preview(store: SessionStore):
    a = new_session(store)
    b = new_session(store)
    c = new_session(store)
    store.append_message(a, Message(role="user", content="  first\n\nuser   message " + "x" * 200))
    time.sleep(0.01)
    store.append_message(c, Message(role="user", content="c talks"))
    time.sleep(0.01)
    store.append_message(a, Message(role="user", content="second user message"))
    ids = [s.id for s in store.list_sessions()]
    assert ids == [a, c, b]
    first = store.list_sessions()[0]
    assert first.preview.startswith("first user message xxx") and len(first.preview) == 100
    assert first.message_count == 2
    assert [s.id for s in store.list_sessions(limit=1, offset=1)] == [c]
    time.sleep(0.01)
    store.add_usage(b, input_tokens=5)
    assert store.list_sessions()[0].id == b


def test_latest_session_by_cwd(store: SessionStore):
    assert store.latest_session() is None
    a = new_session(store, cwd="/one")
    b = new_session(store, cwd="/two")
    time.sleep(0.01)
    store.append_message(a, Message(role="user", content="hi"))
    assert store.latest_session().id == a
    assert store.latest_session(cwd="/two").id == b
    assert store.latest_session(cwd="/one").id == a
    assert store.latest_session(cwd="/three") is None
    assert [s.id for s in store.list_sessions(cwd="/two")] == [b]


def test_resolve_by_id_prefix_title(store: SessionStore):
    a = new_session(store, title="Refactor the Parser")
    b = new_session(store)
    assert store.resolve(a).id == a
    assert store.resolve("refactor the parser").id == a
    assert store.resolve("  REFACTOR THE PARSER ").id == a
    # A unique prefix resolves; an ambiguous one does not.
    store.conn.execute("UPDATE sessions SET id = '20250101_000000_aaaaaa' WHERE id = ?", (a,))
    store.conn.execute("UPDATE sessions SET id = '20250101_000000_aabbbb' WHERE id = ?", (b,))
    assert store.resolve("20250101_000000_aaa").id == "20250101_000000_aaaaaa"
    assert store.resolve("20250101_000000_aa") is None
    assert store.resolve("zzz") is None
    assert store.resolve("") is None
    assert store.resolve("%") is None


def test_set_status_and_usage(store: SessionStore):
    sid = new_session(store)
    store.set_status(sid, "interrupted")
    store.add_usage(
        sid,
        input_tokens=100,
        output_tokens=50,
        cache_read_tokens=10,
        cache_write_tokens=5,
        reasoning_tokens=3,
        api_calls=1,
        cost_usd=0.01,
        duration_s=1.5,
    )
    store.add_usage(sid, input_tokens=1, api_calls=1, cost_usd=0.02, duration_s=0.5)
    info = store.get_session(sid)
    assert info.status == "interrupted"
    assert (info.input_tokens, info.output_tokens, info.cache_read_tokens, info.cache_write_tokens) == (
        101,
        50,
        10,
        5,
    )
    assert info.reasoning_tokens == 3 and info.api_call_count == 2
    assert info.cost_usd == pytest.approx(0.03) and info.duration_s == pytest.approx(2.0)
    with pytest.raises(ValueError):
        store.set_status(sid, "bogus")
    with pytest.raises(KeyError):
        store.set_status("missing", "completed")
    with pytest.raises(KeyError):
        store.add_usage("missing", input_tokens=1)


# ------------------------------------------------------------------------------------------ titles


def test_sanitize_title():
    assert sanitize_title("  hello\t\nworld  ") == "hello world"
    assert sanitize_title("a\x00b\x1bc\x7f") == "abc"
    assert sanitize_title("\u202eevil\u202c \u200fname\u2066") == "evil name"
    assert sanitize_title("x" * 300) == "x" * 100
    assert sanitize_title("\x01\u200e  ") == ""
    assert sanitize_title("👨‍👩‍👧 family") == "👨‍👩‍👧 family"


def test_title_uniqueness(store: SessionStore):
    a, b, c, d = (new_session(store) for _ in range(4))
    assert store.set_title(a, "  My\x07 Project\u202e ") == "My Project"
    assert store.set_title(b, "my project") == "my project #2"
    assert store.set_title(c, "MY PROJECT") == "MY PROJECT #3"
    assert store.set_title(a, "My Project") == "My Project"  # its own title is not a conflict
    assert store.set_title(d, "my project #2") == "my project #4"
    assert store.get_session(b).title == "my project #2"
    long = "y" * 150
    e, f = new_session(store), new_session(store)
    assert store.set_title(e, long) == "y" * 100
    stored = store.set_title(f, long)
    assert stored == "y" * 97 + " #2" and len(stored) == 100
    assert store.set_title(a, "\x00") == "" and store.get_session(a).title is None
    g = new_session(store, title="my project")
    assert store.get_session(g).title == "my project"  # freed when `a` cleared its title
    h = new_session(store, title="MY PROJECT")
    assert store.get_session(h).title == "MY PROJECT #5"
    with pytest.raises(KeyError):
        store.set_title("missing", "x")
    # The database itself enforces case-insensitive uniqueness.
    with pytest.raises(sqlite3.IntegrityError):
        store.conn.execute("UPDATE sessions SET title = 'MY project' WHERE id = ?", (d,))


# ------------------------------------------------------------------------------------------ branch / delete


def test_branch(store: SessionStore):
    sid = new_session(store, title="Original", system_prompt="SYS PROMPT", base_url="http://b")
    msgs = [
        Message(role="user", content="u0"),
        Message(role="assistant", content="a1", tool_calls=[ToolCall("c1", "terminal", "{}")]),
        Message(role="tool", content="t2", tool_call_id="c1", tool_name="terminal"),
        Message(role="assistant", content="a3", usage=Usage(1, 2)),
        Message(role="user", content="u4"),
    ]
    for m in msgs:
        store.append_message(sid, m)
    store.add_usage(sid, input_tokens=99)
    child = store.branch(sid, 3)
    info = store.get_session(child)
    assert info.parent_session_id == sid and info.parent_message_id == msgs[3].id
    assert info.system_prompt == "SYS PROMPT" and info.base_url == "http://b" and info.cwd == "/proj"
    assert info.title == "Original #2"
    assert info.message_count == 4 and info.tool_call_count == 1 and info.input_tokens == 0
    loaded = store.load(child)
    assert loaded.seqs == [0, 1, 2, 3]
    assert [m.content for m in loaded.messages] == ["u0", "a1", "t2", "a3"]
    assert loaded.messages[1].tool_calls == msgs[1].tool_calls
    assert loaded.messages[3].usage == Usage(1, 2)
    assert all(m.id not in {x.id for x in msgs} for m in loaded.messages)
    # The original is untouched; appends to the branch continue its seq.
    orig = store.load(sid)
    assert [m.content for m in orig.messages] == ["u0", "a1", "t2", "a3", "u4"]
    assert orig.info.input_tokens == 99
    store.append_message(child, Message(role="user", content="new direction"))
    assert store.load(child).seqs == [0, 1, 2, 3, 4]
    # Explicit title, and a branch of nothing.
    named = store.branch(sid, 0, title="Side quest")
    assert store.get_session(named).title == "Side quest"
    assert store.load(named).seqs == [0]
    empty = store.branch(sid, -1)
    assert store.load(empty).messages == []
    assert store.get_session(empty).title == "Original #3"
    # Branch messages are searchable as their own rows.
    assert {h.session_id for h in store.search("a1")} == {sid, child}
    with pytest.raises(KeyError):
        store.branch("missing", 1)


def test_delete_cascades(store: SessionStore):
    keep = new_session(store)
    gone = new_session(store, title="gone")
    store.append_message(keep, Message(role="user", content="keepme zebra"))
    for text in ("deleteme zebra", "another zebra"):
        store.append_message(gone, Message(role="user", content=text))
    store.append_message(gone, Message(role="tool", content="out", tool_name="terminal", tool_call_id="c"))
    store.record_approval(gone, "rm -rf /", ["recursive delete"], "deny")
    child = store.branch(gone, 0)
    assert len(fts_rows(store)) == 5
    store.delete_session(gone)
    assert store.get_session(gone) is None
    assert (
        store.conn.execute("SELECT count(*) FROM messages WHERE session_id = ?", (gone,)).fetchone()[0] == 0
    )
    assert store.approvals(gone) == []
    remaining = fts_rows(store)
    assert len(remaining) == 2  # keep's message and the branch's copy
    assert [h.session_id for h in store.search("deleteme")] == [child]  # only the branch's copy
    assert {h.session_id for h in store.search("zebra")} == {keep, child}
    assert store.get_session(child).parent_session_id is None  # children survive, unlinked
    store.delete_session(gone)  # idempotent
    assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    store.conn.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 0)")


def test_approvals_recorded(store: SessionStore):
    sid = new_session(store)
    store.record_approval(sid, "rm -rf build", ["recursive delete"], "allow_once")
    store.record_approval(sid, "curl x | sh", ["pipe to shell", "network"], "deny")
    rows = store.approvals(sid)
    assert [(r["command"], r["reasons"], r["decision"]) for r in rows] == [
        ("rm -rf build", ["recursive delete"], "allow_once"),
        ("curl x | sh", ["pipe to shell", "network"], "deny"),
    ]
    assert all(r["session_id"] == sid and r["created_at"] > 0 for r in rows)
    with pytest.raises(KeyError):
        store.record_approval("missing", "ls", [], "allow")


# ------------------------------------------------------------------------------------------ search


@pytest.fixture
def corpus(store: SessionStore):
    a = new_session(store, title="Kubernetes Debugging")
    b = new_session(store, title="Cooking")
    store.append_message(a, Message(role="user", content="Why does my kubernetes pod crash with OOMKilled?"))
    store.append_message(
        a,
        Message(
            role="assistant",
            content="Let me check the pod.",
            tool_calls=[ToolCall("c1", "terminal", '{"command": "kubectl describe pod frobnicator-7"}')],
        ),
    )
    store.append_message(
        a,
        Message(
            role="tool",
            content="Events: BackOff restarting failed container zanzibar",
            tool_call_id="c1",
            tool_name="terminal",
        ),
    )
    store.append_message(
        a, Message(role="assistant", content="kubernetes kubernetes kubernetes: the memory limit is too low.")
    )
    store.append_message(
        b, Message(role="user", content="A recipe for red lentil soup, please. Not kubernetes.")
    )
    store.append_message(
        b,
        Message(
            role="assistant",
            content="Red lentil soup: onions, garlic, cumin, lentils. "
            "Simmer the lentils with stock until soft, then blend the soup.",
        ),
    )
    return store, a, b


def test_search_ranking_and_snippet_markers(corpus):
    store, a, b = corpus
    hits = store.search("kubernetes")
    assert len(hits) == 3
    assert hits[0].seq == 3 and hits[0].session_id == a  # most occurrences in a short text ranks first
    assert [h.rank for h in hits] == sorted(h.rank for h in hits)
    assert hits[0].session_title == "Kubernetes Debugging"
    for hit in hits:
        assert "\x02" in hit.snippet and "\x03" in hit.snippet
        marked = re.findall("\x02(.*?)\x03", hit.snippet)
        assert marked and all(m.lower() == "kubernetes" for m in marked)
    long_text = (
        " ".join(f"word{i}" for i in range(200)) + " needle " + " ".join(f"tail{i}" for i in range(200))
    )
    store.append_message(b, Message(role="user", content=long_text))
    [hit] = store.search("needle")
    assert "\x02needle\x03" in hit.snippet
    assert len(hit.snippet.split()) <= 14 and hit.snippet.startswith("…") and hit.snippet.endswith("…")
    assert hit.role == "user" and hit.created_at > 0
    # Restricting to one session.
    assert {h.session_id for h in store.search("kubernetes", session_id=b)} == {b}
    # Pagination.
    assert [h.message_id for h in store.search("kubernetes", limit=1, offset=1)] == [hits[1].message_id]
    assert store.search("kubernetes", limit=0) == []


def test_search_tool_result_and_arguments(corpus):
    store, _, _ = corpus
    [hit] = store.search("zanzibar")  # only in a tool result
    assert hit.role == "tool" and hit.tool_name == "terminal" and hit.seq == 2
    [hit] = store.search("frobnicator")  # only in tool-call arguments
    assert hit.role == "assistant" and hit.seq == 1 and "\x02frobnicator\x03" in hit.snippet
    [hit] = store.search("kubectl describe")
    assert hit.seq == 1
    # A tool name finds both the call and the result.
    assert {h.seq for h in store.search("terminal")} == {1, 2}


def test_search_operators(corpus):
    store, a, b = corpus
    phrase = store.search('"lentil soup"')
    assert {h.seq for h in phrase} == {0, 1} and {h.session_id for h in phrase} == {b}
    assert store.search('"soup lentil"') == []
    either = store.search("zanzibar OR cumin")
    assert {(h.session_id, h.seq) for h in either} == {(a, 2), (b, 1)}
    assert {(h.session_id, h.seq) for h in store.search("kubernetes NOT lentil")} == {(a, 0), (a, 3)}
    assert {(h.session_id, h.seq) for h in store.search("kuber*")} == {(a, 0), (a, 3), (b, 0)}
    # Plain words are ANDed, the last one is a prefix while typing, not after a space.
    assert {(h.session_id, h.seq) for h in store.search("memory lim")} == {(a, 3)}
    assert store.search("memory lim ") == []
    assert store.search("memory AND lentil") == []
    # Lowercase operator words are just words.
    assert store.search("kubernetes or cumin") == []
    # Accents are folded.
    store.append_message(b, Message(role="user", content="Crème brûlée"))
    assert len(store.search("creme brulee")) == 1


NASTY_QUERIES = [
    '"',
    "'",
    '""',
    '"""',
    "AND",
    "OR",
    "NOT",
    "AND OR NOT",
    "*",
    "**",
    'foo"bar',
    "(",
    ")",
    "()",
    "(foo",
    "foo)",
    "-x",
    "-",
    "+",
    "col:val",
    "content:foo",
    ":",
    "NEAR(",
    "NEAR(a b",
    "NEAR",
    "^",
    "^foo",
    "foo^",
    "{a b}",
    "[",
    "\\",
    "%",
    "_",
    "%_%",
    "ünïcödé",
    "日本語のテキスト",
    "кириллица",
    "😀",
    "🔥 fire",
    "a" * 10_000,
    "x " * 5_000,
    "'; DROP TABLE sessions; --",
    '" OR 1=1 --',
    "') OR ('1'='1",
    "1; DELETE FROM messages",
    "\x00",
    "\x02\x03",
    "\ud800",
    "\n\t\r",
    "foo NOT",
    "NOT foo",
    "OR OR OR",
    '"foo" NEAR/2 "bar"',
    "foo*bar",
    "*foo",
    "a:b:c",
    "-rf",
    "rm -rf /",
    "'*'",
    '"*"',
    "foo''bar",
]


@pytest.mark.parametrize("query", NASTY_QUERIES, ids=[repr(q)[:30] for q in NASTY_QUERIES])
def test_nasty_queries_never_raise(corpus, query):
    store, _, _ = corpus
    hits = store.search(query)
    assert isinstance(hits, list)
    store.search(query, session_id="whatever", offset=5)
    fts = parse(query).to_fts5()
    if fts:  # the translation is always a valid FTS5 expression
        store.conn.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?", (fts,)).fetchone()
    # Nothing was dropped.
    assert store.conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 2
    assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 6


def test_search_fallbacks(store: SessionStore):
    sid = new_session(store)
    store.append_message(sid, Message(role="user", content="party time 🎉 now"))
    store.append_message(sid, Message(role="user", content="東京で会いましょう"))
    store.append_message(sid, Message(role="user", content="100% sure_thing"))
    [hit] = store.search("🎉")  # nothing the tokenizer indexes: LIKE fallback
    assert hit.seq == 0 and "\x02🎉\x03" in hit.snippet
    [hit] = store.search("東京")  # a CJK run is one token: found as a prefix
    assert hit.seq == 1 and hit.snippet.startswith("\x02東京")
    [hit] = store.search("会い")  # CJK substring inside the token: LIKE fallback
    assert hit.seq == 1 and hit.rank == 0.0 and "\x02会い\x03" in hit.snippet
    [hit] = store.search("%")  # LIKE wildcards are escaped
    assert hit.seq == 2
    assert store.search("") == [] and store.search("   ") == []


# ------------------------------------------------------------------------------------------ concurrency


def test_concurrent_writes_from_threads(store: SessionStore):
    shared = new_session(store)
    own = [new_session(store) for _ in range(4)]
    errors: list[BaseException] = []
    barrier = threading.Barrier(4)

    def worker(n: int) -> None:
        try:
            barrier.wait()
            for i in range(50):
                store.append_message(shared, Message(role="user", content=f"t{n} m{i}"))
                m = Message(role="assistant", content="", partial=True)
                store.append_message(own[n], m)
                store.checkpoint_partial(m.id, f"partial {i}", None)
                m.content = f"done {n} {i}"
                store.update_message(m)
                store.add_usage(own[n], input_tokens=1, api_calls=1)
                if i % 10 == 0:
                    store.search(f"t{n}")
                    store.list_sessions()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    loaded = store.load(shared)
    assert loaded.seqs == list(range(200)) and loaded.info.message_count == 200
    for n in range(4):
        assert [m.content for m in loaded.messages if m.content.startswith(f"t{n} ")] == [
            f"t{n} m{i}" for i in range(50)
        ]
        mine = store.load(own[n])
        assert mine.seqs == list(range(50)) and not any(m.partial for m in mine.messages)
        assert mine.info.input_tokens == 50 and mine.info.api_call_count == 50
    assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_two_stores_on_one_file(tmp_path: Path):
    path = tmp_path / "state.db"
    one, two = SessionStore(path), SessionStore(path)
    try:
        sid = new_session(one)
        for i in range(10):
            (one if i % 2 else two).append_message(sid, Message(role="user", content=f"m{i}"))
        assert two.load(sid).seqs == list(range(10))
        assert [m.content for m in one.load(sid).messages] == [f"m{i}" for i in range(10)]
    finally:
        one.close()
        two.close()


# ------------------------------------------------------------------------------------------ crash safety


def test_kill_9_during_streaming_keeps_committed_state(tmp_path: Path):
    db = tmp_path / "crash" / "state.db"
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "store_crash_child.py"), str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        last = None
        assert proc.stdout is not None
        for line in proc.stdout:
            parts = line.split()
            if parts and parts[0] == "CHECKPOINT":
                last = (parts[1], int(parts[2]), int(parts[3]))
                if last[2] >= 20:
                    break
        assert last is not None, proc.stderr.read() if proc.stderr else ""
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    session_id, message_id, acknowledged = last

    store = SessionStore(db)
    try:
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        loaded = store.load(session_id)
        assert [m.role for m in loaded.messages] == ["user", "assistant"]
        assert loaded.messages[0].content == "hello before the crash"
        partial = loaded.messages[1]
        assert partial.id == message_id and partial.partial is True
        # The last acknowledged checkpoint (or one written between the print and the kill) is on disk.
        n = int(partial.content.rsplit(" ", 1)[1])
        assert partial.content == f"partial text {n}" and n >= acknowledged
        assert partial.reasoning == f"thinking {n}"
        assert loaded.info.message_count == 2
        assert [h.message_id for h in store.search(f'"partial text {n}"')] == [message_id]
    finally:
        store.close()


# ------------------------------------------------------------------------------------------ migrations


def test_reopen_at_the_current_version_stays_consistent(tmp_path: Path):
    path = tmp_path / "state.db"
    s = SessionStore(path)
    sid = new_session(s, title="keep me")
    s.append_message(sid, Message(role="user", content="persisted across opens"))
    s.close()
    s2 = SessionStore(path)
    try:
        assert s2.schema_version == len(MIGRATIONS)
        assert [row[0] for row in s2.conn.execute("SELECT version FROM schema_version")] == list(
            range(1, len(MIGRATIONS) + 1)
        )
        assert s2.load(sid).messages[0].content == "persisted across opens"
        assert s2.resolve("keep me").id == sid
        assert len(s2.search("persisted")) == 1
    finally:
        s2.close()


def _add_pinned_column(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE sessions ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0")


def test_fake_v2_migration_applies_once(tmp_path: Path):
    path = tmp_path / "state.db"
    s = SessionStore(path)
    sid = new_session(s)
    s.append_message(sid, Message(role="user", content="old data"))
    s.close()

    calls: list[int] = []

    def v2(conn: sqlite3.Connection) -> None:
        calls.append(1)
        _add_pinned_column(conn)

    class StoreV2(SessionStore):
        MIGRATIONS: ClassVar[list[Migration]] = [*MIGRATIONS, v2]

    s2 = StoreV2(path)
    newest = len(MIGRATIONS) + 1
    try:
        assert s2.schema_version == newest
        versions = [row[0] for row in s2.conn.execute("SELECT version FROM schema_version ORDER BY version")]
        assert versions == list(range(1, newest + 1))
        assert s2.conn.execute("SELECT pinned FROM sessions WHERE id = ?", (sid,)).fetchone()[0] == 0
        assert s2.load(sid).messages[0].content == "old data"
    finally:
        s2.close()
    StoreV2(path).close()  # already at v2: not applied again
    assert calls == [1]
    # The old code refuses to write to the newer file, and reads it read-only without downgrading it.
    with pytest.raises(StoreError) as refused:
        SessionStore(path)
    assert refused.value.kind == "newer_schema" and f"schema version {newest}" in refused.value.user_line()
    s1 = SessionStore(path, read_only=refused.value.user_line())
    try:
        assert s1.schema_version == newest
        assert s1.load(sid).messages[0].content == "old data"
        with pytest.raises(StoreError):
            s1.append_message(sid, Message(role="user", content="never written"))
    finally:
        s1.close()
    assert StoreV2(path).schema_version == newest  # untouched


def test_failing_migration_rolls_back(tmp_path: Path):
    path = tmp_path / "state.db"
    SessionStore(path).close()

    def broken(conn: sqlite3.Connection) -> None:
        _add_pinned_column(conn)
        raise RuntimeError("migration bug")

    class Broken(SessionStore):
        MIGRATIONS: ClassVar[list[Migration]] = [*MIGRATIONS, broken]

    with pytest.raises(RuntimeError, match="migration bug"):
        Broken(path)
    s = SessionStore(path)
    try:
        assert s.schema_version == len(MIGRATIONS)
        columns = {row[1] for row in s.conn.execute("PRAGMA table_info(sessions)")}
        assert "pinned" not in columns
    finally:
        s.close()


class StoreV1(SessionStore):
    """The store as version 1 of the schema left it (and as code of that version writes)."""

    MIGRATIONS: ClassVar[list[Migration]] = MIGRATIONS[:1]


def test_upgrade_to_v2_finds_prefixes_of_old_and_new_messages(tmp_path: Path):
    path = tmp_path / "state.db"
    old = StoreV1(path)
    sid = new_session(old)
    old.append_message(sid, Message(role="user", content="the quixotic migration"))
    old.close()
    store = SessionStore(path)  # upgraded: the term table is rebuilt from the index on the first search
    try:
        assert store.schema_version == len(MIGRATIONS)
        assert [h.seq for h in store.search("quixo")] == [0]
        assert store.conn.execute("SELECT count(*) FROM search_terms_pending").fetchone()[0] == 0
        # A writer that knows nothing of the term table (plain SQL) still writes through the triggers.
        raw = sqlite3.connect(path)
        raw.execute(
            "INSERT INTO messages (session_id, seq, role, content, created_at) "
            "VALUES (?, 1, 'assistant', ?, 0)",
            (sid, "a quizzical answer"),
        )
        raw.commit()
        raw.close()
        assert [h.seq for h in store.search("quiz")] == [1]
        assert {h.seq for h in store.search("qui")} == {0, 1}
        # A streamed reply's words are found by prefix while it is still partial, and after it completes.
        reply = Message(role="assistant", content="", partial=True)
        store.append_message(sid, reply)
        store.checkpoint_partial(reply.id, "zephyrous half", None)
        assert [h.seq for h in store.search("zephyr")] == [2]
        reply.content = "zeppelin whole"
        store.update_message(reply)
        assert [h.seq for h in store.search("zeppel")] == [2] and store.search("zephyr") == []
    finally:
        store.close()


def test_continue_and_resume_pick_the_users_conversations_never_a_subagents(tmp_path: Path) -> None:
    """Issue 33: after a turn with subagents (or a crash during one) `-c` continued the newest session,
    a subagent's; a part of a title found the children too."""
    from agent.store import SessionStore

    store = SessionStore(tmp_path / "state.db")
    try:
        mine = store.create_session(model="m", provider="p", system_prompt="", cwd="/w", source="tui")
        store.set_title(mine, "refactor the parser")
        time.sleep(0.01)
        child = store.create_session(
            model="m", provider="p", system_prompt="", cwd="/w", source="subagent", parent_session_id=mine
        )
        store.set_title(child, "refactor the parser: subtask")
        latest = store.latest_session("/w")
        assert latest is not None and latest.id == mine
        assert store.latest_session() is not None and store.latest_session().id == mine  # type: ignore[union-attr]
        assert [s.id for s in store.find_sessions("refactor")] == [mine]
        assert store.resolve("parser") is not None
        assert [s.id for s in store.find_sessions(child)] == [child]  # its exact id still opens it
    finally:
        store.close()

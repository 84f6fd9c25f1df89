"""Quitting mid-turn (issue 20 item 17) and a store the TUI may only read (item 9), driven by Pilot."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from textual.pilot import Pilot

from agent.core.messages import Message
from agent.store import SessionStore
from agent.store.opening import open_store
from hermes_tui.app import HermesApp
from scripted import ScriptedServer
from tests.app.harness import chat, chat_settings, run_chat, submit, wait_for
from widgets.transcript.entries.notice import NoticeEntry
from widgets.transcript.entries.reply import ReplyEntry

SLOW_REPLY = {"text": "word " * 400, "chunk_size": 5, "delay": 0.02}


@pytest.mark.parametrize("how", ["ctrl+q", "/quit"])
async def test_quit_mid_stream_finalizes_the_turn_as_interrupted(
    hermes_home: Path, tmp_path: Path, how: str
) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "talk for a while")
        await wait_for(pilot, lambda: screen.transcript.entries_of(ReplyEntry), what="streaming", timeout=60)
        if how == "ctrl+q":
            await pilot.press("ctrl+q")
        else:
            await submit(pilot, "/quit")
        await wait_for(pilot, lambda: app.return_code is not None, what="exit", timeout=60)

    await run_chat({"name": "slow", "calls": [SLOW_REPLY]}, body, home=hermes_home, cwd=tmp_path)
    store = SessionStore(hermes_home / "tui" / "state.db")
    try:
        (info,) = store.list_sessions()
        reply = store.load(info.id).messages[-1]
        assert info.status == "interrupted"
        assert reply.role == "assistant" and not reply.partial and reply.finish_reason == "interrupted"
        assert reply.content.startswith("word word")
    finally:
        store.close()


async def test_read_only_store_browses_but_refuses_to_send(hermes_home: Path, tmp_path: Path) -> None:
    db = hermes_home / "tui" / "state.db"
    seed = SessionStore(db)
    sid = seed.create_session(model="m", provider="p", cwd=str(tmp_path), system_prompt="s")
    seed.append_message(sid, Message(role="user", content="an old question about wombats"))
    seed.close()
    raw = sqlite3.connect(db)
    raw.execute("INSERT INTO schema_version (version, applied_at) VALUES (42, 0)")
    raw.commit()
    raw.close()
    store = open_store(db)
    assert store.read_only is not None
    with ScriptedServer({"name": "t", "calls": ["never asked"]}) as server:
        app = HermesApp(chat_settings(server, hermes_home, tmp_path), store=store)
        async with app.run_test(size=(120, 32)) as pilot:
            # The notice names the database's path, so it wraps differently per temp dir: read the notices.
            def notices() -> str:
                return "\n".join(n.text for n in chat(app).transcript.entries_of(NoticeEntry))

            await wait_for(
                pilot, lambda: "schema version 42" in notices(), what="read-only notice", timeout=60
            )
            await submit(pilot, "hello")
            await wait_for(pilot, lambda: "Not sent:" in notices(), what="refusal", timeout=60)
            assert server.requests == []
            assert [h.session_id for h in store.search("wombats")] == [sid]
    store.close()
    check = SessionStore(db, read_only="check")
    assert len(check.list_sessions()) == 1 and len(check.load(sid).messages) == 1
    check.close()

"""What the user sees when a reply is not a whole answer, a stream goes quiet, a command fails, or a provider
error ends the turn: the real app on the scripted server, driven with Pilot."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

import agent.transports.base as transport_base
from agent.core.messages import Message, ToolCall
from agent.store import SessionStore
from hermes_tui.app import HermesApp
from hermes_tui.history import records_from_messages
from hermes_tui.screens.sessions.preview import build_preview, fetch_preview
from hermes_tui.screens.sessions.rows import RowStyles, SessionRow
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, screen_text, shown, submit, wait_for
from widgets.transcript.entries.reply import ReplyEntry
from widgets.transcript.entries.tool_call import ToolCallEntry


def _idle(app: HermesApp) -> bool:
    return not chat(app).busy


async def test_a_reply_that_broke_off_is_shown_marked_with_one_error_line(
    hermes_home: Path, tmp_path: Path
) -> None:
    broken = {
        "text": "Here is the first half of",
        "chunk_size": 5,
        "fault": {"kind": "close", "after_chunks": 3},
    }

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "tell me")
        await wait_for(pilot, lambda: "incomplete:" in screen_text(app), what="the marker")
        await wait_for(pilot, lambda: _idle(app), what="turn end")
        await pilot.pause()
        text = screen_text(app)
        assert "Here is the fir" in text
        assert "incomplete: the connection closed before the reply finished" in text
        assert text.count("The connection closed before the reply finished") == 1
        replies = list(chat(app).transcript.entries_of(ReplyEntry))
        assert [r.text for r in replies] == ["Here is the fir"]

    await run_chat({"name": "t", "calls": [broken]}, body, home=hermes_home, cwd=tmp_path, size=(140, 40))


async def test_a_budget_spent_thinking_says_so_once(hermes_home: Path, tmp_path: Path) -> None:
    call = {"reasoning": "Pondering the question for a very long time", "finish_reason": "length"}

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "hard question")
        await wait_for(pilot, lambda: "thinking" in screen_text(app), what="the notice")
        await wait_for(pilot, lambda: _idle(app), what="turn end")
        await pilot.pause()
        text = screen_text(app)
        assert text.count("used its whole output budget thinking") == 1
        assert "raise max_output_tokens" in text
        assert not [r for r in chat(app).transcript.entries_of(ReplyEntry) if r.text.strip()]

    await run_chat({"name": "t", "calls": [call]}, body, home=hermes_home, cwd=tmp_path, size=(140, 40))


async def test_a_rejected_key_shows_its_error_line_once(hermes_home: Path, tmp_path: Path) -> None:
    calls = [{"fault": {"status": 401, "message": "Incorrect API key provided"}}]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "hi")
        await wait_for(pilot, lambda: "API key" in screen_text(app), what="the error line")
        await wait_for(pilot, lambda: _idle(app), what="turn end")
        await pilot.pause()
        assert screen_text(app).count("API key was rejected") == 1

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path, size=(140, 40))


async def test_a_stalled_stream_says_no_data_on_the_spinner_line(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transport_base, "STALL_NOTICE_AFTER", 0.3)  # 15 s in real use
    calls = [{"first_delay": 2.0, "text": "Finally here."}]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        spinner = chat(app).transcript.spinner
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: "no data for" in str(spinner.render()), what="stall notice")
        await wait_for(pilot, lambda: "Finally here." in screen_text(app), what="the reply")
        assert "no data" not in str(spinner.render())

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_the_spinner_counts_the_seconds_without_data() -> None:
    from textual.app import App, ComposeResult

    from widgets.transcript.view import Transcript

    class One(App[None]):
        def compose(self) -> ComposeResult:
            yield Transcript()

    app = One()
    async with app.run_test() as pilot:
        transcript = app.query_one(Transcript)
        spinner = transcript.show_spinner()
        spinner.set_stalled(15.0)
        await pilot.pause()
        assert "no data for 15 s" in str(spinner.render())
        assert any("no data for 15 s" in transcript.render_line(y).text for y in range(5))
        spinner.set_stalled(None)
        assert "no data" not in str(spinner.render())


async def test_a_command_that_exits_non_zero_opens_as_a_failure(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "echo oops; exit 3"}}]},
        {"text": "It failed."},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "run it")
        await wait_for(pilot, lambda: "It failed." in screen_text(app), what="the answer")
        await wait_for(pilot, lambda: _idle(app), what="turn end")
        await pilot.pause()
        panel = chat(app).transcript.entries_of(ToolCallEntry)[0]
        assert panel.expanded, "a failed command opens, like any failed tool"
        await shown(pilot, "✗ exit 3")

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path, size=(140, 40))


# --------------------------------------------------------------------------- reopening and the preview


def test_a_reopened_session_marks_the_reply_that_did_not_finish() -> None:
    kept = Message("assistant", "half of it", meta={"incomplete": "stream_incomplete"})
    records = records_from_messages([Message("user", "q"), kept])
    assert [(r.kind, r.text) for r in records][-1] == (
        "notice",
        "incomplete: the connection closed before the reply finished",
    )


def _session(store: SessionStore) -> str:
    sid = store.create_session(model="m", provider="custom", cwd="/tmp/p", system_prompt="s", title="tools")
    store.append_message(sid, Message("user", "check things"))
    calls = [
        ToolCall(id="c1", name="terminal", arguments='{"command": "false"}'),
        ToolCall(id="c2", name="read_file", arguments='{"path": "a.txt"}'),
    ]
    store.append_message(sid, Message("assistant", "", tool_calls=calls))
    store.append_message(
        sid,
        Message("tool", "[exit code: 1]", tool_call_id="c1", meta={"status": "error", "exit_code": 1}),
    )
    store.append_message(sid, Message("tool", "alpha", tool_call_id="c2", meta={"status": "ok"}))
    for i in range(8):
        store.append_message(sid, Message("user" if i % 2 == 0 else "assistant", f"later {i}"))
    store.record_turn(sid, exit_reason="stream_incomplete", detail="The connection closed.")
    return sid


def test_the_preview_says_how_each_call_ended_even_between_head_and_tail(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state.db")
    try:
        sid = _session(store)
        info = store.resolve(sid)
        assert info is not None
        data = fetch_preview(store, SessionRow(info), None)
        text, _ = build_preview(data, RowStyles(), now=info.updated_at, home=None, current_id=None)
    finally:
        store.close()
    plain = text.plain
    assert "no result" not in plain
    assert "terminal: false  failed: exit 1" in plain
    assert "read_file: a.txt  ok" in plain
    assert "last turn ended: stream_incomplete" in plain


def test_an_export_says_which_reply_did_not_finish(tmp_path: Path) -> None:
    from hermes_tui.export import export_markdown

    store = SessionStore(tmp_path / "state.db")
    try:
        sid = store.create_session(model="m", provider="custom", cwd="/tmp/p", system_prompt="s")
        store.append_message(sid, Message("user", "write it"))
        store.append_message(sid, Message("assistant", "part one", meta={"incomplete": "truncated"}))
        text = export_markdown(store, sid)
    finally:
        store.close()
    assert "part one" in text
    assert "Truncated: the reply is still cut at the output limit." in text

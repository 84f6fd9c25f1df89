"""Sessions across the protocol and the store: Esc (`session/cancel`) mid-stream and mid-tool, a client
that closes stdin mid-turn, `session/load` replaying the earlier turn in a new agent process, resume, fork
and list, and `hermes-tui -r ID -z` continuing an ACP session with its history on the wire.

Cancels and a session made elsewhere share the module's agent (`shared_agent`); what is about the process
(a session loaded or resumed in a new one, the end of stdin, SIGTERM, the CLI continuing a session the agent
had) starts its own."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from acp import text_block

from scripted import ScriptedServer
from tests.acp.harness import (
    ROOT,
    Recorder,
    agent_env,
    running_agent,
    stored_messages,
    stored_sessions,
    write_home,
)
from tests.acp.shared_agent import SharedAgent
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

SLOW_TEXT = "word " * 400  # 2,000 characters at 4 a chunk every 0.05 s: 25 s unless cancelled


def _slow(match: str | None = None) -> dict[str, object]:
    call: dict[str, object] = {"text": SLOW_TEXT, "chunk_size": 4, "delay": 0.05}
    if match:
        call["match"] = match
    return call


async def test_cancel_mid_stream_answers_cancelled_and_keeps_the_partial_reply(
    shared_agent: SharedAgent, tmp_path: Path
) -> None:
    conn, client = shared_agent.play({"name": "cancel", "calls": [_slow(), {"text": "Second answer."}]})
    sid = (await conn.new_session(cwd=str(tmp_path))).session_id
    turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("talk")]))
    await client.wait_for(lambda: client.text(sid), "the first chunk")
    asked = time.monotonic()
    await conn.cancel(session_id=sid)
    response = await turn
    answered = time.monotonic() - asked
    assert response.stop_reason == "cancelled"
    # Answered long before the stream (25 s) would have ended: the stream was dropped, not waited out.
    assert answered < 10, answered
    shown = client.text(sid)
    again = await conn.prompt(session_id=sid, prompt=[text_block("go on")])
    assert again.stop_reason == "end_turn"
    assert client.text(sid).endswith("Second answer.")
    messages = stored_messages(shared_agent.home, sid)
    partial = next(m for m in messages if m.role == "assistant")
    assert partial.finish_reason == "interrupted"
    assert partial.content and SLOW_TEXT.startswith(partial.content)
    assert shown.startswith(partial.content[: len(shown) // 2])
    assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]


def _running(marker: str) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in cmdline and "pytest" not in cmdline:
                pids.append(int(entry))
    return pids


async def test_cancel_kills_the_running_tool(shared_agent: SharedAgent, tmp_path: Path) -> None:
    marker = f"sleep {37 + (os.getpid() % 1000) / 1000:.3f}"
    scenario = {
        "name": "tool",
        "calls": [{"tool_calls": [{"name": "terminal", "arguments": {"command": marker}}]}, {"text": "next"}],
    }
    conn, client = shared_agent.play(scenario)
    sid = (await conn.new_session(cwd=str(tmp_path))).session_id
    turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("wait")]))
    await client.wait_for(lambda: _running(marker), "the command running")
    await conn.cancel(session_id=sid)
    assert (await turn).stop_reason == "cancelled"
    wait_until(lambda: not _running(marker), "the command killed", seen=lambda: _running(marker))
    assert (await conn.prompt(session_id=sid, prompt=[text_block("and now")])).stop_reason == "end_turn"
    roles = [m.role for m in stored_messages(shared_agent.home, sid)]
    assert roles[:3] == ["user", "assistant", "tool"]  # the call has its result: the transcript is valid


async def test_stdin_closed_mid_turn_stops_the_turn_and_exits_cleanly(tmp_path: Path) -> None:
    with ScriptedServer({"name": "eof", "calls": [_slow()]}) as server:
        home = write_home(tmp_path, server)
        async with running_agent(home, tmp_path) as (conn, proc, client):
            sid = (await conn.new_session(cwd=str(tmp_path))).session_id
            turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("talk")]))
            await client.wait_for(lambda: client.text(sid), "the first chunk")
            assert proc.stdin is not None
            proc.stdin.close()
            code = await asyncio.wait_for(proc.wait(), 30)
            turn.cancel()
        assert code == 0
        assert "Traceback" not in (home / "stderr.txt").read_text()
        partial = next(m for m in stored_messages(home, sid) if m.role == "assistant")
        assert partial.finish_reason == "interrupted" and partial.content


async def test_load_replays_the_earlier_turn_in_a_new_process(tmp_path: Path) -> None:
    scenario = {
        "name": "load",
        "calls": [
            {
                "reasoning": "thinking it over",
                "text": "Let me look.",
                "tool_calls": [{"name": "terminal", "arguments": {"command": "echo looked"}}],
            },
            {"text": "First answer."},
            {"text": "Second answer."},
        ],
    }
    with ScriptedServer(scenario) as server:
        home = write_home(tmp_path, server)
        async with running_agent(home, tmp_path) as (conn, _proc, _client):
            sid = (await conn.new_session(cwd=str(tmp_path))).session_id
            await conn.prompt(session_id=sid, prompt=[text_block("first question")])
        async with running_agent(home, tmp_path) as (conn, _proc, client):
            await conn.load_session(cwd=str(tmp_path), session_id=sid)
            replayed = list(client.kinds(sid))  # everything before the answer to session/load
            assert replayed[:4] == [
                "user_message_chunk",
                "agent_thought_chunk",
                "agent_message_chunk",
                "tool_call",
            ]
            assert client.of(sid, "user_message_chunk")[0].content.text == "first question"
            assert client.text(sid) == "Let me look.First answer."
            [update] = client.of(sid, "tool_call_update")
            assert update.status == "completed" and "looked" in update.content[-1].content.text
            response = await conn.prompt(session_id=sid, prompt=[text_block("second question")])
            assert response.stop_reason == "end_turn"
        wire = [m.get("content") for m in server.requests[-1].body["messages"]]
        assert "first question" in wire and "First answer." in wire and "second question" in wire


async def test_list_resume_and_fork(tmp_path: Path) -> None:
    scenario = {"name": "fork", "calls": [{"text": "One."}, {"text": "Two."}, {"text": "Three."}]}
    with ScriptedServer(scenario) as server:
        home = write_home(tmp_path, server)
        async with running_agent(home, tmp_path) as (conn, _proc, client):
            sid = (await conn.new_session(cwd=str(tmp_path))).session_id
            await conn.prompt(session_id=sid, prompt=[text_block("the original")])
            listed = await conn.list_sessions(cwd=str(tmp_path))
            assert [(s.session_id, s.title) for s in listed.sessions] == [(sid, "the original")]
            forked = await conn.fork_session(cwd=str(tmp_path), session_id=sid)
            assert forked.session_id != sid
            await conn.prompt(session_id=forked.session_id, prompt=[text_block("in the fork")])
        async with running_agent(home, tmp_path) as (conn, _proc, client):
            await conn.resume_session(cwd=str(tmp_path), session_id=sid)
            assert client.of(sid, "user_message_chunk") == []  # resume does not replay
            await conn.prompt(session_id=sid, prompt=[text_block("back in the original")])
        original = [m.content for m in stored_messages(home, sid)]
        fork = [m.content for m in stored_messages(home, forked.session_id)]
        assert original == ["the original", "One.", "back in the original", "Three."]
        assert fork == ["the original", "One.", "in the fork", "Two."]


async def test_an_acp_session_is_a_store_session_the_cli_continues(tmp_path: Path) -> None:
    scenario = {"name": "store", "calls": [{"text": "Stored answer."}, {"text": "Continued."}]}
    with ScriptedServer(scenario) as server:
        home = write_home(tmp_path, server)
        async with running_agent(home, tmp_path) as (conn, _proc, _client):
            sid = (await conn.new_session(cwd=str(tmp_path))).session_id
            await conn.prompt(session_id=sid, prompt=[text_block("remember this")])
        [info] = stored_sessions(home)
        assert (info.id, info.source, info.title) == (sid, "acp", "remember this")
        proc = subprocess.run(
            [sys.executable, "-m", "hermes_tui.cli", "-r", sid, "-z", "and then?"],
            cwd=tmp_path,
            env={**agent_env(home), "PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=90,
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "Continued."
        wire = [m.get("content") for m in server.requests[-1].body["messages"]]
        assert wire[1:] == ["remember this", "Stored answer.", "and then?"]


async def test_sigterm_mid_tool_ends_in_order(tmp_path: Path) -> None:
    """An editor closing the agent with SIGTERM: the turn stops, the command it ran is killed, the session
    is kept (its call has a result), exit 128+15."""
    marker = f"sleep {41 + (os.getpid() % 1000) / 1000:.3f}"
    scenario = {
        "name": "term",
        "calls": [{"tool_calls": [{"name": "terminal", "arguments": {"command": marker}}]}],
    }
    with ScriptedServer(scenario) as server:
        home = write_home(tmp_path, server)
        async with running_agent(home, tmp_path) as (conn, proc, client):
            sid = (await conn.new_session(cwd=str(tmp_path))).session_id
            turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("wait")]))
            await client.wait_for(lambda: _running(marker), "the command running")
            proc.terminate()
            code = await asyncio.wait_for(proc.wait(), 30)
            turn.cancel()
        assert code == 128 + 15
        wait_until(lambda: not _running(marker), "the command killed", seen=lambda: _running(marker))
        assert [m.role for m in stored_messages(home, sid)][:3] == ["user", "assistant", "tool"]
        assert "Traceback" not in (home / "stderr.txt").read_text()


async def test_a_tui_session_continues_in_the_editor(shared_agent: SharedAgent, tmp_path: Path) -> None:
    """The editor's agent (running before the session existed) loads what `hermes-tui -z` made."""
    scenario = {"name": "tui", "calls": [{"text": "From the terminal."}, {"text": "From the editor."}]}
    conn, client = shared_agent.play(scenario)
    home = shared_agent.home
    made = subprocess.run(
        [sys.executable, "-m", "hermes_tui.cli", "-z", "started in a terminal"],
        cwd=tmp_path,
        env={**agent_env(home), "PATH": os.environ["PATH"]},
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert made.returncode == 0, made.stderr
    [info] = stored_sessions(home, cwd=tmp_path)  # this test's: the home is the module's
    await conn.load_session(cwd=str(tmp_path), session_id=info.id)
    assert client.text(info.id) == "From the terminal."
    await conn.prompt(session_id=info.id, prompt=[text_block("and in the editor")])
    assert [m.content for m in stored_messages(home, info.id)] == [
        "started in a terminal",
        "From the terminal.",
        "and in the editor",
        "From the editor.",
    ]


async def test_cancel_while_a_permission_waits_denies_and_ends_the_turn(
    shared_agent: SharedAgent, tmp_path: Path
) -> None:
    victim = tmp_path / "keep-me"
    victim.mkdir()
    scenario = {
        "name": "asked",
        "calls": [{"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {victim}"}}]}],
    }
    never = asyncio.Event()

    class Silent(Recorder):
        async def request_permission(self, session_id, tool_call, options, **kwargs):  # type: ignore[no-untyped-def]
            self.permissions.append(None)  # type: ignore[arg-type]
            await never.wait()  # the user looks away; the editor's Esc comes instead

    conn, client = shared_agent.play(scenario, Silent())
    sid = (await conn.new_session(cwd=str(tmp_path))).session_id
    turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("clean")]))
    await client.wait_for(lambda: client.permissions, "the question")
    await conn.cancel(session_id=sid)
    assert (await turn).stop_reason == "cancelled"
    assert victim.is_dir()

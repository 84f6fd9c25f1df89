"""Several editor threads in one agent process: two prompts at once each get their own answer, in their own
folder; one's cancel leaves the other running; "this session" approvals, the plan and the editor's MCP
servers belong to the session that has them.

They share the module's agent (`shared_agent`), but for the user's configured servers (its own config). The
editor's MCP server is the fixture server on stdio (started by the agent for that session); the user's
configured one is the worker's shared fixture server on streamable HTTP (`mcp_http`)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from acp import text_block
from acp.schema import McpServerStdio

from scripted import ScriptedServer
from tests.acp.harness import Recorder, running_agent, write_home
from tests.acp.shared_agent import SharedAgent
from tests.mcp_servers import FIXTURE

pytestmark = pytest.mark.slow


async def test_two_sessions_prompted_at_once_each_get_their_own_answer(
    shared_agent: SharedAgent, tmp_path: Path
) -> None:
    alpha_dir, beta_dir = tmp_path / "alpha", tmp_path / "beta"
    alpha_dir.mkdir()
    beta_dir.mkdir()
    scenario = {
        "name": "two",
        "calls": [
            {"match": "alpha", "text": "Alpha " * 100, "chunk_size": 6, "delay": 0.05},
            {"match": "beta", "tool_calls": [{"name": "terminal", "arguments": {"command": "pwd"}}]},
            {"match": "beta", "text": "Beta done."},
        ],
    }
    conn, client = shared_agent.play(scenario)
    alpha = (await conn.new_session(cwd=str(alpha_dir))).session_id
    beta = (await conn.new_session(cwd=str(beta_dir))).session_id
    first = asyncio.ensure_future(conn.prompt(session_id=alpha, prompt=[text_block("alpha: talk")]))
    second = asyncio.ensure_future(conn.prompt(session_id=beta, prompt=[text_block("beta: where?")]))
    await client.wait_for(lambda: client.text(alpha), "alpha streaming")
    await conn.cancel(session_id=alpha)  # one's Esc
    assert (await first).stop_reason == "cancelled"
    assert (await second).stop_reason == "end_turn"  # the other goes on
    assert client.text(beta) == "Beta done."
    assert set(client.text(alpha).split()) == {"Alpha"}
    [pwd] = [u for u in client.of(beta, "tool_call_update") if u.status == "completed"]
    assert str(beta_dir) in pwd.content[-1].content.text
    assert not client.of(alpha, "tool_call")


async def test_session_approvals_are_the_sessions_own(shared_agent: SharedAgent, tmp_path: Path) -> None:
    victim = tmp_path / "gone"
    scenario = {
        "name": "approvals",
        "calls": [
            {
                "match": "one",
                "tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {victim}"}}],
            },
            {"match": "one", "text": "one done"},
            {
                "match": "two",
                "tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {victim}"}}],
            },
            {"match": "two", "text": "two done"},
        ],
    }
    conn, client = shared_agent.play(scenario, Recorder(answer=lambda p: "session"))
    one = (await conn.new_session(cwd=str(tmp_path))).session_id
    two = (await conn.new_session(cwd=str(tmp_path))).session_id
    await conn.prompt(session_id=one, prompt=[text_block("one")])
    await conn.prompt(session_id=two, prompt=[text_block("two")])
    assert [p.session_id for p in client.permissions] == [one, two]  # "this session" did not leak


async def test_an_editors_mcp_server_is_offered_to_its_session_only(
    shared_agent: SharedAgent, tmp_path: Path
) -> None:
    scenario = {
        "name": "mcp",
        "calls": [{"match": "with", "text": "with"}, {"match": "without", "text": "without"}],
    }
    fixture = McpServerStdio(name="fx", command=sys.executable, args=[str(FIXTURE), "stdio"], env=[])
    conn, _client = shared_agent.play(scenario)
    with_mcp = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[fixture])).session_id
    without = (await conn.new_session(cwd=str(tmp_path))).session_id
    await asyncio.gather(
        conn.prompt(session_id=with_mcp, prompt=[text_block("with")]),
        conn.prompt(session_id=without, prompt=[text_block("without")]),
    )
    offered = {}
    for request in shared_agent.server.requests:
        if request.path.endswith("/chat/completions"):
            first = next(m["content"] for m in request.body["messages"] if m["role"] == "user")
            offered[first] = {t["function"]["name"] for t in request.body.get("tools", [])}
    assert "mcp_fx_echo" in offered["with"]
    assert not any(name.startswith("mcp_fx_") for name in offered["without"])


async def test_the_users_configured_servers_are_every_sessions(tmp_path: Path, mcp_http: str) -> None:
    """`mcp_servers` of config.yaml: connected once for the process, offered to each session from its
    first prompt (a session is built once they connected)."""
    scenario = {"name": "mcp", "calls": [{"match": "one", "text": "1"}, {"match": "two", "text": "2"}]}
    with ScriptedServer(scenario) as server:
        home = write_home(tmp_path, server)
        config = home / "config.yaml"
        config.write_text(config.read_text() + f"mcp_servers:\n  mine:\n    url: {mcp_http}\n")
        async with running_agent(home, tmp_path) as (conn, _proc, _client):
            one = (await conn.new_session(cwd=str(tmp_path))).session_id
            two = (await conn.new_session(cwd=str(tmp_path))).session_id
            await conn.prompt(session_id=one, prompt=[text_block("one")])
            await conn.prompt(session_id=two, prompt=[text_block("two")])
        offered = [
            {t["function"]["name"] for t in request.body.get("tools", [])}
            for request in server.requests
            if request.path.endswith("/chat/completions")
        ]
        assert len(offered) == 2 and all("mcp_mine_echo" in names for names in offered)


async def test_an_editors_server_that_cannot_start_is_said_once(
    shared_agent: SharedAgent, tmp_path: Path
) -> None:
    broken = McpServerStdio(name="broken", command=str(tmp_path / "no-such-server"), args=[], env=[])
    conn, client = shared_agent.play({"name": "none", "calls": [{"text": "fine"}]})
    sid = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[broken])).session_id
    await client.wait_for(lambda: "broken" in client.text(sid), "the failure said")
    assert (await conn.prompt(session_id=sid, prompt=[text_block("hi")])).stop_reason == "end_turn"
    assert client.text(sid).count("MCP server 'broken' is not available") == 1


async def test_two_sessions_asking_at_once_each_get_their_own_answer(
    shared_agent: SharedAgent, tmp_path: Path
) -> None:
    """Both turns wait on a permission at the same moment; one is allowed, the other denied."""
    kept, gone = tmp_path / "kept", tmp_path / "gone"
    kept.mkdir()
    gone.mkdir()
    scenario = {
        "name": "asks",
        "calls": [
            {
                "match": "keep",
                "tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {kept}"}}],
            },
            {"match": "keep", "text": "kept"},
            {
                "match": "drop",
                "tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {gone}"}}],
            },
            {"match": "drop", "text": "dropped"},
        ],
    }
    both_asked = asyncio.Event()
    waiting: list[str] = []

    class Both(Recorder):
        async def request_permission(self, session_id, tool_call, options, **kwargs):  # type: ignore[no-untyped-def]
            waiting.append(session_id)
            if len(waiting) == 2:
                both_asked.set()
            await asyncio.wait_for(both_asked.wait(), 30)  # neither is answered before both asked
            return await super().request_permission(session_id, tool_call, options, **kwargs)

    both = Both(answer=lambda p: "deny" if str(kept) in (p.tool_call.title or "") else "once")
    conn, client = shared_agent.play(scenario, both)
    keep = (await conn.new_session(cwd=str(tmp_path))).session_id
    drop = (await conn.new_session(cwd=str(tmp_path))).session_id
    answers = await asyncio.gather(
        conn.prompt(session_id=keep, prompt=[text_block("keep")]),
        conn.prompt(session_id=drop, prompt=[text_block("drop")]),
    )
    assert [a.stop_reason for a in answers] == ["end_turn", "end_turn"]
    assert sorted(waiting) == sorted([keep, drop])
    assert kept.is_dir() and not gone.exists()
    assert client.text(keep) == "kept" and client.text(drop) == "dropped"

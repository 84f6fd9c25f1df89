"""The editor's mode selector is the engine's permission modes: plan refuses an edit without a question,
ask asks before one (with its diff), `/mode` switches and says so, and a session keeps its mode across a
`session/load` in a new agent process (which starts its own agents; the rest shares the module's)."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import text_block

from scripted import ScriptedServer
from tests.acp.harness import Recorder, running_agent, write_home
from tests.acp.shared_agent import SharedAgent

pytestmark = pytest.mark.slow


def _write(name: str, match: str) -> dict[str, object]:
    return {
        "match": match,
        "tool_calls": [{"name": "write_file", "arguments": {"path": name, "content": "hi\n"}}],
    }


async def test_plan_refuses_an_edit_and_ask_asks_for_it(shared_agent: SharedAgent, tmp_path: Path) -> None:
    scenario = {
        "name": "modes",
        "calls": [
            _write("planned.txt", "plan it"),
            {"match": "plan it", "text": "Here is my plan."},
            _write("asked.txt", "ask me"),
            {"match": "ask me", "text": "Written."},
        ],
    }
    conn, client = shared_agent.play(scenario, Recorder(answer=lambda _p: "once"))
    planned = (await conn.new_session(cwd=str(tmp_path))).session_id
    await conn.set_session_mode(session_id=planned, mode_id="plan")
    await conn.prompt(session_id=planned, prompt=[text_block("plan it")])
    assert not (tmp_path / "planned.txt").exists() and client.permissions == []
    asked = (await conn.new_session(cwd=str(tmp_path))).session_id
    await conn.set_session_mode(session_id=asked, mode_id="ask")
    await conn.prompt(session_id=asked, prompt=[text_block("ask me")])
    assert (tmp_path / "asked.txt").read_text() == "hi\n"
    [question] = client.permissions
    assert question.session_id == asked
    assert question.tool_call.content[0].type == "diff"


async def test_mode_command_and_the_mode_kept_by_the_session(tmp_path: Path) -> None:
    with ScriptedServer({"name": "none", "calls": []}) as server:
        home = write_home(tmp_path, server)
        async with running_agent(home, tmp_path) as (conn, _proc, client):
            sid = (await conn.new_session(cwd=str(tmp_path))).session_id
            await conn.prompt(session_id=sid, prompt=[text_block("/mode ask")])
            assert "Permission mode: ask" in client.text(sid)
            assert [u.current_mode_id for u in client.of(sid, "current_mode_update")] == ["ask"]
            await conn.prompt(session_id=sid, prompt=[text_block("/mode sideways")])
            assert "unknown permission mode 'sideways'" in client.text(sid)
        async with running_agent(home, tmp_path) as (conn, _proc, _client):
            loaded = await conn.load_session(cwd=str(tmp_path), session_id=sid)
            assert loaded.modes is not None and loaded.modes.current_mode_id == "ask"

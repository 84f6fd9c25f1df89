"""A turn as an editor sees it: `hermes-tui acp` in a subprocess, the SDK's client over its pipes, the
scripted server as the model (the issue's acceptance: chunks and `end_turn`, a tool call and its completed
update with output, a risky command asked and left unrun when rejected, reasoning, the plan, an edit's diff,
clarify as a choice, the stop reasons).

Most share the module's agent (`shared_agent`); those with their own settings (`max_retries`,
`max_iterations`) or client capabilities (forms, declared at `initialize`) start their own."""

from __future__ import annotations

import base64
from pathlib import Path

import acp
import pytest
from acp import text_block
from acp.schema import ToolCallProgress, ToolCallStart

from scripted import ScriptedServer
from tests.acp.harness import Recorder, running_agent, stored_sessions, write_home
from tests.acp.shared_agent import SharedAgent

pytestmark = pytest.mark.slow


async def test_a_prompt_streams_chunks_and_ends_the_turn(shared_agent: SharedAgent, tmp_path: Path) -> None:
    scenario = {
        "name": "hi",
        "calls": [{"reasoning": "The user greets me.", "text": "Hello from the scripted model."}],
    }
    conn, client = shared_agent.play(scenario)
    session = await conn.new_session(cwd=str(tmp_path))
    response = await conn.prompt(session_id=session.session_id, prompt=[text_block("hello")])
    assert response.stop_reason == "end_turn"
    assert response.usage is not None and response.usage.output_tokens > 0
    sid = session.session_id
    assert client.text(sid) == "Hello from the scripted model."
    assert [u.title for u in client.of(sid, "session_info_update")] == ["hello"]
    assert len(client.of(sid, "agent_message_chunk")) >= 1
    assert client.thought(sid) == "The user greets me."
    stored = stored_sessions(shared_agent.home, cwd=tmp_path)  # this test's: the home is the module's
    assert [s.id for s in stored if s.source == "acp"] == [sid]  # the store's id
    assert next(s for s in stored if s.id == sid).title == "hello"


async def test_a_tool_call_then_its_completed_update_with_output(
    shared_agent: SharedAgent, tmp_path: Path
) -> None:
    scenario = {
        "name": "tool",
        "calls": [
            {
                "text": "Looking.",
                "tool_calls": [{"name": "terminal", "arguments": {"command": "echo out-of-tool"}}],
            },
            {"text": "Done."},
        ],
    }
    conn, client = shared_agent.play(scenario)
    sid = (await conn.new_session(cwd=str(tmp_path))).session_id
    response = await conn.prompt(session_id=sid, prompt=[text_block("run it")])
    assert response.stop_reason == "end_turn"
    started = [u for u in client.of(sid, "tool_call") if isinstance(u, ToolCallStart)]
    assert len(started) == 1
    call = started[0]
    assert call.kind == "execute" and "echo out-of-tool" in call.title
    assert call.raw_input["command"] == "echo out-of-tool"
    updates = [u for u in client.of(sid, "tool_call_update") if u.tool_call_id == call.tool_call_id]
    final = updates[-1]
    assert final.status == "completed"
    assert "out-of-tool" in final.content[-1].content.text
    kinds = client.kinds(sid)
    assert kinds.index("tool_call") < max(i for i, k in enumerate(kinds) if k == "tool_call_update")
    assert client.text(sid) == "Looking.Done."


def _risky(victim: Path) -> dict[str, object]:
    return {
        "name": "risky",
        "calls": [
            {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {victim}"}}]},
            {"text": "Finished."},
        ],
    }


async def test_a_rejected_risky_command_is_not_run(shared_agent: SharedAgent, tmp_path: Path) -> None:
    victim = tmp_path / "keep-me"
    victim.mkdir()
    conn, client = shared_agent.play(_risky(victim), Recorder(answer=lambda _p: "deny"))
    sid = (await conn.new_session(cwd=str(tmp_path))).session_id
    response = await conn.prompt(session_id=sid, prompt=[text_block("clean up")])
    assert response.stop_reason == "end_turn"
    assert victim.is_dir(), "the rejected command ran"
    [asked] = client.permissions
    assert f"rm -rf {victim}" in asked.tool_call.title
    assert [o.option_id for o in asked.options] == ["once", "session", "always", "deny"]
    assert [o.kind for o in asked.options] == ["allow_once", "allow_always", "allow_always", "reject_once"]
    started = client.of(sid, "tool_call")[0]
    assert asked.tool_call.tool_call_id == started.tool_call_id  # the question is about that call
    final = [u for u in client.of(sid, "tool_call_update") if u.tool_call_id == started.tool_call_id][-1]
    assert final.status == "failed"


async def test_a_client_that_answers_cancelled_denies(shared_agent: SharedAgent, tmp_path: Path) -> None:
    victim = tmp_path / "keep-me"
    victim.mkdir()
    conn, client = shared_agent.play(_risky(victim), Recorder(answer=lambda _p: None))
    sid = (await conn.new_session(cwd=str(tmp_path))).session_id
    await conn.prompt(session_id=sid, prompt=[text_block("clean up")])
    assert len(client.permissions) == 1
    assert victim.is_dir()


async def test_allowed_once_runs_and_session_approval_is_remembered(
    shared_agent: SharedAgent, tmp_path: Path
) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    scenario = {
        "name": "twice",
        "calls": [
            {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {first}"}}]},
            {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {first}"}}]},
            {"text": "ok"},
        ],
    }
    conn, client = shared_agent.play(scenario, Recorder(answer=lambda _p: "session"))
    sid = (await conn.new_session(cwd=str(tmp_path))).session_id
    await conn.prompt(session_id=sid, prompt=[text_block("go")])
    assert not first.exists()
    assert len(client.permissions) == 1, "the second identical command was asked again"


async def test_the_todo_tool_is_the_plan_and_an_edit_is_a_diff(
    shared_agent: SharedAgent, tmp_path: Path
) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("old line\n")
    todos = [
        {"id": "1", "content": "Read", "status": "completed"},
        {"id": "2", "content": "Write", "status": "in_progress"},
        {"id": "3", "content": "Dropped", "status": "cancelled"},
    ]
    scenario = {
        "name": "plan",
        "calls": [
            {"tool_calls": [{"name": "todo", "arguments": {"todos": todos}}]},
            {
                "tool_calls": [
                    {
                        "name": "patch",
                        "arguments": {
                            "path": "notes.txt",
                            "old_string": "old line",
                            "new_string": "new line",
                        },
                    }
                ]
            },
            {"text": "Edited."},
        ],
    }
    conn, client = shared_agent.play(scenario)
    sid = (await conn.new_session(cwd=str(tmp_path))).session_id
    await conn.set_session_mode(session_id=sid, mode_id="yolo")  # the session's own: the home is shared
    response = await conn.prompt(session_id=sid, prompt=[text_block("edit notes")])
    assert response.stop_reason == "end_turn"
    assert target.read_text() == "new line\n"
    [plan] = client.of(sid, "plan")
    assert [(e.content, e.status) for e in plan.entries] == [
        ("Read", "completed"),
        ("Write", "in_progress"),
        ("(cancelled) Dropped", "completed"),
    ]
    edit = next(u for u in client.of(sid, "tool_call") if u.kind == "edit")
    assert edit.locations[0].path == str(target)
    diff = edit.content[0]
    assert (diff.type, diff.path, diff.old_text, diff.new_text) == (
        "diff",
        str(target),
        "old line",
        "new line",
    )
    final = [u for u in client.of(sid, "tool_call_update") if u.tool_call_id == edit.tool_call_id][-1]
    assert isinstance(final, ToolCallProgress) and final.status == "completed"
    assert final.content[0].type == "diff"


async def test_clarify_with_choices_is_a_permission_choice(shared_agent: SharedAgent, tmp_path: Path) -> None:
    scenario = {
        "name": "clarify",
        "calls": [
            {
                "tool_calls": [
                    {"name": "clarify", "arguments": {"question": "Which one?", "choices": ["Red", "Blue"]}}
                ]
            },
            {"text": "You chose."},
        ],
    }
    blue = Recorder(answer=lambda p: next(o.option_id for o in p.options if o.name == "Blue"))
    conn, client = shared_agent.play(scenario, blue)
    sid = (await conn.new_session(cwd=str(tmp_path))).session_id
    await conn.prompt(session_id=sid, prompt=[text_block("ask me")])
    [asked] = client.permissions
    assert asked.tool_call.title == "Which one?"
    assert [o.name for o in asked.options] == ["Red", "Blue", "Skip"]
    tool_result = shared_agent.server.requests[-1].body["messages"][-1]
    assert tool_result["role"] == "tool" and "Blue" in tool_result["content"]


@pytest.mark.parametrize(
    ("call", "settings", "expected"),
    [
        ({"text": "cut", "finish_reason": "length"}, "max_retries: 0\n", "max_tokens"),
        ({"text": "", "finish_reason": "content_filter"}, "max_retries: 0\n", "refusal"),
    ],
)
async def test_stop_reasons(tmp_path: Path, call: dict[str, object], settings: str, expected: str) -> None:
    scenario = {"name": "stop", "calls": [call] * 6}
    with ScriptedServer(scenario) as server:
        home = write_home(tmp_path, server, settings)
        async with running_agent(home, tmp_path) as (conn, _proc, _client):
            sid = (await conn.new_session(cwd=str(tmp_path))).session_id
            response = await conn.prompt(session_id=sid, prompt=[text_block("go")])
    assert response.stop_reason == expected


async def test_the_iteration_budget_is_max_turn_requests(tmp_path: Path) -> None:
    loop_call = {"tool_calls": [{"name": "terminal", "arguments": {"command": "echo again"}}]}
    scenario = {"name": "budget", "calls": [loop_call, {"text": "Summary."}]}
    with ScriptedServer(scenario) as server:
        home = write_home(tmp_path, server, "max_iterations: 1\n")
        async with running_agent(home, tmp_path) as (conn, _proc, _client):
            sid = (await conn.new_session(cwd=str(tmp_path))).session_id
            response = await conn.prompt(session_id=sid, prompt=[text_block("loop")])
    assert response.stop_reason == "max_turn_requests"


TYPED = {
    "name": "typed",
    "calls": [
        {"tool_calls": [{"name": "clarify", "arguments": {"question": "What is the file called?"}}]},
        {"text": "Thanks."},
    ],
}


async def test_clarify_without_choices_is_a_form_when_the_client_has_forms(tmp_path: Path) -> None:
    """Its own agent: forms are a client capability, declared once per connection (`initialize`)."""
    with ScriptedServer(TYPED) as server:
        home = write_home(tmp_path, server)
        client = Recorder(typed="notes.md")
        async with running_agent(home, tmp_path, client, forms=True) as (conn, _proc, _client):
            sid = (await conn.new_session(cwd=str(tmp_path))).session_id
            assert (await conn.prompt(session_id=sid, prompt=[text_block("ask")])).stop_reason == "end_turn"
        tool_result = server.requests[-1].body["messages"][-1]["content"]
    assert client.elicited == ["What is the file called?"]
    assert "notes.md" in tool_result
    assert client.permissions == []


async def test_clarify_without_choices_is_no_form_when_the_client_has_none(
    shared_agent: SharedAgent, tmp_path: Path
) -> None:
    """The shared agent's client declares no forms."""
    conn, client = shared_agent.play(TYPED, Recorder(typed="notes.md"))
    sid = (await conn.new_session(cwd=str(tmp_path))).session_id
    assert (await conn.prompt(session_id=sid, prompt=[text_block("ask")])).stop_reason == "end_turn"
    tool_result = shared_agent.server.requests[-1].body["messages"][-1]["content"]
    assert client.elicited == []
    assert "notes.md" not in tool_result
    assert client.permissions == []


async def test_a_prompt_with_an_image_an_embedded_file_and_a_linked_file(
    shared_agent: SharedAgent, tmp_path: Path
) -> None:
    """What an editor attaches: an image goes with the message, an embedded file and a link to a local file
    are attached as `@file` attaches them (fenced, named); a bad image is one line, the rest still goes."""
    from PIL import Image

    picture = tmp_path / "dot.png"
    Image.new("RGB", (4, 4), "red").save(picture)
    linked = tmp_path / "linked.py"
    linked.write_text("print('linked file body')\n")
    conn, client = shared_agent.play({"name": "attach", "calls": [{"text": "Seen."}]})
    sid = (await conn.new_session(cwd=str(tmp_path))).session_id
    blocks = [
        text_block("look at these"),
        acp.image_block(base64.b64encode(picture.read_bytes()).decode(), "image/png"),
        acp.image_block("not base64 at all!", "image/png"),
        acp.resource_block(acp.embedded_text_resource("file:///src/embedded.txt", "embedded body")),
        acp.resource_link_block("linked.py", linked.as_uri()),
    ]
    response = await conn.prompt(session_id=sid, prompt=blocks)
    assert response.stop_reason == "end_turn"
    assert "an image was not attached" in client.text(sid)
    user = next(m for m in shared_agent.server.requests[-1].body["messages"] if m["role"] == "user")
    parts = (
        user["content"] if isinstance(user["content"], list) else [{"type": "text", "text": user["content"]}]
    )
    text = "".join(p.get("text", "") for p in parts)
    assert text.startswith("look at these")
    assert "embedded body" in text and "/src/embedded.txt" in text
    assert "linked file body" in text and str(linked) in text
    assert sum(1 for p in parts if p.get("type") == "image_url") == 1


async def test_an_edit_that_asks_shows_its_diff_in_the_question(
    shared_agent: SharedAgent, tmp_path: Path
) -> None:
    secrets = tmp_path / ".env"
    secrets.write_text("KEY=old\n")
    scenario = {
        "name": "sensitive",
        "calls": [
            {"tool_calls": [{"name": "write_file", "arguments": {"path": ".env", "content": "KEY=new\n"}}]},
            {"text": "Left alone."},
        ],
    }
    conn, client = shared_agent.play(scenario, Recorder(answer=lambda _p: "deny"))
    sid = (await conn.new_session(cwd=str(tmp_path))).session_id
    await conn.prompt(session_id=sid, prompt=[text_block("change the key")])
    assert secrets.read_text() == "KEY=old\n"
    [asked] = client.permissions
    [diff] = asked.tool_call.content
    assert (diff.path, diff.old_text, diff.new_text) == (str(secrets), "KEY=old\n", "KEY=new\n")
    final = client.of(sid, "tool_call_update")[-1]
    assert final.status == "failed" and all(c.type != "diff" for c in final.content)  # nothing was changed

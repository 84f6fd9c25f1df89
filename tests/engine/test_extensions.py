"""The loop's extension points end to end: plugins, checkpoints + rollback, trajectories."""

from __future__ import annotations

import json
from pathlib import Path

from scripted import ScriptedServer
from tests.engine.helpers import make_agent

PLUGIN = """
from agent.plugins import Block

def register(ctx):
    ctx.register_hook("pre_llm_call", lambda user_message, **kw: "Context from the weather plugin: sunny.")
    ctx.register_hook("before_tool", before)
    ctx.register_hook("on_turn_end", lambda result: None)

def before(call):
    if call.name == "terminal" and "forbidden" in call.arguments:
        return Block("the ops team forbids this command")
    return call
"""

CRASHER = """
def pre_llm_call(**kw):
    raise RuntimeError("boom")

def after_tool(call, result):
    raise ValueError("also boom")
"""


def _plugins(home: Path, **files: str) -> None:
    (home / "plugins").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (home / "plugins" / f"{name}.py").write_text(text)


def test_pre_llm_call_context_is_replayed_byte_for_byte_in_later_turns(
    hermes_home: Path, tmp_path: Path
) -> None:
    _plugins(hermes_home, weather=PLUGIN)
    calls = [{"text": "one"}, {"text": "two"}, {"text": "three"}]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("first question")
        agent.run_conversation("second question")
        from agent.session.session import Session

        resumed = Session(agent.settings, ui=ui, store=store, session_id=agent.session_id)
        resumed.run_conversation("third question")
        first, second, third = (r.body["messages"] for r in server.requests)
    sent_first = {"role": "user", "content": "first question\n\nContext from the weather plugin: sunny."}
    assert first[-1] == sent_first
    # What a turn sent is what later turns send again (Hermes' api_content): the provider's prompt cache
    # keeps hitting from that message on, in this process and after a resume.
    assert json.dumps(second[: len(first)]).encode() == json.dumps(first).encode()
    assert json.dumps(third[: len(second)]).encode() == json.dumps(second).encode()
    assert second[-1]["content"].endswith("Context from the weather plugin: sunny.")
    assert first[0] == second[0] and "weather" not in first[0]["content"]  # system prompt byte-stable
    stored = [m.content for m in store.load(agent.session_id).messages if m.role == "user"]
    assert stored == ["first question", "second question", "third question"]


def test_before_tool_block_stops_the_tool_and_the_model_reads_why(hermes_home: Path, tmp_path: Path) -> None:
    _plugins(hermes_home, weather=PLUGIN)
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "touch forbidden.txt"}, "id": "t1"}]},
        {"text": "understood"},
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("do it")
        tool = next(m for m in server.requests[1].body["messages"] if m["role"] == "tool")
    assert not (tmp_path / "forbidden.txt").exists()
    assert "ops team forbids" in tool["content"]


def test_a_crashing_plugin_never_breaks_the_turn(hermes_home: Path, tmp_path: Path) -> None:
    _plugins(hermes_home, crasher=CRASHER, broken="def register(ctx:\n")
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "echo fine"}}]},
        {"text": "all good"},
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("go")
        tool = next(m for m in server.requests[1].body["messages"] if m["role"] == "tool")
    assert result.exit_reason == "completed" and result.final_text == "all good"
    assert "fine" in tool["content"]
    notices = [e.text for e in ui.events if type(e).__name__ == "StatusNotice"]
    # The first fault disables the plugin in one line: its after_tool hook is never called.
    assert [n for n in notices if "crasher" in n] == [
        "Plugin crasher failed in pre_llm_call: RuntimeError: boom "
        f"({hermes_home / 'plugins' / 'crasher.py'}:3); plugin disabled"
    ]
    broken = next(p for p in agent.plugins.plugins if p.name == "broken")
    assert not broken.loaded and "SyntaxError" in (broken.error or "")
    assert [n for n in notices if "broken" in n] == [f"Plugin broken failed to load: {broken.error}"]


def test_patch_then_rollback_restores_byte_for_byte(hermes_home: Path, tmp_path: Path) -> None:
    original = b"def f():\r\n    return 1\r\n# caf\xe9 (latin-1 byte), trailing spaces   \r\n"
    target = tmp_path / "code.py"
    target.write_bytes(original)
    calls = [
        {
            "tool_calls": [
                {
                    "name": "patch",
                    "arguments": {"path": "code.py", "old_string": "return 1", "new_string": "return 2"},
                }
            ]
        },
        {"text": "patched"},
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("patch it")
    assert b"return 2" in target.read_bytes()
    checkpoints = agent.checkpoints.list()
    assert checkpoints and "patch" in checkpoints[0].summary
    report = agent.checkpoints.restore(checkpoints[0].id)
    assert not report.errors
    assert target.read_bytes() == original
    assert any("Checkpoint saved" in e.text for e in ui.events if type(e).__name__ == "StatusNotice")


def test_trajectory_has_one_line_per_model_call(hermes_home: Path, tmp_path: Path) -> None:
    calls = [{"tool_calls": [{"name": "terminal", "arguments": {"command": "echo traj"}}]}, {"text": "done"}]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, save_trajectories=True)
        agent.run_conversation("go")
    path = hermes_home / "tui" / "trajectories" / f"{agent.session_id}.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == 2
    assert lines[0]["request"]["messages"][-1]["content"] == "go"
    assert lines[0]["tool_results"][0]["content"].startswith("traj")
    assert lines[1]["response"]["text"] == "done"
    assert "test-key" not in path.read_text()


def test_the_api_key_is_never_written_anywhere(hermes_home: Path, tmp_path: Path) -> None:
    from pydantic import SecretStr

    secret = "sk-live-9f8e7d6c5b4a39281706"
    calls = [{"tool_calls": [{"name": "terminal", "arguments": {"command": "echo hi"}}]}, {"text": "done"}]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, store, _ui = make_agent(
            server, hermes_home, tmp_path, save_trajectories=True, api_key=SecretStr(secret)
        )
        agent.run_conversation("go")
        assert (
            server.requests[0].headers.get("authorization") == f"Bearer {secret}"
        )  # it did reach the provider
        store.close()
    leaks = [p for p in hermes_home.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    assert leaks == []
    assert secret not in repr(agent.settings) and secret not in str(agent.settings.model_dump())

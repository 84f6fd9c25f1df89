"""The permission modes' policy (`agent.approval.modes`) through the approval gate and real sessions on the
scripted server: plan refuses without asking, ask asks (an edit with its diff), subagents and an
`execute_code` script's inner calls obey the session's mode, and the mode is stored with the session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.approval import ApprovalGate, Decision
from agent.approval.modes import Access, Rule, access_of, is_read_only_command, rule_for
from agent.core.permission_mode import (
    PLAN_NOTE,
    PermissionMode,
    UnknownMode,
    cycle_after,
    initial_mode,
    parse_mode,
)
from agent.core.ui import ApprovalDecision
from agent.store import SessionStore
from scripted import ScriptedServer
from tests.engine.helpers import make_agent, tool_results
from tests.engine.tools.test_approval_table import PASS, TABLE
from tests.recording_ui import RecordingUI

PLAN, ASK, DEFAULT, YOLO = (
    PermissionMode.PLAN,
    PermissionMode.ASK,
    PermissionMode.DEFAULT,
    PermissionMode.YOLO,
)


def _gate(
    mode: PermissionMode, answer: ApprovalDecision = ApprovalDecision.DENY
) -> tuple[ApprovalGate, RecordingUI]:
    ui = RecordingUI(approval=answer)
    gate = ApprovalGate(ui=ui, session_id="s")
    gate.permission_mode = mode
    return gate, ui


def test_the_policy_table() -> None:
    reads = [("read_file", {}), ("web_search", {}), ("todo", {}), ("clarify", {}), ("session_search", {})]
    assert all(access_of(name, args) is Access.READ for name, args in reads)
    assert access_of("write_file", {}) is Access.EDIT and access_of("patch", {}) is Access.EDIT
    assert access_of("terminal", {}) is Access.COMMAND and access_of("execute_code", {}) is Access.ACT
    assert access_of("process", {"action": "poll"}) is Access.READ
    assert access_of("process", {"action": "kill"}) is Access.ACT
    assert access_of("browser_console", {}) is Access.READ
    assert access_of("browser_console", {"expression": "document.cookie = 1"}) is Access.ACT
    assert access_of("browser_click", {"ref": "@e1"}) is Access.ACT
    assert access_of("mcp_github_create_issue", {}) is Access.ACT  # unknown: an action
    assert access_of("mcp_github_list_issues", {}, read_only=True) is Access.READ
    for access in Access:
        assert rule_for(YOLO, access) is Rule.RUN and rule_for(DEFAULT, access) is Rule.RUN
    assert {a for a in Access if rule_for(PLAN, a) is Rule.RUN} == {Access.READ, Access.DELEGATE}
    assert rule_for(ASK, Access.ACT) is Rule.ASK


def test_mode_names_and_the_key_order() -> None:
    assert parse_mode(" Plan ") is PLAN and parse_mode("bypassPermissions") is YOLO
    with pytest.raises(UnknownMode) as raised:
        parse_mode("careful")
    assert str(raised.value) == "unknown permission mode 'careful'; the modes are: default, ask, plan, yolo"
    assert [cycle_after(m, with_yolo=False) for m in (DEFAULT, ASK, PLAN)] == [ASK, PLAN, DEFAULT]
    assert cycle_after(PLAN, with_yolo=True) is YOLO and cycle_after(YOLO, with_yolo=True) is DEFAULT
    assert cycle_after(YOLO, with_yolo=False) is DEFAULT
    assert initial_mode("default", yolo=True) is YOLO and initial_mode("plan", yolo=True) is PLAN


def test_no_command_the_approval_table_flags_is_read_only() -> None:
    flagged = [command for _family, command, outcome, _key in TABLE if outcome != PASS]
    assert [c for c in flagged if is_read_only_command(c)] == []
    for command in ("ls -la", "git status", "git log --oneline | head", "grep -rn foo . 2>&1"):
        assert is_read_only_command(command), command
    for command in ("echo x > f", "git branch new", "find . -delete", "sort -o out in", "python x.py", ""):
        assert not is_read_only_command(command), command


def test_plan_refuses_edits_and_commands_without_asking(tmp_path: Path) -> None:
    gate, ui = _gate(PLAN, ApprovalDecision.ONCE)
    for verdict in (
        gate.review_write(tmp_path / "a.txt", tmp_path, tool_name="write_file"),
        gate.review_command("ls", cwd=tmp_path),  # even a read-only command: plan runs no commands
        gate.review_mode("terminal", {"command": "ls"}),
        gate.review_mode("mcp_x_delete", {}),
    ):
        assert verdict is not None and not verdict.allowed
        assert verdict.decision is Decision.PLAN_MODE and "plan mode" in verdict.message
    assert gate.review_mode("read_file", {"path": "a"}) is None
    assert gate.review_mode("delegate_task", {"goal": "x"}) is None
    assert ui.approval_requests == []


def test_ask_asks_every_edit_with_its_diff_and_commands_that_are_not_read_only(tmp_path: Path) -> None:
    gate, ui = _gate(ASK, ApprovalDecision.ONCE)
    inside = gate.review_write(tmp_path / "a.txt", tmp_path, tool_name="write_file", diff=lambda: "+hello\n")
    assert inside.allowed and inside.decision is Decision.ONCE
    [edit] = ui.approval_requests
    assert edit.diff == "+hello\n" and "ask mode: every file edit asks" in edit.reasons
    assert gate.review_command("git status", cwd=tmp_path).decision is Decision.SAFE  # read-only: no question
    assert gate.review_command("touch b", cwd=tmp_path).decision is Decision.ONCE
    assert ui.approval_requests[-1].command == "touch b"
    asked = gate.review_mode("browser_click", {"ref": "@e1"})
    assert asked is not None and asked.allowed and len(ui.approval_requests) == 3


def test_default_and_yolo_keep_todays_behaviour(tmp_path: Path) -> None:
    gate, ui = _gate(DEFAULT)
    assert gate.review_write(tmp_path / "a.txt", tmp_path, tool_name="write_file").decision is Decision.SAFE
    assert gate.review_command("touch b", cwd=tmp_path).decision is Decision.SAFE
    assert not gate.yolo
    gate.yolo = True
    assert gate.permission_mode is YOLO
    assert gate.review_command("rm -rf build", cwd=tmp_path).allowed
    assert gate.review_command("rm -rf /", cwd=tmp_path).decision is Decision.BLOCKED  # hard blocks stay
    assert ui.approval_requests == []


def _calls(*calls: dict) -> str:
    return json.dumps({"name": "modes", "calls": list(calls)})


def _write(call_id: str, path: str = "out.txt") -> dict:
    return {
        "tool_calls": [{"name": "write_file", "arguments": {"path": path, "content": "x\n"}, "id": call_id}]
    }


def test_a_plan_session_refuses_writes_and_tells_the_model(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer(_calls(_write("w"), {"text": "1. write out.txt"})) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, permission_mode="plan")
        result = agent.run_conversation("make a file")
        requests = server.requests
    assert result.exit_reason == "completed"
    assert not (tmp_path / "out.txt").exists() and ui.approval_requests == []
    assert "plan mode" in dict(tool_results(requests[-1].body, "openai"))["w"]
    user = [m for m in requests[0].body["messages"] if m["role"] == "user"][-1]
    assert PLAN_NOTE in user["content"]
    assert requests[0].body["messages"][0]["content"] == agent.system_prompt  # the prompt never changes
    info = store.get_session(agent.session_id)
    assert info is not None and info.permission_mode == "plan"


def test_switching_mode_applies_to_the_next_turn_and_is_stored(hermes_home: Path, tmp_path: Path) -> None:
    calls = _calls(_write("w1"), {"text": "plan"}, _write("w2"), {"text": "done"})
    with ScriptedServer(calls) as server:
        agent, store, _ui = make_agent(server, hermes_home, tmp_path, permission_mode="plan")
        agent.run_conversation("plan it")
        assert not (tmp_path / "out.txt").exists()
        agent.permission_mode = DEFAULT
        agent.run_conversation("go ahead")
        last = server.requests[-1].body["messages"]
        info = store.get_session(agent.session_id)
        assert info is not None and info.permission_mode == "default"
        agent.close()  # one writer per session: the next one takes it
        resumed = make_agent(server, hermes_home, tmp_path, permission_mode="plan")[0]
        resumed.resume(agent.session_id)  # the stored mode wins over the configured default
        assert resumed.permission_mode is DEFAULT
        resumed.close()
        SessionStore(hermes_home / "tui" / "state.db").set_permission_mode(agent.session_id, "plan")
        flagged = {"permission_mode": "ask", "permission_mode_chosen": True}
        again = make_agent(server, hermes_home, tmp_path, **flagged)[0]
        again.resume(agent.session_id)  # a mode given on the command line wins over the stored one
        assert again.permission_mode is ASK
        again.close()
        info = store.get_session(agent.session_id)
    assert (tmp_path / "out.txt").read_text() == "x\n"
    go_ahead = [m for m in last if m["role"] == "user"][-1]["content"]
    assert PLAN_NOTE not in go_ahead and "Plan mode is off: the permission mode is now default" in go_ahead
    assert info is not None and info.permission_mode == "ask"  # the flag's mode, stored


def test_a_subagent_obeys_the_parents_plan_mode(hermes_home: Path, tmp_path: Path) -> None:
    goal = "write the file"
    calls = _calls(
        {"tool_calls": [{"name": "delegate_task", "arguments": {"goal": goal}, "id": "d"}]},
        {"match": goal, **_write("cw")},
        {"match": goal, "text": "I could not write it."},
        {"text": "ok"},
    )
    with ScriptedServer(calls) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path, permission_mode="plan")
        agent.run_conversation("delegate it")
    assert not (tmp_path / "out.txt").exists() and ui.approval_requests == []


def test_an_execute_code_scripts_inner_calls_obey_ask_mode(hermes_home: Path, tmp_path: Path) -> None:
    code = "from hermes_tools import write_file\nprint(write_file('inner.txt', 'hi\\n'))\n"
    calls = _calls(
        {"tool_calls": [{"name": "execute_code", "arguments": {"code": code}, "id": "x"}]}, {"text": "ok"}
    )
    ui = RecordingUI(approval=ApprovalDecision.ONCE)
    with ScriptedServer(calls) as server:
        agent, _store, _ = make_agent(server, hermes_home, tmp_path, ui=ui, permission_mode="ask")
        agent.run_conversation("run it")
    asked = [(r.tool_name, r.subject) for r in ui.approval_requests]
    assert asked[0][0] == "execute_code"  # the script itself is an action ask mode asks about
    assert any(tool == "write_file" for tool, _ in asked[1:])  # and its inner edit asks again, with the diff
    inner = next(r for r in ui.approval_requests if r.tool_name == "write_file")
    assert "+hi" in inner.diff
    assert (tmp_path / "inner.txt").read_text() == "hi\n"


def test_ask_modes_this_session_covers_the_same_programs_not_every_command(tmp_path: Path) -> None:
    gate, ui = _gate(ASK, ApprovalDecision.SESSION)
    assert gate.review_command("npm test", cwd=tmp_path).decision is Decision.SESSION
    assert gate.review_command("npm run build", cwd=tmp_path).decision is Decision.SESSION  # not asked again
    assert len(ui.approval_requests) == 1
    assert gate.review_command("touch x", cwd=tmp_path).decision is Decision.SESSION  # another program: asked
    assert len(ui.approval_requests) == 2


def test_approvals_default_mode_in_config_and_the_flags(tmp_path: Path) -> None:
    from agent.config.settings import load_settings

    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("approvals:\n  default_mode: Plan\n")
    loaded = load_settings({"hermes_home": str(home)}, env={})
    assert loaded.settings.permission_mode == "plan" and not loaded.settings.permission_mode_chosen
    flagged = load_settings({"hermes_home": str(home), "permission_mode": "ask"}, env={})
    assert flagged.settings.permission_mode == "ask" and flagged.settings.permission_mode_chosen
    (home / "config.yaml").write_text("approvals:\n  default_mode: careful\n")
    bad = load_settings({"hermes_home": str(home)}, env={})
    assert bad.settings.permission_mode == "default"
    assert any("default | ask | plan | yolo" in str(p) for p in bad.problems)


def test_the_executor_asks_the_mode_before_every_call(tmp_path: Path) -> None:
    """Any tool the registry holds (an MCP server's, a plugin's, the browser's) passes the mode first: in
    plan mode one marked read-only runs, an unknown one is refused without reaching its handler."""
    import threading
    from collections.abc import Callable

    from pydantic import BaseModel

    from agent.core.messages import ToolCall
    from agent.toolkit.executor import ToolExecutor
    from agent.toolkit.registry import Tool, ToolContext, ToolRegistry, ToolResult

    class NoArgs(BaseModel):
        pass

    ran: list[str] = []

    def handler(name: str) -> Callable[[BaseModel, ToolContext], ToolResult]:
        def run(_args: BaseModel, _ctx: ToolContext) -> ToolResult:
            ran.append(name)
            return ToolResult(content="ok")

        return run

    registry = ToolRegistry(
        [
            Tool("mcp_docs_search", "reads", NoArgs, handler("search"), read_only=True),
            Tool("mcp_docs_delete", "writes", NoArgs, handler("delete")),
            Tool("browser_click", "clicks", NoArgs, handler("click")),
        ]
    )
    gate, ui = _gate(PLAN)
    interrupt = threading.Event()

    def context(call: ToolCall) -> ToolContext:
        return ToolContext(tmp_path, "s", call.id, interrupt, tmp_path, approvals=gate)

    calls = [ToolCall(f"c{i}", name, "{}") for i, name in enumerate(registry.names)]
    done = ToolExecutor(registry).run_batch(calls, make_context=context, ui=ui, interrupt=interrupt)
    assert ran == ["search"]
    refused = {d.call.name: d.result for d in done if d.result.status == "denied"}
    assert set(refused) == {"mcp_docs_delete", "browser_click"}
    assert all(r.data["decision"] == "plan_mode" and "plan mode" in r.content for r in refused.values())
    assert ui.approval_requests == []

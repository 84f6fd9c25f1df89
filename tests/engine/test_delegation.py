"""delegate_task against the scripted server, through the real SDK: children are real agents whose model
calls are routed to their own scripted calls by their goal (`match`)."""

from __future__ import annotations

import itertools
import json
import threading
import time
from pathlib import Path

from agent.core.events import ChildEvent, ChildFinished, ChildStarted, TextDelta, ToolFinished, ToolStarted
from agent.core.ui import ApprovalDecision
from scripted import ScriptedServer
from tests.engine.helpers import make_agent, tool_results
from tests.recording_ui import RecordingUI

GOALS = ("count the python files", "read the readme", "list the tests")


def scenario(*calls: dict) -> str:
    return json.dumps({"name": "delegation", "calls": list(calls)})


def delegate(call_id: str = "call_d", **arguments: object) -> dict:
    return {"tool_calls": [{"name": "delegate_task", "arguments": arguments, "id": call_id}]}


def tool_names(body: dict) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools", [])}


def child_requests(server: ScriptedServer, goal: str) -> list:
    from scripted.server import first_user_text

    return [r for r in server.requests if first_user_text(r.body) == goal]


def test_a_child_gets_the_goal_and_a_restricted_toolset_and_its_answer_comes_back(
    hermes_home: Path, tmp_path: Path
) -> None:
    calls = [
        delegate(goal=GOALS[0], context="the repo is in the working directory"),
        {"match": GOALS[0], "tool_calls": [{"name": "terminal", "arguments": {"command": "echo 7"}}]},
        {"match": GOALS[0], "text": "There are 7 python files."},
        {"text": "The subagent counted 7 files."},
    ]
    with ScriptedServer(scenario(*calls)) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("how many python files?")
        requests = server.requests
    assert result.exit_reason == "completed"
    assert result.final_text == "The subagent counted 7 files."
    parent_tools = tool_names(requests[0].body)
    assert {"delegate_task", "clarify"} <= parent_tools
    child = [r for r in requests[1:3]]
    for request in child:
        body = request.body
        system = body["messages"][0]["content"]
        assert GOALS[0] in system and "the repo is in the working directory" in system
        assert body["messages"][1] == {"role": "user", "content": GOALS[0]}
        names = tool_names(body)
        assert "terminal" in names
        assert not names & {"delegate_task", "clarify", "memory"}
    # the parent's next request carries the child's answer as the delegate_task result
    results = dict(tool_results(requests[3].body, "openai"))
    assert results["call_d"].startswith("There are 7 python files.")
    assert "[subagent: completed; 2 model calls; tools: terminal" in results["call_d"]
    # the child's transcript is its own session, linked to the parent
    started = ui.of_type(ChildStarted)
    assert len(started) == 1 and started[0].call_id == "call_d" and started[0].goal == GOALS[0]
    child_info = store.get_session(started[0].session_id)
    assert child_info is not None
    assert child_info.parent_session_id == result.session_id
    assert child_info.source == "subagent"
    loaded = store.load(child_info.id)
    assert [m.role for m in loaded.messages] == ["user", "assistant", "tool", "assistant"]
    assert loaded.messages[-1].content == "There are 7 python files."
    # the child's text never lands in the parent's reply: it arrives wrapped
    assert "".join(e.text for e in ui.of_type(TextDelta)) == "The subagent counted 7 files."
    wrapped = [e.event for e in ui.of_type(ChildEvent)]
    assert any(isinstance(e, ToolStarted) and e.name == "terminal" for e in wrapped)
    assert "There are 7" in "".join(e.text for e in wrapped if isinstance(e, TextDelta))
    finished = ui.of_type(ChildFinished)
    assert [(f.status, f.tool_calls) for f in finished] == [("completed", 1)]


def test_three_tasks_run_at_once(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        delegate(tasks=[{"goal": g} for g in GOALS]),
        *({"match": g, "text": f"done: {g}", "first_delay": 1.5} for g in GOALS),
        {"text": "All three are done."},
    ]
    answered: dict[str, float] = {}

    def on_answered(request, finished: float) -> None:  # type: ignore[no-untyped-def]
        from scripted.server import first_user_text

        answered[first_user_text(request.body)] = finished

    with ScriptedServer(scenario(*calls), on_answered=on_answered) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path)
        result = agent.run_conversation("do three things")
        arrivals = {g: child_requests(server, g)[0].time for g in GOALS}
        final = server.requests[-1]
    assert result.final_text == "All three are done."
    # every child's request arrived before any child got its answer: they ran concurrently
    assert max(arrivals.values()) < min(answered[g] for g in GOALS)
    content = dict(tool_results(final.body, "openai"))["call_d"]
    for index, goal in enumerate(GOALS, start=1):
        assert f"## Task {index}: {goal}\ndone: {goal}" in content
    assert sorted(e.child for e in ui.of_type(ChildStarted)) == [0, 1, 2]


def test_concurrency_is_capped_by_max_concurrent(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        delegate(tasks=[{"goal": g} for g in GOALS]),
        *({"match": g, "text": f"done: {g}", "first_delay": 0.5} for g in GOALS),
        {"text": "ok"},
    ]
    answered: dict[str, float] = {}

    def on_answered(request, finished: float) -> None:  # type: ignore[no-untyped-def]
        from scripted.server import first_user_text

        answered[first_user_text(request.body)] = finished

    with ScriptedServer(scenario(*calls), on_answered=on_answered) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, delegation_max_concurrent=1)
        agent.run_conversation("one at a time")
        arrivals = {g: child_requests(server, g)[0].time for g in GOALS}
    order = sorted(GOALS, key=lambda g: arrivals[g])
    for earlier, later in itertools.pairwise(order):
        assert answered[earlier] <= arrivals[later]  # the next child started after the last one ended


def test_escape_during_a_child_ends_both_with_every_call_answered(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        delegate(goal=GOALS[0]),
        {"match": GOALS[0], "tool_calls": [{"name": "terminal", "arguments": {"command": "sleep 30"}}]},
        {"match": GOALS[0], "text": "never played"},
    ]
    with ScriptedServer(scenario(*calls)) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path)
        box: dict = {}
        thread = threading.Thread(target=lambda: box.setdefault("r", agent.run_conversation("go")))
        thread.start()
        deadline = time.monotonic() + 15
        while not any(isinstance(e.event, ToolStarted) for e in ui.of_type(ChildEvent)):
            assert time.monotonic() < deadline, "the child never started its tool"
            time.sleep(0.01)
        agent.interrupt()
        thread.join(timeout=10)
        assert not thread.is_alive()
    result = box["r"]
    assert result.exit_reason == "interrupted"
    parent = store.load(result.session_id).messages
    assert [m.role for m in parent] == ["user", "assistant", "tool"]
    assert parent[-1].tool_call_id == "call_d" and parent[-1].meta["status"] == "cancelled"
    child_id = ui.of_type(ChildStarted)[0].session_id
    child = store.load(child_id)
    calls_made = [c.id for m in child.messages if m.role == "assistant" for c in m.tool_calls]
    answered = [m.tool_call_id for m in child.messages if m.role == "tool"]
    assert calls_made and calls_made == answered
    assert child.info.status == "interrupted"
    assert [f.status for f in ui.of_type(ChildFinished)] == ["interrupted"]
    assert any(
        isinstance(e.event, ToolFinished) and e.event.status == "cancelled" for e in ui.of_type(ChildEvent)
    )


def test_a_childs_approval_goes_to_the_user_labelled_with_the_child(
    hermes_home: Path, tmp_path: Path
) -> None:
    calls = [
        delegate(goal=GOALS[1]),
        {"match": GOALS[1], "tool_calls": [{"name": "terminal", "arguments": {"command": "rm -rf build"}}]},
        {"match": GOALS[1], "text": "I was not allowed to delete build."},
        {"text": "ok"},
    ]
    (tmp_path / "build").mkdir()
    with ScriptedServer(scenario(*calls)) as server:
        ui = RecordingUI(approval=ApprovalDecision.DENY)
        agent, _store, _ = make_agent(server, hermes_home, tmp_path, ui=ui)
        agent.run_conversation("clean up")
    [request] = ui.approval_requests
    assert request.command == "rm -rf build"
    assert request.origin == f"subagent: {GOALS[1]}"
    assert (tmp_path / "build").is_dir()  # the denial reached the child: nothing ran


def test_bad_arguments_are_a_clear_error(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        delegate(),
        delegate(call_id="call_e", goal="x", toolsets=["no-such-toolset"]),
        {"text": "gave up"},
    ]
    with ScriptedServer(scenario(*calls)) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("go")
        last = server.requests[-1]
    results = dict(tool_results(last.body, "openai"))
    assert "give a `goal`" in results["call_d"]
    assert "unknown toolset(s): no-such-toolset" in results["call_e"]

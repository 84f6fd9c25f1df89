"""Issue 3 acceptance through the scripted server: concurrency, order, interrupt, approvals, truncation."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from agent.approval import load_allowlist
from agent.core.events import ToolFinished
from agent.core.ui import ApprovalDecision, ApprovalRequest
from agent.session.catalogue import default_registry
from agent.toolkit.registry import Tool, ToolRegistry
from scripted import ScriptedServer
from tests.engine.helpers import make_agent
from tests.recording_ui import RecordingUI


def _scenario(*calls: dict) -> dict:
    return {"name": "t", "calls": list(calls)}


def test_three_read_files_run_concurrently_and_return_in_call_order(
    hermes_home: Path, tmp_path: Path
) -> None:
    for name in "abc":
        (tmp_path / f"{name}.txt").write_text(f"content {name}\n")
    # Every read waits until all three are running: only a concurrent executor gets past the barrier.
    barrier = threading.Barrier(3, timeout=5)
    real = default_registry()
    read = real.get("read_file")
    assert read is not None

    def gated(args, ctx):  # type: ignore[no-untyped-def]
        barrier.wait()
        if args.path == "a.txt":
            time.sleep(0.2)  # finishes last, still reported first
        return read.handler(args, ctx)

    registry = ToolRegistry([t for t in (real.get(n) for n in real.names) if t and t.name != "read_file"])
    registry.register(Tool(**{**read.__dict__, "handler": gated}))
    calls = _scenario(
        {
            "tool_calls": [
                {"name": "read_file", "arguments": {"path": f"{n}.txt"}, "id": f"call_{n}"} for n in "abc"
            ]
        },
        {"text": "read"},
    )
    with ScriptedServer(calls) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path)
        agent.registry = registry
        agent.executor.registry = registry
        result = agent.run_conversation("read all")
        wire = server.requests[1].body["messages"]
    assert result.exit_reason == "completed"
    finished = [e.call_id for e in ui.of_type(ToolFinished)]
    assert finished[-1] == "call_a", "a.txt finished last"
    tools = [m for m in wire if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tools] == ["call_a", "call_b", "call_c"]
    assert "content a" in tools[0]["content"] and "content c" in tools[2]["content"]


def test_interrupt_kills_sleep_and_its_children_within_a_second(hermes_home: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    command = f"sleep 30 & echo $! > {pidfile}; echo $$ >> {pidfile}; wait"
    with ScriptedServer(
        _scenario({"tool_calls": [{"name": "terminal", "arguments": {"command": command}}]})
    ) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path)
        box: dict = {}
        thread = threading.Thread(target=lambda: box.setdefault("r", agent.run_conversation("sleep")))
        thread.start()
        deadline = time.monotonic() + 10
        while not (pidfile.exists() and len(pidfile.read_text().split()) == 2):
            assert time.monotonic() < deadline
            time.sleep(0.02)
        pids = [int(p) for p in pidfile.read_text().split()]
        asked = time.monotonic()
        agent.interrupt()
        thread.join(timeout=5)
        took = time.monotonic() - asked
    assert took < 1.0, f"interrupt took {took:.2f}s"
    assert box["r"].exit_reason == "interrupted"
    finished = ui.of_type(ToolFinished)[0]
    assert finished.status == "cancelled" and "130" in finished.result
    for pid in pids:
        assert not _alive(pid), f"process {pid} survived"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (not reaped because PID 1 here does not reap) is dead for our purposes
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_denied_rm_is_not_executed_and_the_model_is_told(hermes_home: Path, tmp_path: Path) -> None:
    target = tmp_path / "keep"
    target.mkdir()
    calls = _scenario(
        {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {target}"}}]}, {"text": "ok"}
    )
    with ScriptedServer(calls) as server:
        agent, store, ui = make_agent(
            server, hermes_home, tmp_path, ui=RecordingUI(approval=ApprovalDecision.DENY)
        )
        result = agent.run_conversation("delete")
        tool = next(m for m in server.requests[1].body["messages"] if m["role"] == "tool")
    assert target.exists()
    assert "BLOCKED" in tool["content"] and "denied" in tool["content"].lower()
    assert ui.approval_requests and "deletes files recursively" in ui.approval_requests[0].reasons
    decisions = store.approvals(result.session_id)
    assert decisions and decisions[0]["decision"] == "deny"


def test_always_survives_a_restart(hermes_home: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    calls = _scenario(
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "git clean -fdx"}}]},
        {"text": "cleaned"},
    )
    (tmp_path / ".git").mkdir()
    with ScriptedServer(calls) as server:
        agent, _store, ui = make_agent(
            server, hermes_home, tmp_path, ui=RecordingUI(approval=ApprovalDecision.ALWAYS)
        )
        agent.run_conversation("clean")
        assert len(ui.approval_requests) == 1
    assert "git clean -fdx" in load_allowlist(hermes_home / "tui" / "config.yaml")
    # A new process: a fresh agent reading the saved rule does not ask again.
    with ScriptedServer(calls) as server:
        agent, _store, ui2 = make_agent(
            server, hermes_home, tmp_path, ui=RecordingUI(approval=ApprovalDecision.DENY)
        )
        agent.run_conversation("clean again")
        tool = next(m for m in server.requests[1].body["messages"] if m["role"] == "tool")
    assert ui2.approval_requests == []
    assert "BLOCKED" not in tool["content"]
    del first, second


class _SerialUI(RecordingUI):
    """Records how many approval prompts are open at once."""

    def __init__(self) -> None:
        super().__init__(approval=ApprovalDecision.ONCE)
        self.open = 0
        self.max_open = 0
        self.lock = threading.Lock()

    def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        with self.lock:
            self.open += 1
            self.max_open = max(self.max_open, self.open)
        time.sleep(0.2)
        with self.lock:
            self.open -= 1
        return super().ask_approval(request)


def test_two_concurrent_risky_calls_prompt_one_after_the_other(hermes_home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    cwd = tmp_path / "project"
    cwd.mkdir()
    calls = _scenario(
        {
            "tool_calls": [
                {"name": "write_file", "arguments": {"path": str(outside / "a.txt"), "content": "a"}},
                {"name": "write_file", "arguments": {"path": str(outside / "b.txt"), "content": "b"}},
            ]
        },
        {"text": "written"},
    )
    ui = _SerialUI()
    with ScriptedServer(calls) as server:
        agent, _store, _ = make_agent(server, hermes_home, cwd, ui=ui)
        agent.run_conversation("write outside")
    assert len(ui.approval_requests) == 2
    assert ui.max_open == 1
    assert (outside / "a.txt").read_text() == "a" and (outside / "b.txt").read_text() == "b"


def test_huge_output_is_truncated_with_head_and_tail(hermes_home: Path, tmp_path: Path) -> None:
    command = "python3 -c \"import sys; sys.stdout.write('HEAD' + 'x' * 10_000_000 + 'TAIL')\""
    calls = _scenario(
        {"tool_calls": [{"name": "terminal", "arguments": {"command": command}}]}, {"text": "big"}
    )
    with ScriptedServer(calls) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("flood")
        tool = next(m for m in server.requests[1].body["messages"] if m["role"] == "tool")
    content = tool["content"]
    assert len(content) <= agent.settings.tool_output_budget
    assert content.startswith("HEAD") and "TAIL" in content[-200:]
    assert "omitted" in content

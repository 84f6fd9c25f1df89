"""Background processes: terminal(background=true) returns at once; the process tool manages them."""

from __future__ import annotations

import subprocess
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.children.groups import Group, leader_start
from agent.core.messages import Message
from agent.store import SessionStore
from agent.toolkit.registry import ToolContext, ToolResult
from agent.toolkit.state import SessionState
from agent.tools.processes import (
    ProcessArgs,
    ProcessRegistry,
    note_left_running,
    run_process,
)
from agent.tools.terminal import TerminalArgs, run_terminal
from tests.engine.tools.test_terminal import FakeGate, _group_alive


@pytest.fixture
def registry() -> Iterator[ProcessRegistry]:
    reg = ProcessRegistry()
    yield reg
    reg.shutdown()


def make_ctx(tmp_path: Path, registry: ProcessRegistry, **kw) -> ToolContext:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return ToolContext(
        cwd=work,
        session_id="s1",
        call_id="c1",
        interrupt=threading.Event(),
        hermes_home=tmp_path / "home",
        state=SessionState(processes=registry),
        **kw,
    )


def start(ctx: ToolContext, command: str) -> ToolResult:
    return run_terminal(TerminalArgs(command=command, background=True), ctx)


def process(ctx: ToolContext, action: str, **kw) -> ToolResult:
    return run_process(ProcessArgs(action=action, **kw), ctx)


def ps_lines(token: str) -> list[str]:
    """Lines of `ps` (every process on the machine) that mention `token`."""
    out = subprocess.run(["ps", "-eo", "pid,stat,args"], capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if token in line and " Z" not in line and "ps -eo" not in line]


def test_sleep_in_the_background_returns_while_it_runs(tmp_path: Path, registry: ProcessRegistry) -> None:
    ctx = make_ctx(tmp_path, registry)
    result = start(ctx, "sleep 30")
    assert result.status == "ok"
    pid = result.data["process_id"]
    assert pid.startswith("proc_")
    assert "Started background process" in result.content and "running" in result.content
    bg = registry.get(pid)
    assert bg is not None and bg.status == "running"  # the call came back; the sleep goes on
    assert _group_alive(bg.pid)
    listed = process(ctx, "list")
    assert pid in listed.content and "running" in listed.content and "sleep 30" in listed.content


def test_the_first_lines_come_back_with_the_id(tmp_path: Path, registry: ProcessRegistry) -> None:
    ctx = make_ctx(tmp_path, registry)
    result = start(ctx, "echo 'listening on :8000'; sleep 30")
    assert "First output:\nlistening on :8000" in result.content


def test_wait_returns_the_exit_code(tmp_path: Path, registry: ProcessRegistry) -> None:
    ctx = make_ctx(tmp_path, registry)
    pid = start(ctx, "sleep 0.3; echo done; exit 7").data["process_id"]
    waited = process(ctx, "wait", id=pid, timeout=30)
    assert waited.data["exit_code"] == 7
    assert waited.data["status"] == "exited"
    assert f"{pid} exited with code 7" in waited.content and "done" in waited.content


def test_wait_times_out_on_a_process_that_keeps_running(tmp_path: Path, registry: ProcessRegistry) -> None:
    ctx = make_ctx(tmp_path, registry)
    pid = start(ctx, "sleep 30").data["process_id"]
    waited = process(ctx, "wait", id=pid, timeout=1)
    assert "still running after 1 s" in waited.content
    assert "exit_code" not in waited.data


def test_an_interrupt_stops_the_wait_not_the_process(tmp_path: Path, registry: ProcessRegistry) -> None:
    ctx = make_ctx(tmp_path, registry)
    pid = start(ctx, "sleep 30").data["process_id"]
    threading.Timer(0.2, ctx.interrupt.set).start()
    waited = process(ctx, "wait", id=pid, timeout=60)
    assert waited.status == "cancelled"
    assert registry.get(pid).status == "running"


def test_kill_ends_the_whole_group(tmp_path: Path, registry: ProcessRegistry) -> None:
    ctx = make_ctx(tmp_path, registry)
    pid = start(ctx, "sleep 30 & sleep 30 & echo started; wait").data["process_id"]
    bg = registry.get(pid)
    assert len(_group_alive(bg.pid)) >= 3  # the shell and both sleeps
    killed = process(ctx, "kill", id=pid)
    assert killed.status == "ok" and f"Killed {pid}" in killed.content
    assert _group_alive(bg.pid) == []
    assert registry.get(pid).status == "killed"
    again = process(ctx, "kill", id=pid)
    assert "already exited" in again.content


def test_log_reads_lines_from_an_offset(tmp_path: Path, registry: ProcessRegistry) -> None:
    ctx = make_ctx(tmp_path, registry)
    pid = start(ctx, "seq 1 500").data["process_id"]
    process(ctx, "wait", id=pid, timeout=30)
    log = process(ctx, "log", id=pid, offset=100, limit=5)
    assert log.content.splitlines()[-5:] == ["101", "102", "103", "104", "105"]
    assert "Lines 100-105 of 500" in log.content
    tail = process(ctx, "log", id=pid, limit=3)
    assert tail.content.splitlines()[-3:] == ["498", "499", "500"]


def test_write_reaches_stdin(tmp_path: Path, registry: ProcessRegistry) -> None:
    ctx = make_ctx(tmp_path, registry)
    pid = start(ctx, "cat").data["process_id"]
    sent = process(ctx, "write", id=pid, data="hello there\n", close_stdin=True)
    assert sent.status == "ok"
    waited = process(ctx, "wait", id=pid, timeout=30)  # cat ends at the end of its input
    assert waited.data["exit_code"] == 0
    assert "hello there" in waited.content
    closed = process(ctx, "write", id=pid, data="more")
    assert closed.status == "error"


def test_unknown_ids_and_missing_ids_are_clear_errors(tmp_path: Path, registry: ProcessRegistry) -> None:
    ctx = make_ctx(tmp_path, registry)
    assert "No background processes" in process(ctx, "list").content
    missing = process(ctx, "poll")
    assert missing.status == "error" and "needs the process id" in missing.content
    unknown = process(ctx, "poll", id="proc_99")
    assert unknown.status == "error" and "no background process 'proc_99'" in unknown.content


def test_background_commands_go_through_the_approval_gate(tmp_path: Path, registry: ProcessRegistry) -> None:
    gate = FakeGate(allowed=False)
    ctx = make_ctx(tmp_path, registry, approvals=gate)
    result = start(ctx, "rm -rf build && sleep 30")
    assert result.status == "denied"
    assert gate.commands == [("rm -rf build && sleep 30", "terminal")]
    assert registry.list() == []


def test_shutdown_stops_all_and_the_session_notes_it(tmp_path: Path, registry: ProcessRegistry) -> None:
    token = f"tok{uuid.uuid4().hex[:10]}"
    store = SessionStore(tmp_path / "state.db")
    sid = store.create_session(model="m", provider="p", cwd=str(tmp_path), system_prompt="S")
    store.append_message(sid, Message(role="user", content="start the server"))
    ctx = make_ctx(tmp_path, registry)
    ctx.session_id = sid
    pid = start(ctx, f"sleep 30; echo {token}").data["process_id"]
    finished = start(ctx, "true").data["process_id"]
    process(ctx, "wait", id=finished, timeout=30)
    assert ps_lines(token)
    stopped = registry.shutdown()
    assert [i.id for i in stopped] == [pid]
    assert ps_lines(token) == []
    note_left_running(store, stopped)
    last = store.load(sid).messages[-1]
    assert last.meta["synthetic"] == "processes"
    assert pid in last.content and "sleep 30" in last.content and finished not in last.content
    store.close()


def test_a_finished_process_whose_number_was_reused_is_neither_running_nor_killed(
    tmp_path: Path, registry: ProcessRegistry
) -> None:
    """Its group ended, and its number now leads someone else's group (simulated as such a reuse looks:
    the number of a live stranger, a start time that is not its leader's): it is not listed as running,
    `kill` says it had exited, and the stranger lives on (also through the registry's shutdown)."""
    ctx = make_ctx(tmp_path, registry)
    pid = start(ctx, "true").data["process_id"]
    bg = registry.get(pid)
    assert bg is not None and registry.wait(bg, 10)
    stranger = subprocess.Popen(["sleep", "300"], start_new_session=True)
    try:
        start_time = leader_start(stranger.pid)
        assert start_time is not None
        bg.pid, bg.group = stranger.pid, Group(stranger.pid, start_time - 1)
        assert registry.running() == []
        assert "had already exited" in process(ctx, "kill", id=pid).content
        registry.shutdown()
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()

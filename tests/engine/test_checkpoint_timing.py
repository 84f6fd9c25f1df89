"""When the loop takes its checkpoint: only once a mutating call is approved and about to run.

A denied command leaves no checkpoint (so /rollback never lists a snapshot of something that did not
happen); a file that did not exist is recorded as new, not counted as a saved file; an approved command is
checkpointed after the approval and before it runs, and the rollback restores the bytes.
"""

from __future__ import annotations

import threading
from pathlib import Path

from agent.checkpoints import BatchCheckpoint, CheckpointManager
from agent.core.events import StatusNotice, ToolFinished
from agent.core.messages import ToolCall
from agent.core.ui import ApprovalDecision, ApprovalRequest
from scripted import ScriptedServer
from tests.engine.helpers import make_agent
from tests.recording_ui import RecordingUI


def _terminal(command: str, call_id: str) -> dict[str, object]:
    return {"name": "terminal", "arguments": {"command": command}, "id": call_id}


def _saved_notices(ui: RecordingUI) -> list[str]:
    return [e.text for e in ui.of_type(StatusNotice) if e.text.startswith("Checkpoint saved")]


def _build(cwd: Path) -> dict[Path, bytes]:
    files = {
        cwd / "build" / "app.o": b"\x7fELF\x00\x01 object",
        cwd / "build" / "sub" / "notes.txt": b"n\r\n",
    }
    for path, data in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return files


def test_a_denied_command_leaves_no_checkpoint(hermes_home: Path, tmp_path: Path) -> None:
    files = _build(tmp_path)
    calls = [{"tool_calls": [_terminal("rm -rf build", "t1")]}, {"text": "ok, not deleting"}]
    ui = RecordingUI(approval=ApprovalDecision.DENY)
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, ui=ui)
        agent.run_conversation("clean the build")
    assert ui.approval_requests, "the gate asked"
    assert all(p.read_bytes() == data for p, data in files.items())
    assert agent.checkpoints.list() == []
    assert _saved_notices(ui) == []


def test_an_approved_command_is_checkpointed_before_it_runs(hermes_home: Path, tmp_path: Path) -> None:
    files = _build(tmp_path)
    calls = [{"tool_calls": [_terminal("ionice -c3 rm -rf build", "t1")]}, {"text": "deleted"}]

    class WatchingUI(RecordingUI):
        """Looks at the disk when asked: nothing is saved before the approval."""

        def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision:
            self.saved_before_approval = agent.checkpoints.list()
            return super().ask_approval(request)

    ui = WatchingUI(approval=ApprovalDecision.ONCE)
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, ui=ui)
        agent.run_conversation("clean the build")
    assert ui.saved_before_approval == []
    assert not (tmp_path / "build").exists()
    (checkpoint,) = agent.checkpoints.list()
    assert checkpoint.summary == "2 files before terminal ionice -c3 rm -rf build"
    notice = next(
        i for i, e in enumerate(ui.events) if isinstance(e, StatusNotice) and "Checkpoint" in e.text
    )
    finished = next(i for i, e in enumerate(ui.events) if isinstance(e, ToolFinished))
    assert notice < finished  # saved, then the command ran
    report = agent.checkpoints.restore(checkpoint.id)
    assert report.errors == []
    assert all(p.read_bytes() == data for p, data in files.items())


def test_a_new_file_is_recorded_but_not_counted_as_saved(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "hi\n"}}]},
        {"text": "written"},
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("write notes")
    (checkpoint,) = agent.checkpoints.list()
    assert checkpoint.file_count == 0 and checkpoint.new_count == 1
    assert checkpoint.summary == "1 new path before write_file notes.txt"
    assert _saved_notices(ui) == [
        "Checkpoint saved: 1 new path before write_file notes.txt (/rollback to restore)"
    ]
    report = agent.checkpoints.restore(checkpoint.id)
    assert report.deleted == [tmp_path / "notes.txt"] and not (tmp_path / "notes.txt").exists()


def test_one_checkpoint_per_batch_taken_by_the_first_approved_change(
    hermes_home: Path, tmp_path: Path
) -> None:
    files = _build(tmp_path)
    (tmp_path / "keep.txt").write_text("keep\n")
    batch = [
        _terminal("git reset --hard", "t1"),  # denied below: done before the write runs
        {"name": "write_file", "arguments": {"path": "keep.txt", "content": "changed\n"}, "id": "w1"},
        _terminal("rm -rf build", "t2"),
    ]

    class Answers(RecordingUI):
        def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision:
            self.approval_requests.append(request)
            return ApprovalDecision.DENY if "git" in request.command else ApprovalDecision.ONCE

    ui = Answers()
    with ScriptedServer({"name": "t", "calls": [{"tool_calls": batch}, {"text": "done"}]}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, ui=ui)
        agent.run_conversation("go")
    (checkpoint,) = agent.checkpoints.list()
    assert checkpoint.label == "write_file keep.txt (+1 more)"
    assert checkpoint.command == "rm -rf build"
    assert (tmp_path / "keep.txt").read_text() == "changed\n" and not (tmp_path / "build").exists()
    agent.checkpoints.restore(checkpoint.id)
    assert (tmp_path / "keep.txt").read_text() == "keep\n"
    assert all(p.read_bytes() == data for p, data in files.items())


def test_parallel_writes_wait_for_the_one_snapshot(tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("A")
    b.write_text("B")
    calls = [
        ToolCall(id="1", name="write_file", arguments='{"path": "a.txt", "content": "x"}'),
        ToolCall(id="2", name="write_file", arguments='{"path": "b.txt", "content": "y"}'),
    ]
    saved: list[str] = []
    guard = BatchCheckpoint(
        CheckpointManager(tmp_path / "cps", "s"), calls, cwd=tmp_path, on_saved=lambda c: saved.append(c.id)
    )
    start = threading.Barrier(2)

    def write(call: ToolCall, path: Path) -> None:
        start.wait()
        guard.before_mutation(call)
        path.write_text("changed")

    threads = [threading.Thread(target=write, args=args) for args in ((calls[0], a), (calls[1], b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(saved) == 1
    checkpoint = guard.manager.get(saved[0])
    assert checkpoint is not None and checkpoint.file_count == 2
    guard.manager.restore(checkpoint.id, backup=False)
    assert (a.read_text(), b.read_text()) == ("A", "B")


def test_a_read_only_call_takes_no_checkpoint(tmp_path: Path) -> None:
    calls = [ToolCall(id="1", name="terminal", arguments='{"command": "ls -la"}')]
    guard = BatchCheckpoint(CheckpointManager(tmp_path / "cps", "s"), calls, cwd=tmp_path)
    guard.before_mutation(calls[0])
    assert guard.checkpoint is None and guard.manager.list() == []

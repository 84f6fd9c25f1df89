"""execute_code against the scripted server, through the real SDK: the script runs in a child Python and
calls the session's tools over its RPC channel (same registry, same approval gate)."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from agent.children.groups import group_alive
from agent.core.events import ChildEvent, ChildFinished, ChildStarted, ToolFinished, ToolStarted
from agent.core.ui import ApprovalDecision
from scripted import ScriptedServer
from tests.cli_process import run_cli
from tests.engine.helpers import make_agent, tool_results
from tests.recording_ui import RecordingUI

ROOT = Path(__file__).resolve().parents[2]


def scenario(code: str, final: str = "done") -> str:
    call = {"tool_calls": [{"name": "execute_code", "arguments": {"code": code}, "id": "call_x"}]}
    return json.dumps({"name": "execute_code", "calls": [call, {"text": final}]})


def run(code: str, hermes_home: Path, cwd: Path, ui: RecordingUI | None = None, **settings: object) -> dict:
    """The execute_code result the model got back (Hermes' JSON object), and the recording UI."""
    with ScriptedServer(scenario(code)) as server:
        agent, _store, ui = make_agent(server, hermes_home, cwd, ui=ui, **settings)
        result = agent.run_conversation("go")
        requests = server.requests
    assert result.exit_reason == "completed"
    content = dict(tool_results(requests[-1].body, "openai"))["call_x"]
    out: dict = json.loads(content)
    out["_ui"] = ui
    return out


def test_a_script_reads_a_file_through_hermes_tools_and_its_print_is_the_result(
    hermes_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("first line\nthe answer is 42\n")
    code = (
        "from hermes_tools import read_file\n"
        "r = read_file('notes.txt')\n"
        "line = [l for l in r['content'].splitlines() if 'answer' in l][0]\n"
        "print(line.split('|', 1)[1], r['total_lines'])\n"
    )
    result = run(code, hermes_home, tmp_path)
    assert result["status"] == "success"
    assert result["output"] == "the answer is 42 2\n"
    assert result["tool_calls_made"] == 1 and result["exit_code"] == 0
    ui: RecordingUI = result["_ui"]
    # the inner call is shown nested in the execute_code panel
    assert [(e.label, e.call_id) for e in ui.of_type(ChildStarted)] == [("script", "call_x")]
    inner = [e.event for e in ui.of_type(ChildEvent) if e.call_id == "call_x"]
    assert [type(e) for e in inner] == [ToolStarted, ToolFinished]
    assert (
        isinstance(inner[0], ToolStarted) and inner[0].name == "read_file" and inner[0].summary == "notes.txt"
    )
    assert [(f.status, f.tool_calls) for f in ui.of_type(ChildFinished)] == [("completed", 1)]
    # ...and not as a call of the parent's own
    assert [e.name for e in ui.of_type(ToolStarted)] == ["execute_code"]


def test_the_script_runs_in_the_session_cwd_without_the_agents_keys(
    hermes_home: Path, tmp_path: Path
) -> None:
    os.environ["SOME_SERVICE_API_KEY"] = "sk-secret"
    try:
        code = "import os\nprint(os.getcwd())\nprint(os.environ.get('SOME_SERVICE_API_KEY'))\n"
        result = run(code, hermes_home, tmp_path)
    finally:
        del os.environ["SOME_SERVICE_API_KEY"]
    assert result["output"].splitlines() == [str(tmp_path), "None"]


def test_a_risky_terminal_call_inside_a_script_goes_through_the_approval_gate(
    hermes_home: Path, tmp_path: Path
) -> None:
    target = tmp_path / "precious"
    target.mkdir()
    ui = RecordingUI(approval=ApprovalDecision.DENY)
    code = (
        "from hermes_tools import terminal\n"
        f"r = terminal('rm -rf {target}')\n"
        "print(r['status'], r.get('error', '')[:40])\n"
    )
    result = run(code, hermes_home, tmp_path, ui=ui)
    assert [r.command for r in ui.approval_requests] == [f"rm -rf {target}"]
    assert target.exists()
    assert result["output"].startswith("denied")


def test_a_script_may_call_only_the_sandbox_tools_the_session_offers(
    hermes_home: Path, tmp_path: Path
) -> None:
    code = (
        "import hermes_tools\n"
        "print(hasattr(hermes_tools, 'terminal'), hasattr(hermes_tools, 'read_file'))\n"
        "print(hermes_tools._call('delegate_task', {'goal': 'x'})['error'][:45])\n"
    )
    result = run(code, hermes_home, tmp_path, toolsets=["file", "code_execution"])
    assert result["output"].splitlines() == [
        "False True",
        "Tool 'delegate_task' is not available in exec",
    ]


def test_the_call_limit(hermes_home: Path, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    code = (
        "from hermes_tools import read_file\n"
        "rs = [read_file('a.txt') for _ in range(4)]\n"
        "print([('error' in r) for r in rs])\n"
    )
    result = run(code, hermes_home, tmp_path, code_execution_max_tool_calls=3)
    assert result["output"] == "[False, False, False, True]\n"
    assert result["tool_calls_made"] == 3


def test_a_script_that_raises_gives_its_traceback(hermes_home: Path, tmp_path: Path) -> None:
    result = run("print('before')\nraise ValueError('boom')\n", hermes_home, tmp_path)
    assert result["status"] == "error" and result["exit_code"] == 1
    assert result["output"].startswith("before\n\n--- stderr ---\nTraceback")
    assert "ValueError: boom" in result["error"]
    ui: RecordingUI = result["_ui"]
    assert [(f.status, f.error) for f in ui.of_type(ChildFinished)] == [("error", "ValueError: boom")]


def test_ten_megabytes_of_output_are_capped_with_a_note(hermes_home: Path, tmp_path: Path) -> None:
    code = "import sys\nfor i in range(10_000):\n    sys.stdout.write(str(i % 10) * 1000)\nprint('THE END')\n"
    result = run(code, hermes_home, tmp_path)
    assert result["status"] == "success"
    assert result["stdout_truncated"] is True
    assert result["stdout_bytes_total"] == 10_000_000 + len("THE END\n")
    assert result["stdout_bytes_captured"] == 50_000
    assert "[OUTPUT TRUNCATED - " in result["output"] and result["output"].endswith("THE END\n")
    assert len(result["output"].encode()) < 50_200


def test_a_script_that_never_ends_is_killed_at_the_timeout(hermes_home: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    code = (
        "import os, subprocess, time\n"
        f"p = subprocess.Popen(['sleep', '300'])\nopen({str(pidfile)!r}, 'w').write(str(os.getpgrp()))\n"
        "print('started', flush=True)\nwhile True:\n    time.sleep(1)\n"
    )
    result = run(code, hermes_home, tmp_path, code_execution_timeout=2)
    assert result["status"] == "timeout"
    assert result["error"] == "Script timed out after 2s and was killed."
    assert result["output"].startswith("started\n") and "⏰" in result["output"]
    assert not group_alive(int(pidfile.read_text()))  # the sleep it started died with it


def test_an_interrupt_kills_the_script_and_what_it_started(hermes_home: Path, tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    code = (
        "import os, subprocess, time\n"
        f"p = subprocess.Popen(['sleep', '300'])\nopen({str(pidfile)!r}, 'w').write(str(os.getpgrp()))\n"
        "while True:\n    time.sleep(1)\n"
    )
    from agent.children.supervisor import SUPERVISOR

    with ScriptedServer(scenario(code)) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path)
        turn = threading.Thread(target=agent.run_conversation, args=("go",))
        turn.start()
        deadline = time.monotonic() + 30
        while not pidfile.exists() or not pidfile.read_text():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        pgid = int(pidfile.read_text())
        # the script's group is the supervisor's while it runs (the reaper stops it after a kill -9)
        assert [c.label for c in SUPERVISOR.children() if c.pgid == pgid] == ["execute_code script"]
        agent.interrupt()
        turn.join(30)
    assert not turn.is_alive()
    assert not group_alive(pgid)
    assert all(c.pgid != pgid for c in SUPERVISOR.children())
    finished = [e for e in ui.of_type(ToolFinished) if e.name == "execute_code"]
    assert [f.status for f in finished] == ["cancelled"]
    assert "[execution interrupted" in finished[0].result


def test_headless_a_risky_terminal_in_a_script_is_denied_without_yolo(
    hermes_home: Path, tmp_path: Path
) -> None:
    target = tmp_path / "precious"
    target.mkdir()
    code = f"from hermes_tools import terminal\nprint(terminal('rm -rf {target}')['status'])\n"
    path = tmp_path / "s.json"
    path.write_text(scenario(code, "I tried."))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"HERMES_HOME": str(hermes_home), "PYTHONPATH": str(ROOT)})
    proc = run_cli(["-z", "clean", "--scenario", str(path)], cwd=tmp_path, env=env, timeout=90)
    assert proc.returncode == 0, proc.stderr
    assert target.exists()
    assert "I tried." in proc.stdout


def test_in_the_os_sandbox_the_script_runs_inside_it_and_still_reaches_its_tools(
    hermes_home: Path, tmp_path: Path
) -> None:
    """With `sandbox.mode: workspace-write` the script is bounded like a terminal command (a write outside
    fails, no Unix socket of the machine is reachable) and calls its tools over the socket pair it
    inherits."""
    from tests.engine.environments.test_sandbox import BWRAP_PROBLEM

    if BWRAP_PROBLEM:
        pytest.skip(BWRAP_PROBLEM)
    outside = Path.home() / f".hermes-sandbox-exec-{os.getpid()}"
    code = (
        "import socket\n"
        "from hermes_tools import terminal\n"
        "open('inside.txt', 'w').write('ok')\n"
        "try:\n"
        f"    open({str(outside)!r}, 'w').write('escaped')\n"
        "except OSError as exc:\n"
        "    print('outside refused:', exc.strerror)\n"
        "try:\n"
        "    socket.socket(socket.AF_UNIX)\n"
        "except OSError as exc:\n"
        "    print('unix socket refused:', exc.strerror)\n"
        "print(terminal('cat inside.txt')['output'])\n"
    )
    try:
        result = run(code, hermes_home, tmp_path, sandbox_mode="workspace-write")
        assert result["status"] == "success", result
        assert (tmp_path / "inside.txt").read_text() == "ok" and not outside.exists()
        assert "outside refused: Read-only file system" in result["output"]
        assert "unix socket refused: Operation not permitted" in result["output"]
        assert result["output"].rstrip().endswith("ok") and result["tool_calls_made"] == 1
    finally:
        outside.unlink(missing_ok=True)

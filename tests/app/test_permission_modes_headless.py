"""`-z` in each permission mode on the scripted server (issue 43's acceptance): plan writes no file, runs no
command and asks nothing, and the results the model gets say plan mode; ask denies an edit without
`--yolo`; default writes it; `-r` of a session left in plan starts in plan."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from scripted import ScriptedServer
from tests.cli_process import run_cli

ROOT = Path(__file__).resolve().parents[2]


def _run(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"HERMES_HOME": str(home), "PYTHONPATH": str(ROOT)})
    return run_cli(args, cwd=cwd, env=env, timeout=90)


def _write_and_run(marker: Path, turn: int = 1) -> dict[str, Any]:
    """The model writes a file and runs a command that would leave a marker, then answers."""
    return {
        "name": "write-and-run",
        "calls": [
            {
                "tool_calls": [
                    {
                        "name": "write_file",
                        "arguments": {"path": "plan.txt", "content": "hello\n"},
                        "id": f"w{turn}",
                    },
                    {"name": "terminal", "arguments": {"command": f"echo ran > {marker}"}, "id": f"t{turn}"},
                ]
            },
            {"text": "Here is my plan: 1. write plan.txt 2. run the command."},
        ],
    }


def _endpoint(server: ScriptedServer) -> list[str]:
    return ["--base-url", server.openai_base_url, "--model", "m", "--provider", "custom", "--api-key", "k"]


def _tool_results(server: ScriptedServer) -> list[str]:
    """What the model got back for this turn's two calls (the last request's last two tool results)."""
    last = server.requests[-1].body["messages"]
    return [str(m.get("content")) for m in last if m.get("role") == "tool"][-2:]


def test_plan_mode_writes_nothing_runs_nothing_asks_nothing(hermes_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    with ScriptedServer(_write_and_run(marker)) as server:
        args = [
            "-z",
            "tidy up",
            "--permission-mode",
            "plan",
            "--output-format",
            "stream-json",
            *_endpoint(server),
        ]
        proc = _run(args, tmp_path, hermes_home)
        results = _tool_results(server)
        first_user = next(m for m in server.requests[0].body["messages"] if m.get("role") == "user")
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "plan.txt").exists()
    assert not marker.exists()
    assert "denied (headless" not in proc.stderr  # refused by the mode, never asked
    assert len(results) == 2 and all("plan mode" in r for r in results), results
    assert "Plan mode is active" in str(first_user["content"])  # the model is told
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    init = next(e for e in events if e.get("subtype") == "init")
    assert init["permissionMode"] == "plan"
    refusals = [e for e in events if e.get("subtype") == "approval"]
    assert {e["tool_name"] for e in refusals} == {"write_file", "terminal"}
    assert all(e["decision"] == "deny" and "plan" in e["why"] for e in refusals)


def test_ask_mode_denies_an_edit_headless_without_yolo(hermes_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    with ScriptedServer(_write_and_run(marker)) as server:
        proc = _run(["-z", "tidy up", "--permission-mode", "ask", *_endpoint(server)], tmp_path, hermes_home)
        results = _tool_results(server)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "plan.txt").exists() and not marker.exists()
    assert "ask mode: every file edit asks" in proc.stderr
    assert all("BLOCKED" in r for r in results), results


def test_ask_mode_with_yolo_approves_what_it_asks(hermes_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    with ScriptedServer(_write_and_run(marker)) as server:
        args = ["-z", "go", "--permission-mode", "ask", "--yolo", *_endpoint(server)]
        proc = _run(args, tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "plan.txt").read_text() == "hello\n" and marker.exists()
    assert "approved (--yolo)" in proc.stderr


def test_default_mode_writes_the_file(hermes_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    with ScriptedServer(_write_and_run(marker)) as server:
        proc = _run(["-z", "go", *_endpoint(server)], tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "plan.txt").read_text() == "hello\n"
    assert marker.exists()  # `echo > file` in the working directory is not risky in default mode


def test_resume_of_a_plan_session_starts_in_plan(hermes_home: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    with ScriptedServer(_write_and_run(marker)) as server:
        first = _run(["-z", "look", "--permission-mode", "plan", *_endpoint(server)], tmp_path, hermes_home)
        assert first.returncode == 0, first.stderr
        with sqlite3.connect(hermes_home / "tui" / "state.db") as db:
            (session_id, stored), *_ = db.execute("SELECT id, permission_mode FROM sessions").fetchall()
        assert stored == "plan"
        server.load(_write_and_run(marker, 2), clear_requests=True)
        again = _run(["-z", "go on", "-r", session_id, *_endpoint(server)], tmp_path, hermes_home)
        results = _tool_results(server)
    assert again.returncode == 0, again.stderr
    assert not (tmp_path / "plan.txt").exists() and not marker.exists()
    assert all("plan mode" in r for r in results), results


def test_an_unknown_mode_is_one_line_naming_the_modes(hermes_home: Path, tmp_path: Path) -> None:
    proc = _run(["-z", "hi", "--permission-mode", "careful", "--demo"], tmp_path, hermes_home)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "hermes-tui: --permission-mode: unknown permission mode 'careful'; "
        "the modes are: default, ask, plan, yolo"
    ]

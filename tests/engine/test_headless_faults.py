"""`hermes-tui -z` under faults (issue 20 items 9, 10, 11, 15; issue 19's headless rough edges), in a
subprocess as a user runs it: one line and an exit code, never a traceback; nothing the model chose reaches
the terminal as an escape (captured from a real pty)."""

from __future__ import annotations

import json
import os
import pty
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agent.store import SessionStore
from tests.cli_process import run_cli

ROOT = Path(__file__).resolve().parents[2]
ESCAPES = "\x1b]2;PWNED\x07"
ANSWER = "plain \x1b[31mred\x1b[0m clip\x1b]52;c;SGVsbG8=\x07 reset\x1bc end"


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"HERMES_HOME": str(home), "PYTHONPATH": str(ROOT)})
    return env


def _run(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(args, cwd=cwd, env=_env(home), timeout=90)


def _escaping_scenario(tmp_path: Path) -> Path:
    path = tmp_path / "escapes.json"
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": f"echo hi # {ESCAPES}"}}]},
        {"text": ANSWER},
    ]
    path.write_text(json.dumps({"name": "escapes", "calls": calls}))
    return path


def test_on_a_terminal_nothing_the_model_chose_is_an_escape(hermes_home: Path, tmp_path: Path) -> None:
    scenario = _escaping_scenario(tmp_path)
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "hermes_tui.cli", "-z", "go", "--scenario", str(scenario), "--yolo"],
        cwd=tmp_path,
        env=_env(hermes_home),
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
    )
    os.close(follower)
    received = bytearray()

    def read() -> None:
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the process closed its end
                return
            if not chunk:
                return
            received.extend(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    assert proc.wait(timeout=90) == 0
    reader.join(timeout=30)
    os.close(leader)
    shown = received.decode("utf-8", "replace")
    assert "\x1b" not in shown and "\x07" not in shown, repr(shown)
    assert "echo hi # \\x1b]2;PWNED\\x07" in shown  # the trace shows what the command holds
    assert "plain \\x1b[31mred\\x1b[0m clip\\x1b]52;c;SGVsbG8=\\x07 reset\\x1bc end" in shown


def test_piped_answer_is_byte_exact_and_the_trace_still_safe(hermes_home: Path, tmp_path: Path) -> None:
    proc = _run(
        ["-z", "go", "--scenario", str(_escaping_scenario(tmp_path)), "--yolo"], tmp_path, hermes_home
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ANSWER + "\n"
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr
    assert "PWNED" in proc.stderr


def test_empty_prompt_is_refused(hermes_home: Path, tmp_path: Path) -> None:
    proc = _run(["-z", "  ", "--demo"], tmp_path, hermes_home)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "hermes-tui: -z needs a prompt (it is empty): hermes-tui -z 'what to do'"
    assert not (hermes_home / "tui" / "state.db").exists()  # no session, no turn


def test_headless_output_has_no_rollback_hint(hermes_home: Path, tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    calls = [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": str(target), "content": "new\n"}}]},
        {"text": "written"},
    ]
    scenario = tmp_path / "write.json"
    scenario.write_text(json.dumps({"name": "write", "calls": calls}))
    target.write_text("old\n")
    proc = _run(["-z", "edit", "--scenario", str(scenario), "--yolo"], tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    assert "Checkpoint saved" in proc.stderr
    assert "/rollback" not in proc.stderr + proc.stdout


def test_newer_schema_is_not_written_by_headless(hermes_home: Path, tmp_path: Path) -> None:
    db = hermes_home / "tui" / "state.db"
    SessionStore(db).close()
    raw = sqlite3.connect(db)
    raw.execute("INSERT INTO schema_version (version, applied_at) VALUES (99, 0)")
    raw.commit()
    raw.close()
    proc = _run(["-z", "hi", "--demo"], tmp_path, hermes_home)
    assert proc.returncode == 1
    assert "schema version 99" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert sqlite3.connect(db).execute("SELECT count(*) FROM sessions").fetchone()[0] == 0


@pytest.mark.parametrize("fault", ["home_is_file", "garbage_db"])
def test_unusable_store_is_one_line(hermes_home: Path, tmp_path: Path, fault: str) -> None:
    home = hermes_home
    if fault == "home_is_file":
        home = tmp_path / "home-file"
        home.write_text("x")
        expected = "is a file"
    else:
        (home / "tui").mkdir(parents=True)
        (home / "tui" / "state.db").write_bytes(os.urandom(8192))
        expected = "hermes-tui doctor"
    proc = _run(["-z", "hi", "--demo"], tmp_path, home)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0] and "Traceback" not in proc.stderr


def test_scenario_of_random_bytes_is_one_line(hermes_home: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "broken.yaml"
    scenario.write_bytes(b"calls:\n  - text: \xff\xfe\x00garbage\n")
    proc = _run(["-z", "hi", "--scenario", str(scenario)], tmp_path, hermes_home)
    assert proc.returncode == 2
    assert (
        proc.stderr.strip()
        == f"hermes-tui: cannot load scenario {scenario}: line 2: expected UTF-8 text (byte 0xff is not)"
    )

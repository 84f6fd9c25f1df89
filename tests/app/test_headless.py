"""`hermes-tui -z` end to end, in a subprocess, against the scripted server (no network)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.cli_process import run_cli

ROOT = Path(__file__).resolve().parents[2]


def _run(
    args: list[str],
    cwd: Path,
    home: Path,
    timeout: float = 90,
    stdin: str | None = None,
    extra_env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"HERMES_HOME": str(home), "PYTHONPATH": str(ROOT), **(extra_env or {})})
    return run_cli(args, cwd=cwd, env=env, timeout=timeout, input=stdin)


def test_demo_prints_the_answer(hermes_home: Path, tmp_path: Path) -> None:
    proc = _run(["-z", "hello", "--demo"], tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    assert "## What you just saw" in proc.stdout
    assert "def fib(n: int) -> int:" in proc.stdout
    assert "┊ terminal: pwd" in proc.stderr
    assert "Traceback" not in proc.stderr


def _rm_scenario(tmp_path: Path, target: Path) -> Path:
    scenario = tmp_path / "rm.yaml"
    scenario.write_text(
        "name: rm\n"
        "calls:\n"
        f"  - tool_calls: [{{name: terminal, arguments: {{command: 'rm -rf {target}'}}}}]\n"
        "  - text: I tried to remove it.\n"
    )
    return scenario


def test_risky_command_is_denied_without_yolo(hermes_home: Path, tmp_path: Path) -> None:
    target = tmp_path / "precious"
    target.mkdir()
    (target / "file.txt").write_text("keep me")
    proc = _run(["-z", "clean up", "--scenario", str(_rm_scenario(tmp_path, target))], tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    assert target.exists() and (target / "file.txt").read_text() == "keep me"
    assert "I tried to remove it." in proc.stdout
    assert "denied" in proc.stderr


def test_yolo_runs_the_risky_command(hermes_home: Path, tmp_path: Path) -> None:
    target = tmp_path / "scratch"
    target.mkdir()
    proc = _run(
        ["-z", "clean up", "--yolo", "--scenario", str(_rm_scenario(tmp_path, target))], tmp_path, hermes_home
    )
    assert proc.returncode == 0, proc.stderr
    assert not target.exists()


def test_unconfigured_provider_is_a_clear_error(hermes_home: Path, tmp_path: Path) -> None:
    proc = _run(["-z", "hello"], tmp_path, hermes_home)
    assert proc.returncode == 1  # as the README says: a one-line error
    assert "no model provider configured" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_unreachable_provider_is_one_line(hermes_home: Path, tmp_path: Path) -> None:
    # Port 9 on loopback: nothing listens, the connection is refused at once (no network involved).
    (hermes_home / "tui").mkdir(parents=True, exist_ok=True)
    (hermes_home / "tui" / "config.yaml").write_text("max_retries: 0\n")
    proc = _run(
        [
            "-z",
            "hello",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--api-key",
            "sk-secret-value-123",
        ],
        tmp_path,
        hermes_home,
    )
    assert proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if line.startswith("hermes-tui:")]
    assert lines and ("Could not reach" in lines[-1] or "Nothing is listening at" in lines[-1])
    assert "Traceback" not in proc.stderr
    assert "sk-secret-value-123" not in proc.stderr + proc.stdout


def test_config_masks_the_api_key(hermes_home: Path, tmp_path: Path) -> None:
    proc = _run(["config", "--api-key", "sk-abcdefghijklmnop", "--model", "gpt-4o"], tmp_path, hermes_home)
    assert proc.returncode == 0
    assert "sk-abcdefghijklmnop" not in proc.stdout
    assert "sk-…mnop" in proc.stdout


def test_401_exits_non_zero_with_the_hint(hermes_home: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "auth.yaml"
    scenario.write_text(
        "name: auth\ncalls:\n  - fault: {status: 401, message: 'Incorrect API key provided'}\n"
    )
    proc = _run(["-z", "hello", "--scenario", str(scenario)], tmp_path, hermes_home)
    assert proc.returncode == 1
    last = [line for line in proc.stderr.splitlines() if line.startswith("hermes-tui:")][-1]
    assert "API key was rejected" in last and "Traceback" not in proc.stderr


def test_401_from_deepseek_names_its_key_variable(hermes_home: Path, tmp_path: Path) -> None:
    from scripted import ScriptedServer

    fault = {"status": 401, "message": "Authentication Fails, Your api key: ****abcd is invalid"}
    with ScriptedServer({"name": "auth", "calls": [{"fault": fault}]}) as server:
        args = [
            "-z",
            "hi",
            "--provider",
            "deepseek",
            "-m",
            "deepseek-chat",
            "--base-url",
            server.openai_base_url,
        ]
        proc = _run(args, tmp_path, hermes_home, extra_env={"DEEPSEEK_API_KEY": "sk-wrong"})
    assert proc.returncode == 1
    last = [line for line in proc.stderr.splitlines() if line.startswith("hermes-tui:")][-1]
    assert "DEEPSEEK_API_KEY" in last and "OPENAI_API_KEY" not in proc.stderr
    assert "Traceback" not in proc.stderr


def test_content_filter_prints_a_sentence_not_the_raw_reason(hermes_home: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "refused.yaml"
    scenario.write_text("name: refused\ncalls:\n  - {text: '', finish_reason: content_filter}\n")
    proc = _run(["-z", "hello", "--scenario", str(scenario)], tmp_path, hermes_home)
    assert proc.returncode == 1
    last = [line for line in proc.stderr.splitlines() if line.startswith("hermes-tui:")][-1]
    assert "declined to respond" in last and "error:content_filter" not in proc.stderr


def test_a_budget_summary_is_never_blank(hermes_home: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "budget.yaml"
    scenario.write_text(
        "name: budget\ncalls:\n"
        "  - tool_calls: [{name: terminal, arguments: {command: 'echo one'}, id: t1}]\n"
        "  - tool_calls: [{name: terminal, arguments: {command: 'echo two'}, id: t2}]\n"
        "  - {text: ''}\n"
    )
    args = ["-z", "work", "--scenario", str(scenario), "--max-iterations", "1", "--yolo"]
    proc = _run(args, tmp_path, hermes_home)
    assert proc.returncode == 0
    assert "couldn't generate a summary" in proc.stdout
    assert "asking once more" in proc.stderr


def test_a_one_shot_session_keeps_its_first_message_title_and_asks_for_none(
    hermes_home: Path, tmp_path: Path
) -> None:
    """No title request beside the turn's end: the process ends with its answer, and the request would be
    made or cut off at exit depending on timing. The session keeps the title its first message gave it."""
    from agent.store import SessionStore
    from scripted import ScriptedServer

    scenario = {"name": "one", "calls": [{"text": "done"}, {"text": "A Model Made Title"}]}
    with ScriptedServer(scenario) as server:
        args = ["-z", "rename the helpers", *_endpoint_args(server)]
        proc = _run(args, tmp_path, hermes_home)
        asked = len(server.requests)
    assert proc.returncode == 0, proc.stderr
    assert asked == 1
    store = SessionStore(hermes_home / "tui" / "state.db")
    (info,) = store.list_sessions()
    store.close()
    assert info.title == "rename the helpers"


def _endpoint_args(server: Any) -> list[str]:
    return ["--base-url", server.openai_base_url, "--model", "m", "--provider", "custom", "--api-key", "k"]


def test_continue_resumes_the_latest_session_here(hermes_home: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "two.yaml"
    scenario.write_text("name: two\ncalls:\n  - text: first answer\n  - text: second answer\n")
    first = _run(["-z", "remember the number 7", "--scenario", str(scenario)], tmp_path, hermes_home)
    assert first.returncode == 0 and "first answer" in first.stdout
    # A new process (the scripted server restarts from its first call, so point it at the second one).
    scenario.write_text("name: two\ncalls:\n  - text: second answer\n")
    second = _run(["-z", "which number?", "-c", "--scenario", str(scenario)], tmp_path, hermes_home)
    assert second.returncode == 0 and "second answer" in second.stdout
    from agent.store import SessionStore

    store = SessionStore(hermes_home / "tui" / "state.db")
    sessions = store.list_sessions()
    assert len(sessions) == 1
    roles = [m.role for m in store.load(sessions[0].id).messages]
    assert roles == ["user", "assistant", "user", "assistant"]
    store.close()


def test_a_reply_that_broke_off_prints_what_came_and_exits_1(hermes_home: Path, tmp_path: Path) -> None:
    (hermes_home / "tui").mkdir(parents=True, exist_ok=True)
    (hermes_home / "tui" / "config.yaml").write_text("max_retries: 0\n")
    scenario = tmp_path / "cut.yaml"
    scenario.write_text(
        "name: cut\ncalls:\n"
        "  - {text: 'The first half of the answer', chunk_size: 5, fault: {kind: close, after_chunks: 3}}\n"
    )
    proc = _run(["-z", "question", "--scenario", str(scenario)], tmp_path, hermes_home)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.strip() == "The first half"
    lines = [line for line in proc.stderr.splitlines() if "connection closed before the reply" in line]
    assert len(lines) == 1 and lines[0].startswith("hermes-tui:")
    assert "Traceback" not in proc.stderr


def test_a_budget_spent_thinking_exits_1_with_that_line(hermes_home: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "think.yaml"
    scenario.write_text("name: think\ncalls:\n  - {text: '<think>On and on and on', finish_reason: length}\n")
    proc = _run(["-z", "question", "--scenario", str(scenario)], tmp_path, hermes_home)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.strip() == "", "the reasoning is not the answer"
    assert "whole output budget thinking" in proc.stderr.splitlines()[-1]


def test_background_processes_do_not_outlive_headless_mode(hermes_home: Path, tmp_path: Path) -> None:
    import json
    import uuid

    from tests.engine.tools.test_processes import ps_lines

    token = f"tok{uuid.uuid4().hex[:10]}"
    scenario = tmp_path / "bg.yaml"
    call = {"name": "terminal", "arguments": {"command": f"sleep 30; echo {token}", "background": True}}
    scenario.write_text(json.dumps({"name": "bg", "calls": [{"tool_calls": [call]}, {"text": "Started."}]}))
    proc = _run(["-z", "start it", "--scenario", str(scenario)], tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    assert "Started." in proc.stdout
    assert "stopped background process proc_1" in proc.stderr
    assert ps_lines(token) == []


def test_image_flag_attaches_images_and_a_bad_one_is_one_line(hermes_home: Path, tmp_path: Path) -> None:
    from PIL import Image

    from agent.images import refs_of
    from agent.store import SessionStore

    Image.new("RGB", (40, 30), (0, 90, 200)).save(tmp_path / "a.png")
    Image.new("RGB", (20, 20), (0, 200, 0)).save(tmp_path / "b.jpg")
    scenario = tmp_path / "see.yaml"
    scenario.write_text("name: see\ncalls:\n  - text: Two pictures.\n")
    args = ["-z", "what are these?", "--image", "a.png", "--image", "b.jpg", "--scenario", str(scenario)]
    proc = _run(args, tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    assert "Two pictures." in proc.stdout
    store = SessionStore(hermes_home / "tui" / "state.db")
    first = store.load(store.list_sessions()[0].id).messages[0]
    store.close()
    assert first.content == "what are these?"
    attached = [(r.name, r.width, r.height) for r in refs_of(first.meta)]
    assert attached == [("a.png", 40, 30), ("b.jpg", 20, 20)]

    (tmp_path / "notes.txt").write_text("text")
    proc = _run(["-z", "see", "--image", "notes.txt", "--scenario", str(scenario)], tmp_path, hermes_home)
    assert proc.returncode == 2
    last_line = proc.stderr.strip().splitlines()[-1]
    assert last_line == "hermes-tui: --image: notes.txt is not an image Pillow can read"
    assert "Traceback" not in proc.stderr


def test_dash_reads_the_prompt_from_stdin(hermes_home: Path, tmp_path: Path) -> None:
    from agent.store import SessionStore

    scenario = tmp_path / "one.yaml"
    scenario.write_text("name: one\ncalls:\n  - text: read it\n")
    proc = _run(
        ["-z", "-", "--scenario", str(scenario)], tmp_path, hermes_home, stdin="from a pipe\nline two\n"
    )
    assert proc.returncode == 0, proc.stderr
    assert "read it" in proc.stdout
    store = SessionStore(hermes_home / "tui" / "state.db")
    try:
        (info,) = store.list_sessions()
        users = [m.content for m in store.load(info.id).messages if m.role == "user"]
    finally:
        store.close()
    assert users == ["from a pipe\nline two\n"]


def test_version_and_prompt_given_twice(hermes_home: Path, tmp_path: Path) -> None:
    proc = _run(["--version"], tmp_path, hermes_home)
    assert proc.returncode == 0 and proc.stdout.startswith("hermes-tui ")
    proc = _run(["-z", "one", "two", "--demo"], tmp_path, hermes_home)
    assert proc.returncode == 2 and "give the prompt once" in proc.stderr


def _user_messages(home: Path) -> list[str]:
    from agent.store import SessionStore

    store = SessionStore(home / "tui" / "state.db")
    try:
        (info,) = store.list_sessions()
        return [m.content for m in store.load(info.id).messages if m.role == "user"]
    finally:
        store.close()


def test_piped_stdin_goes_with_the_prompt(hermes_home: Path, tmp_path: Path) -> None:
    """`cat src/calc.py | hermes-tui -z "explain this code"`: the model sees the file (as with claude -p)."""
    scenario = tmp_path / "one.yaml"
    scenario.write_text("name: one\ncalls:\n  - text: it adds\n")
    code = "def add(a, b):\n    return a + b  # @decorators stay text\n"
    proc = _run(["-z", "explain this code", "--scenario", str(scenario)], tmp_path, hermes_home, stdin=code)
    assert proc.returncode == 0, proc.stderr
    assert "it adds" in proc.stdout
    assert _user_messages(hermes_home) == ["explain this code\n\n" + code.rstrip("\n")]


def test_piped_stdin_is_capped_with_a_note_and_binary_is_refused(hermes_home: Path, tmp_path: Path) -> None:
    from hermes_tui.piped_input import CAP

    scenario = tmp_path / "one.yaml"
    scenario.write_text("name: one\ncalls:\n  - text: long\n")
    big = "0123456789abcdef\n" * (CAP // 17 + 2000)
    proc = _run(["-z", "summarize", "--scenario", str(scenario)], tmp_path, hermes_home, stdin=big)
    assert proc.returncode == 0, proc.stderr
    assert "stdin is longer than 256 KB" in proc.stderr
    (sent,) = _user_messages(hermes_home)
    assert sent.startswith("summarize\n\n0123456789abcdef\n") and len(sent) < CAP + 200
    assert sent.endswith("[stdin was longer than 256 KB: cut there]")

    binary = subprocess.run(
        [sys.executable, "-m", "hermes_tui.cli", "-z", "what is this", "--scenario", str(scenario)],
        cwd=tmp_path,
        env={**os.environ, "HERMES_HOME": str(tmp_path / "other"), "PYTHONPATH": str(ROOT)},
        input=b"\x7fELF\x02\x01\x00\x00binary",
        capture_output=True,
        timeout=60,
    )
    assert binary.returncode == 2
    assert binary.stderr.decode().strip().splitlines()[-1].startswith("hermes-tui: stdin is not text")


def test_a_refused_local_server_fails_at_once_with_one_line(hermes_home: Path, tmp_path: Path) -> None:
    import socket
    import time

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.monotonic()
    proc = _run(
        [
            "-z",
            "hello",
            "--base-url",
            f"http://127.0.0.1:{port}/v1",
            "--model",
            "m",
            "--provider",
            "custom",
            "--api-key",
            "k",
        ],
        tmp_path,
        hermes_home,
    )
    took = time.monotonic() - started
    assert proc.returncode == 1
    last = [line for line in proc.stderr.splitlines() if line.startswith("hermes-tui:")][-1]
    assert "Nothing is listening at" in last and "Traceback" not in proc.stderr
    assert "retry" not in proc.stderr.lower()  # no backoff: a server that is not running stays down
    assert took < 15, f"took {took:.1f} s"  # a process start included (it took 18.5 s with the retries)


def test_continue_keeps_the_sessions_model_unless_model_is_given(hermes_home: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "three.yaml"
    scenario.write_text("name: three\ncalls:\n  - text: one\n  - text: two\n  - text: three\n")
    base = ["--scenario", str(scenario)]
    assert _run(["-z", "first", *base, "--model", "model-a"], tmp_path, hermes_home).returncode == 0
    proc = _run(["-z", "second", "-c", *base], tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    from agent.store import SessionStore

    store = SessionStore(hermes_home / "tui" / "state.db")
    try:
        (info,) = store.list_sessions()
        assert info.model == "model-a"  # -c did not switch to the default model
    finally:
        store.close()
    proc = _run(["-z", "third", "-c", *base, "--model", "model-b"], tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    import sqlite3

    with sqlite3.connect(hermes_home / "tui" / "state.db") as db:
        models = [row[0] for row in db.execute("SELECT model FROM usage ORDER BY id")]
    assert models == ["model-a", "model-a", "model-b"]  # the call of each run, by the model it went to


def _json_lines(stdout: str) -> list[dict[str, object]]:
    """Every line of stdout parsed: one that is not a JSON object fails the test."""
    events = [json.loads(line) for line in stdout.splitlines()]
    assert events and all(isinstance(event, dict) for event in events)
    return events


def test_stream_json_holds_the_tool_call_its_result_and_the_usage(hermes_home: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "tool.yaml"
    scenario.write_text(
        "name: tool\ncalls:\n"
        "  - tool_calls: [{name: terminal, arguments: {command: 'echo from-the-tool'}}]\n"
        "  - {text: 'All done here.', chunk_size: 4}\n"
    )
    args = ["-z", "run it", "--scenario", str(scenario), "--output-format", "stream-json"]
    proc = _run(args, tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    events = _json_lines(proc.stdout)
    init, result = events[0], events[-1]
    assert (init["type"], init["subtype"]) == ("system", "init")
    assert init["session_id"] and "terminal" in init["tools"]  # type: ignore[operator]
    uses = [
        block
        for event in events
        if event["type"] == "assistant"
        for block in event["message"]["content"]  # type: ignore[index]
        if block["type"] == "tool_use"
    ]
    assert [(u["name"], u["input"]) for u in uses] == [("terminal", {"command": "echo from-the-tool"})]
    results = [
        block
        for event in events
        if event["type"] == "user"
        for block in event["message"]["content"]  # type: ignore[index]
    ]
    assert len(results) == 1 and results[0]["tool_use_id"] == uses[0]["id"]
    assert "from-the-tool" in results[0]["content"] and results[0]["is_error"] is False
    deltas = "".join(
        e["event"]["delta"]["text"]  # type: ignore[index]
        for e in events
        if e["type"] == "stream_event"
    )
    assert deltas == "All done here."
    assert result["type"] == "result" and result["subtype"] == "success" and result["is_error"] is False
    assert result["result"] == "All done here." and result["num_turns"] == 2
    assert result["session_id"] == init["session_id"]
    assert result["usage"]["input_tokens"] > 0 and result["usage"]["output_tokens"] > 0  # type: ignore[index]
    assert "┊ terminal" not in proc.stderr  # the trace is the JSON now


def test_json_prints_one_result_and_a_failed_turn_keeps_its_exit_code(
    hermes_home: Path, tmp_path: Path
) -> None:
    scenario = tmp_path / "auth.yaml"
    scenario.write_text(
        "name: auth\ncalls:\n  - fault: {status: 401, message: 'Incorrect API key provided'}\n"
    )
    for output in ("json", "stream-json"):
        proc = _run(
            ["-z", "hello", "--scenario", str(scenario), "--output-format", output], tmp_path, hermes_home
        )
        assert proc.returncode == 1, proc.stderr  # as in text mode
        events = _json_lines(proc.stdout)
        if output == "json":
            assert len(events) == 1
        result = events[-1]
        assert result["type"] == "result" and result["is_error"] is True and result["exit_code"] == 1
        assert result["subtype"] == "error_during_execution"
        assert "API key was rejected" in str(result["error"])
        assert "Traceback" not in proc.stderr


def test_stream_json_lists_a_refused_command(hermes_home: Path, tmp_path: Path) -> None:
    target = tmp_path / "precious"
    target.mkdir()
    scenario = _rm_scenario(tmp_path, target)
    proc = _run(
        ["-z", "go", "--scenario", str(scenario), "--output-format", "stream-json"], tmp_path, hermes_home
    )
    assert proc.returncode == 0, proc.stderr
    events = _json_lines(proc.stdout)
    approvals = [e for e in events if e.get("subtype") == "approval"]
    assert len(approvals) == 1 and approvals[0]["decision"] == "deny"
    assert events[-1]["permission_denials"] == [
        {k: approvals[0][k] for k in ("tool_name", "command", "reasons")}
    ]
    assert target.exists()


def test_output_format_needs_a_headless_prompt(hermes_home: Path, tmp_path: Path) -> None:
    proc = _run(["--output-format", "json"], tmp_path, hermes_home)
    assert proc.returncode == 2 and "--output-format is for -z" in proc.stderr


def _two_tools_then_text(tmp_path: Path) -> Path:
    scenario = tmp_path / "budget.yaml"
    scenario.write_text(
        "name: budget\ncalls:\n"
        "  - tool_calls: [{name: terminal, arguments: {command: 'echo one'}, id: t1}]\n"
        "  - tool_calls: [{name: terminal, arguments: {command: 'echo two'}, id: t2}]\n"
        "  - {text: 'Summary: ran two commands.'}\n"
    )
    return scenario


def test_max_turns_stops_after_n_calls_with_the_summary_and_writes_the_usage_file(
    hermes_home: Path, tmp_path: Path
) -> None:
    usage = tmp_path / "out" / "usage.json"
    args = ["-q", "work", "--scenario", str(_two_tools_then_text(tmp_path)), "--max-turns", "1", "--yolo"]
    proc = _run([*args, "--usage-file", str(usage)], tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    assert "budget exhausted (1/1)" in proc.stderr and "echo two" not in proc.stderr
    report = json.loads(usage.read_text())
    assert report["api_calls"] == 1 and report["failed"] is False and report["completed"] is False
    assert report["input_tokens"] > 0 and report["model"] and report["session_id"]
    assert "estimated_cost_usd" in report


def test_a_failed_run_still_writes_the_usage_file(hermes_home: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "auth.yaml"
    scenario.write_text(
        "name: auth\ncalls:\n  - fault: {status: 401, message: 'Incorrect API key provided'}\n"
    )
    usage = tmp_path / "usage.json"
    proc = _run(["-z", "hi", "--scenario", str(scenario), "--usage-file", str(usage)], tmp_path, hermes_home)
    assert proc.returncode == 1
    report = json.loads(usage.read_text())
    assert report["failed"] is True and "API key was rejected" in report["failure"]


def test_quiet_leaves_out_the_tool_trace(hermes_home: Path, tmp_path: Path) -> None:
    args = [
        "--query",
        "work",
        "-Q",
        "--scenario",
        str(_two_tools_then_text(tmp_path)),
        "--yolo",
        "--checkpoints",
    ]
    proc = _run(args, tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Summary: ran two commands."
    assert "┊ terminal" not in proc.stderr


def test_toolsets_flag_chooses_the_tools_and_names_an_unknown_one(hermes_home: Path, tmp_path: Path) -> None:
    scenario = tmp_path / "hi.yaml"
    scenario.write_text("name: hi\ncalls:\n  - text: hello\n")
    base = ["-z", "hi", "--scenario", str(scenario), "--output-format", "stream-json"]
    proc = _run([*base, "-t", "file"], tmp_path, hermes_home)
    assert proc.returncode == 0, proc.stderr
    tools = _json_lines(proc.stdout)[0]["tools"]
    assert "read_file" in tools and "terminal" not in tools  # type: ignore[operator]
    proc = _run([*base, "--toolsets", "file,nosuch"], tmp_path, hermes_home)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "-t/--toolsets: unknown toolset 'nosuch'" in proc.stderr


def test_flags_that_cannot_be_honoured_are_one_line(hermes_home: Path, tmp_path: Path) -> None:
    proc = _run(["-z", "hi", "--demo", "--skills", "review"], tmp_path, hermes_home)
    assert proc.returncode == 2 and "--skills" in proc.stderr and "/SKILL-NAME" in proc.stderr
    for flags in (["-Q"], ["--usage-file", "u.json"]):
        proc = _run(flags, tmp_path, hermes_home)
        assert proc.returncode == 2 and "is for -z PROMPT" in proc.stderr, flags

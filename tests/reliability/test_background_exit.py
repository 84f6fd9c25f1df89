"""Background processes kept on purpose (issue 33 item 1): everything the app started is stopped with it
(tests/reliability/orphans.py, test_sighup_tmux.py) but a process the user named in
`terminal.keep_on_exit`, which is kept, and said so."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from tests.cli_process import run_cli
from tests.reliability import orphans
from tests.reliability.campaign import _env
from tests.reliability.procs import cmdline


def _running(marker: str, home: Path) -> list[int]:
    return [pid for pid in orphans.marked(home) if marker in cmdline(pid)]


@pytest.mark.slow
def test_a_background_process_named_in_keep_on_exit_outlives_the_app_on_purpose(tmp_path: Path) -> None:
    """`-z` starts two background sleeps; `terminal.keep_on_exit` names one. At the end the other is
    stopped and said so, the named one is said to be kept and still runs 2 s after `-z` is gone (the reaper
    did not take it either), its output going to the log file the line names."""
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    cwd.mkdir()
    (home / "tui").mkdir(parents=True)
    (home / "config.yaml").write_text("terminal:\n  keep_on_exit: ['sleep 611']\n")
    kept_cmd = "echo kept-started; sleep 611"
    scenario = {
        "name": "keep",
        "calls": [
            {
                "tool_calls": [
                    {"name": "terminal", "arguments": {"command": kept_cmd, "background": True}},
                    {"name": "terminal", "arguments": {"command": "sleep 612", "background": True}},
                ]
            },
            {"text": "Both started."},
        ],
    }
    path = tmp_path / "keep.json"
    path.write_text(json.dumps(scenario))
    try:
        done = run_cli(
            ["-z", "start them", "--scenario", str(path), "--yolo"], cwd=cwd, env=_env(home), timeout=90
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert "Traceback" not in done.stderr
        lines = done.stderr.splitlines()
        [kept_line] = [line for line in lines if "kept background process" in line]
        assert "sleep 611" in kept_line and "terminal.keep_on_exit" in kept_line, kept_line
        assert any("stopped background process" in line and "sleep 612" in line for line in lines), lines
        time.sleep(2.0)  # past the reaper's grace: it must not have been told to stop it
        assert _running("sleep 611", home), "the kept process is gone"
        assert not _running("sleep 612", home), "the other one outlived the app"
        log = Path(kept_line.rsplit("output in ", 1)[1].rstrip(")"))
        assert log.read_text().startswith("kept-started"), log
        assert (log.stat().st_mode & 0o777) == 0o600
        leftovers = home / "tui" / "leftovers.jsonl"
        assert not leftovers.exists() or "sleep 611" not in leftovers.read_text()
    finally:
        for pid in orphans.marked(home):
            try:
                os.killpg(os.getpgid(pid), signal.SIGKILL)
            except OSError:
                pass

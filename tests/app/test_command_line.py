"""The command line's words: subcommands after global options, a prompt that looks like a subcommand,
and the TUI refused (one line, exit 2) where there is no terminal."""

from __future__ import annotations

import argparse
import os
import pty
import subprocess
import sys
from pathlib import Path

from pytest import MonkeyPatch

from tests.app.test_headless import _run

ROOT = Path(__file__).resolve().parents[2]


def test_options_before_a_subcommand_run_the_subcommand(hermes_home: Path, tmp_path: Path) -> None:
    """`hermes-tui -p work config`, `--yolo config`, `--model X usage`: the subcommand runs (they used to
    open the TUI and send "config" to the model)."""
    work = hermes_home / "profiles" / "work"
    work.mkdir(parents=True)
    (work / "config.yaml").write_text(
        "model: {default: profile-model, provider: custom, base_url: http://127.0.0.1:9/v1}\n"
    )
    for argv, wanted in (
        (["-p", "work", "config"], "profile-model"),
        (["--profile=work", "config"], "profile-model"),
        (["--yolo", "config"], "yolo"),
        (["--model", "other-model", "config"], "other-model"),
        (["--mod", "other-model", "config"], "other-model"),  # argparse's abbreviation takes its value
        (["-m", "other-model", "usage"], "No model calls in this period."),
    ):
        proc = _run(argv, tmp_path, hermes_home, timeout=60)
        assert proc.returncode == 0, (argv, proc.stderr)
        assert wanted in proc.stdout, (argv, proc.stdout)
        assert "Traceback" not in proc.stderr


def test_cron_after_options_keeps_its_action(hermes_home: Path, tmp_path: Path) -> None:
    proc = _run(["--yolo", "cron", "list"], tmp_path, hermes_home, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("No scheduled jobs")
    proc = _run(["--yolo", "cron", "nonsense"], tmp_path, hermes_home, timeout=60)
    assert proc.returncode == 2 and "unknown cron action 'nonsense'" in proc.stderr


def _tui_args(monkeypatch: MonkeyPatch, tmp_path: Path, argv: list[str]) -> argparse.Namespace:
    """The arguments the TUI would open with (the app itself is not started)."""
    from hermes_tui import app as app_module
    from hermes_tui import cli

    started: list[argparse.Namespace] = []
    monkeypatch.setattr(app_module, "run_fast_app", lambda args, snapshot, load: started.append(args) or 0)
    monkeypatch.setattr(cli, "missing_terminal", lambda: None)  # pytest holds stdin and stdout
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "home"))
    assert cli._run(argv) == 0
    (args,) = started
    return args


def test_a_prompt_that_starts_with_a_subcommands_name_is_a_prompt(
    tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    """As with Claude Code: only a word that is exactly a subcommand's name runs it; a prompt of more words
    is a prompt, and `--` makes even the bare name one."""
    assert _tui_args(monkeypatch, tmp_path, ["config the linter"]).message == "config the linter"
    monkeypatch.undo()
    assert _tui_args(monkeypatch, tmp_path, ["--yolo", "usage of tokens?"]).message == "usage of tokens?"
    monkeypatch.undo()
    args = _tui_args(monkeypatch, tmp_path, ["--model", "x", "--", "config"])
    assert args.message == "config" and args.model == "x"
    monkeypatch.undo()
    assert _tui_args(monkeypatch, tmp_path, ["-m", "config"]).model == "config"  # an option's value


def test_the_tui_without_a_terminal_says_how_to_run_headless(hermes_home: Path, tmp_path: Path) -> None:
    """`hermes-tui < /dev/null` (cron, CI, nohup): one line naming `-z` and exit 2, at once (it used to
    start a full-screen app on no terminal that never exited, its input thread spinning)."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"HERMES_HOME": str(hermes_home), "PYTHONPATH": str(ROOT)})
    for argv in ([], ["--demo"], ["sessions"], ["hello there"]):
        with open(os.devnull, "rb") as devnull:
            proc = subprocess.run(
                [sys.executable, "-m", "hermes_tui.cli", *argv],
                cwd=tmp_path,
                env=env,
                stdin=devnull,
                capture_output=True,
                text=True,
                timeout=60,  # a TUI on no terminal never ended: the deadline fails the test
            )
        assert proc.returncode == 2, (argv, proc.stderr)
        assert proc.stderr.strip() == (
            "hermes-tui: no terminal on stdin: the TUI needs one; to run without it use -z PROMPT "
            "(-z - reads the prompt from stdin)"
        )
        assert proc.stdout == ""
    leader, follower = pty.openpty()  # a terminal on stdin, a pipe on stdout (`hermes-tui | tee log`)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "hermes_tui.cli"],
            cwd=tmp_path,
            env=env,
            stdin=follower,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        os.close(leader)
        os.close(follower)
    assert proc.returncode == 2
    assert proc.stderr.startswith("hermes-tui: no terminal on stdout: the TUI needs one")
    scenario = tmp_path / "one.yaml"
    scenario.write_text("name: one\ncalls:\n  - text: read it\n")
    proc = _run(["-z", "-", "--scenario", str(scenario)], tmp_path, hermes_home, stdin="hello")
    assert proc.returncode == 0, proc.stderr  # -z - still reads stdin that is not a terminal
    assert proc.stdout.strip() == "read it"


def test_a_home_of_no_such_user_is_a_path_not_a_traceback(hermes_home: Path, tmp_path: Path) -> None:
    """`~name` naming no user (`Path.expanduser` raises for it) in `--cwd`, `--hermes-home`, `HERMES_HOME`
    and `--image` stays as typed: the run goes on to its usual one-line message."""
    for argv, env in (
        (["--cwd", "~no-such-user-zq/x", "config"], {}),
        (["--hermes-home", "~no-such-user-zq/h", "config"], {}),
        (["config"], {"HERMES_HOME": "~no-such-user-zq/h"}),
        (["-z", "hi", "--demo", "--image", "~no-such-user-zq/a.png"], {}),
    ):
        proc = _run(argv, tmp_path, hermes_home, timeout=60, extra_env=env)
        assert "Traceback" not in proc.stderr, (argv, proc.stderr)
        assert "Could not determine home directory" not in proc.stderr + proc.stdout


def test_accept_hooks_on_the_command_line_is_hooks_auto_accept(hermes_home: Path) -> None:
    from agent.config.settings import load_settings
    from hermes_tui.cli import _flags, build_parser

    args = build_parser().parse_args(["--accept-hooks", "-z", "hi"])
    loaded = load_settings(_flags(args), env={"HERMES_HOME": str(hermes_home)})
    assert loaded.settings.hooks_auto_accept is True
    assert loaded.sources["hooks_auto_accept"] == "flag --accept-hooks"

"""A `terminal.backend` that cannot be used stops `-z` before anything runs, with one line, and exits
non-zero: the probe command's marker file is never made (no command of the session runs on the host);
`hermes-tui config` and `doctor` name the backend."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.cli_process import run_cli

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow  # a whole hermes-tui process per test


def _run(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("TERMINAL_")
    }
    env.update({"HERMES_HOME": str(home), "PYTHONPATH": str(ROOT)})
    return run_cli(args, cwd=cwd, env=env, timeout=90)


def _probe(tmp_path: Path, marker: Path) -> Path:
    scenario = tmp_path / "probe.yaml"
    scenario.write_text(
        "name: probe\ncalls:\n"
        f"  - tool_calls: [{{name: terminal, arguments: {{command: 'touch {marker}'}}}}]\n"
        "  - text: I ran it.\n"
    )
    return scenario


@pytest.mark.parametrize(
    ("terminal", "says"),
    [
        (
            "{backend: singularity}",
            "terminal.backend is singularity, which hermes-tui cannot run commands on",
        ),
        ("{backend: modal}", "terminal.backend is modal, which hermes-tui cannot run commands on"),
        ("{backend: dockr}", "terminal.backend is 'dockr', which is not a backend"),
        (
            "{backend: ssh, ssh_host: 127.0.0.1, ssh_port: 1, ssh_user: nobody}",
            "ssh nobody@127.0.0.1:1: cannot connect",
        ),
        ("{backend: ssh}", "terminal.backend is ssh but terminal.ssh_host is not set"),
    ],
)
def test_a_backend_that_cannot_be_used_stops_before_anything_runs(
    hermes_home: Path, tmp_path: Path, terminal: str, says: str
) -> None:
    (hermes_home / "config.yaml").write_text(f"terminal: {terminal}\n")
    marker = tmp_path / "ran-on-the-host"
    proc = _run(
        ["-z", "touch the marker", "--yolo", "--scenario", str(_probe(tmp_path, marker))],
        tmp_path,
        hermes_home,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("hermes-tui: ") and says in lines[0], proc.stderr
    assert "terminal.backend: local` on purpose" in lines[0]  # how to choose the host, knowingly
    assert "Traceback" not in proc.stderr
    assert not marker.exists()
    assert "I ran it." not in proc.stdout  # the model was never asked


def test_config_and_doctor_name_the_backend(hermes_home: Path, tmp_path: Path) -> None:
    (hermes_home / "config.yaml").write_text("terminal:\n  backend: singularity\n")
    config = _run(["config"], tmp_path, hermes_home)
    row = next(line for line in config.stdout.splitlines() if line.startswith("terminal "))
    assert "singularity" in row and "config.yaml" in row
    assert "terminal.backend is singularity" in config.stdout
    doctor = _run(["doctor"], tmp_path, hermes_home)
    assert doctor.returncode == 1
    assert "tools run: singularity" in doctor.stdout
    assert "  problem: terminal.backend is singularity" in doctor.stdout


def test_the_environment_variables_choose_the_backend_too(hermes_home: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"HERMES_HOME": str(hermes_home), "PYTHONPATH": str(ROOT), "TERMINAL_ENV": "daytona"})
    proc = run_cli(["config"], cwd=tmp_path, env=env)
    row = next(line for line in proc.stdout.splitlines() if line.startswith("terminal "))
    assert "daytona" in row and "env TERMINAL_ENV" in row


def test_a_config_that_cannot_be_read_never_means_local(hermes_home: Path, tmp_path: Path) -> None:
    """`terminal: backend: docker` on one line does not parse: the choice is in that file, so nothing runs
    (one config line says what is wrong, one says why nothing runs), unless TERMINAL_ENV says local."""
    (hermes_home / "config.yaml").write_text("terminal: backend: docker\n")
    marker = tmp_path / "ran-on-the-host"
    argv = ["-z", "touch the marker", "--yolo", "--scenario", str(_probe(tmp_path, marker))]
    proc = _run(argv, tmp_path, hermes_home)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "config.yaml could not be read, so where tools should run" in proc.stderr
    assert "Traceback" not in proc.stderr and not marker.exists() and "I ran it." not in proc.stdout
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"HERMES_HOME": str(hermes_home), "PYTHONPATH": str(ROOT), "TERMINAL_ENV": "local"})
    chosen = run_cli(argv, cwd=tmp_path, env=env, timeout=90)
    assert chosen.returncode == 0, chosen.stderr
    assert marker.exists()  # local, chosen on purpose

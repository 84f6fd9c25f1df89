"""Nothing of a `terminal.backend` outlives the app: `hermes-tui -z` runs a long command over ssh (the
test's sshd) or in a container (the test's image), then is killed (kill -9) or told to stop (SIGTERM).
After kill -9 the reaper ends the ssh ControlMaster (the command's watch there then stops it) and the
`docker run` client that holds the container (the container stops and goes); after SIGTERM the app does it
itself."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.environment_fixtures import (
    ENGINE_ARGS,
    Sshd,
    build_image,
    container_engine,
    containers_named,
    processes_mentioning,
    start_sshd,
)
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
SIGNALS = [signal.SIGKILL, signal.SIGTERM]


@pytest.fixture
def sshd(tmp_path: Path) -> Iterator[Sshd]:
    server = start_sshd(tmp_path / "sshd")
    yield server
    server.stop()


def _start(home: Path, cwd: Path, token: str, extra_path: Path | None = None) -> subprocess.Popen[str]:
    scenario = cwd / "long.yaml"
    scenario.write_text(
        "name: long\ncalls:\n"
        "  - tool_calls: [{name: terminal, arguments: "
        f"{{command: 'exec -a {token} sleep 120', timeout: 300}}}}]\n"
        "  - text: done\n"
    )
    env = {
        k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.startswith("TERMINAL_")
    }
    env.update({"HERMES_HOME": str(home), "PYTHONPATH": str(ROOT)})
    if extra_path is not None:
        env["PATH"] = f"{extra_path}{os.pathsep}{env['PATH']}"
    return subprocess.Popen(
        [sys.executable, "-m", "hermes_tui.cli", "-z", "run it", "--yolo", "--scenario", str(scenario)],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _named(token: str) -> list[str]:
    return [p for p in processes_mentioning(token) if p.split(": ", 1)[1].startswith(token + " ")]


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_ssh_leaves_nothing(sshd: Sshd, hermes_home: Path, tmp_path: Path, sig: signal.Signals) -> None:
    (hermes_home / "config.yaml").write_text(
        f"terminal:\n  backend: ssh\n  ssh_host: 127.0.0.1\n  ssh_user: root\n  ssh_port: {sshd.port}\n"
        f"  ssh_key: {sshd.key}\n"
    )
    token = f"hermes-exit-ssh-{os.getpid()}-{sig.name}"
    app = _start(hermes_home, tmp_path, token, sshd.bin_dir)
    try:
        wait_until(lambda: _named(token), "the remote command to run", timeout=60)
        ours = f"-p {sshd.port}"  # every ssh process of the app names the test sshd's port
        assert processes_mentioning(ours)
        app.send_signal(sig)
        app.wait(timeout=30)
        wait_until(
            lambda: not processes_mentioning(ours),
            "no ssh process of the app",
            seen=lambda: processes_mentioning(ours),
        )
        wait_until(
            lambda: not _named(token), "the remote command stopped", timeout=10, seen=lambda: _named(token)
        )
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()


@pytest.mark.xdist_group("containers")
@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_docker_leaves_nothing(hermes_home: Path, tmp_path: Path, sig: signal.Signals) -> None:
    engine = container_engine()
    image = build_image(engine, tmp_path / "image")
    args = ", ".join(f"'{a}'" for a in ENGINE_ARGS)
    (hermes_home / "config.yaml").write_text(
        f"terminal:\n  backend: docker\n  docker_image: {image}\n  container_persistent: false\n"
        f"  docker_extra_args: [{args}]\n"
    )
    token = f"hermes-exit-docker-{os.getpid()}-{sig.name}"
    app = _start(hermes_home, tmp_path, token)
    prefix = f"hermes-tui-{app.pid}-"
    try:
        wait_until(lambda: _named(token), "the command to run in the container", timeout=120)
        assert containers_named(engine, prefix)
        app.send_signal(sig)
        app.wait(timeout=30)
        wait_until(lambda: not containers_named(engine, prefix), "the container gone", timeout=30,
                   seen=lambda: containers_named(engine, prefix))  # fmt: skip
        assert not _named(token)
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()

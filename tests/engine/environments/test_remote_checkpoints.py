"""Checkpoints and `/rollback` where the files are not this machine's: an ssh session (the test's sshd)
and a docker session (the test's image) checkpoint before a change and put it back: the changed file's
bytes and mode, the new file gone."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.config.terminal import TerminalSettings
from scripted import ScriptedServer
from tests.engine.helpers import make_agent
from tests.environment_fixtures import ENGINE_ARGS, Sshd, build_image, container_engine, start_sshd

pytestmark = pytest.mark.slow


@pytest.fixture
def sshd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sshd]:
    server = start_sshd(tmp_path / "sshd")
    monkeypatch.setenv("PATH", f"{server.bin_dir}{os.pathsep}{os.environ['PATH']}")
    yield server
    server.stop()


def _edits(folder: str) -> str:
    calls = [
        {
            "tool_calls": [
                {"name": "write_file", "arguments": {"path": f"{folder}/kept.txt", "content": "changed\n"}},
                {"name": "write_file", "arguments": {"path": f"{folder}/new.txt", "content": "new\n"}},
            ]
        },
        {"text": "edited"},
    ]
    return json.dumps({"name": "edits", "calls": calls})


def test_ssh_checkpoint_and_rollback(sshd: Sshd, hermes_home: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "kept.txt").write_text("original\n")
    (work / "kept.txt").chmod(0o640)
    terminal = TerminalSettings(
        backend="ssh", ssh_host="127.0.0.1", ssh_user="root", ssh_port=sshd.port, ssh_key=str(sshd.key),
        cwd=str(work),
    )  # fmt: skip
    with ScriptedServer(_edits(".")) as server:  # paths relative to the working directory there
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, terminal=terminal, yolo=True)
        try:
            assert agent.run_conversation("edit").exit_reason == "completed"
            assert (work / "kept.txt").read_text() == "changed\n" and (work / "new.txt").exists()
            checkpoints = agent.list_checkpoints()
            assert checkpoints and checkpoints[0].where == f"ssh root@127.0.0.1:{sshd.port}"
            assert "1 file and 1 new path" in checkpoints[0].summary
            report = agent.restore_checkpoint(checkpoints[0].id)
        finally:
            agent.close()
    assert report is not None and report.ok, report.errors if report else None
    assert (work / "kept.txt").read_text() == "original\n"
    assert oct((work / "kept.txt").stat().st_mode & 0o777) == oct(0o640)
    assert not (work / "new.txt").exists()
    assert report.backup_id  # the state just before the rollback was saved too


@pytest.mark.xdist_group("containers")
def test_docker_checkpoint_and_rollback(hermes_home: Path, tmp_path: Path) -> None:
    engine = container_engine()
    image = build_image(engine, tmp_path / "image")
    terminal = TerminalSettings(
        backend="docker", docker_image=image, docker_extra_args=ENGINE_ARGS, container_persistent=False
    )
    seed = "mkdir -p /root/w && echo original > /root/w/kept.txt"
    with ScriptedServer(_edits("/root/w")) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, terminal=terminal, yolo=True)
        try:
            name = agent.environment.name  # type: ignore[attr-defined]
            subprocess.run([engine, "exec", name, "sh", "-c", seed], check=True)
            assert agent.run_conversation("edit").exit_reason == "completed"
            checkpoint = agent.list_checkpoints()[0]  # type: ignore[index]
            report = agent.restore_checkpoint(checkpoint.id)
            after = subprocess.run(
                [engine, "exec", name, "sh", "-c", "cat /root/w/kept.txt; ls /root/w"],
                capture_output=True,
                text=True,
            ).stdout
        finally:
            agent.close()
    assert report is not None and report.ok, report.errors if report else None
    assert after.split() == ["original", "kept.txt"]  # the content back, the new file gone

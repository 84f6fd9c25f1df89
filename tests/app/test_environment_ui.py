"""The chat with `terminal.backend`: the status bar says where the tools run; a backend that cannot be
used is one line in the transcript as soon as the engine is ready and every turn stops with it before the
model is asked (never a silent local session); an ssh backend against the test's sshd runs the tools
there and leaves no ssh process after the app."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from agent.config.terminal import TerminalSettings
from hermes_tui.app import HermesApp
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, submit, wait_for
from tests.engine.helpers import tool_results
from tests.environment_fixtures import Sshd, processes_mentioning, start_sshd
from widgets.transcript.entries.notice import NoticeEntry


def _notices(app: HermesApp) -> list[str]:
    return [n.text for n in chat(app).transcript.entries_of(NoticeEntry)]


async def test_a_backend_that_cannot_be_used_says_so_and_no_turn_runs(
    hermes_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran-on-the-host"

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        line = "terminal.backend is singularity, which hermes-tui cannot run commands on"
        await wait_for(
            pilot, lambda: any(line in n for n in _notices(app)), what="the refusal in the transcript"
        )
        assert "⇄ singularity" in screen.status_bar.render().plain
        await submit(pilot, "touch the marker")
        await wait_for(
            pilot, lambda: not screen.busy and sum(line in n for n in _notices(app)) >= 2, what="turn"
        )
        assert server.requests == []  # the model was never asked
        assert not marker.exists()

    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": f"touch {marker}"}}]},
        {"text": "ran"},
    ]
    await run_chat(
        {"name": "t", "calls": calls},
        body,
        home=hermes_home,
        cwd=tmp_path,
        terminal=TerminalSettings(backend="singularity"),
        yolo=True,
    )


@pytest.fixture
def sshd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sshd]:
    server = start_sshd(tmp_path / "sshd")
    monkeypatch.setenv("PATH", f"{server.bin_dir}{os.pathsep}{os.environ['PATH']}")
    yield server
    server.stop()


@pytest.mark.slow
async def test_ssh_backend_in_the_chat(hermes_home: Path, tmp_path: Path, sshd: Sshd) -> None:
    terminal = TerminalSettings(
        backend="ssh", ssh_host="127.0.0.1", ssh_user="root", ssh_port=sshd.port, ssh_key=str(sshd.key)
    )
    label = f"ssh root@127.0.0.1:{sshd.port}"
    folders: list[str] = []

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        assert f"⇄ {label}" in screen.status_bar.render().plain
        await wait_for(
            pilot, lambda: any(f"Tools run in {label}" in n for n in _notices(app)), what="connected"
        )
        await submit(pilot, "where?")
        await wait_for(
            pilot, lambda: not screen.busy and server.requests and len(server.requests) == 2, what="turn"
        )
        assert "via=127.0.0.1" in tool_results(server.requests[1].body, "openai")[0][1]
        folders.append(str(screen.session.agent.environment.socket.parent))  # type: ignore[attr-defined]
        assert processes_mentioning(folders[0])

    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "echo via=$SSH_CONNECTION"}}]},
        {"text": "It ran over ssh."},
    ]
    await run_chat(
        {"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path, terminal=terminal, yolo=True
    )

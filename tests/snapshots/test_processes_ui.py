"""Background processes in the app: `/ps` lists them, shows output and kills; exiting leaves none behind."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from textual.pilot import Pilot

from agent.store import SessionStore
from agent.tools.processes import PROCESSES
from hermes_tui.app import HermesApp
from hermes_tui.screens.modals import ConfirmModal
from hermes_tui.screens.processes import ProcessesScreen
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, submit, wait_for
from tests.engine.tools.test_processes import ps_lines


def _scenario(command: str) -> dict:
    return {
        "name": "bg",
        "calls": [
            {"tool_calls": [{"name": "terminal", "arguments": {"command": command, "background": True}}]},
            {"text": "The server is running in the background."},
        ],
    }


async def test_ps_lists_shows_output_and_kills(hermes_home: Path, tmp_path: Path) -> None:
    token = f"tok{uuid.uuid4().hex[:10]}"

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "start the server")
        await wait_for(pilot, lambda: not chat(app).busy, what="turn end")
        await submit(pilot, "/ps")
        screen = await wait_for(pilot, lambda: isinstance(app.screen, ProcessesScreen) and app.screen)
        info = next(i for i in screen.source.list() if token in i.command)
        assert info.status == "running"
        output = screen.query_one("#output")
        await wait_for(pilot, lambda: f"ready {token}" in str(output.render()), what="output")
        await pilot.press("k")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="confirm")
        await pilot.press("y")
        await wait_for(
            pilot,
            lambda: next(i for i in screen.source.list() if i.id == info.id).status == "killed",
            what="killed",
        )
        assert ps_lines(token) == []
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ProcessesScreen))

    await run_chat(_scenario(f"echo ready {token}; sleep 30"), body, home=hermes_home, cwd=tmp_path)


async def test_ps_with_nothing_running_says_so(hermes_home: Path, tmp_path: Path) -> None:
    PROCESSES.forget()

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        PROCESSES.shutdown()
        PROCESSES.forget()
        await submit(pilot, "/ps")
        screen = await wait_for(pilot, lambda: isinstance(app.screen, ProcessesScreen) and app.screen)
        assert "No background processes" in str(screen.query_one("#output").render())

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path)


async def test_exiting_the_app_stops_background_processes(hermes_home: Path, tmp_path: Path) -> None:
    token = f"tok{uuid.uuid4().hex[:10]}"
    seen: dict[str, str] = {}

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "start the server")
        await wait_for(pilot, lambda: not chat(app).busy, what="turn end")
        assert ps_lines(token), "the background process runs after the turn"
        seen["session"] = chat(app).agent.session_id

    await run_chat(_scenario(f"sleep 30; echo {token}"), body, home=hermes_home, cwd=tmp_path)
    assert ps_lines(token) == []  # checked with ps: nothing of it is left
    store = SessionStore(hermes_home / "tui" / "state.db")
    note = store.load(seen["session"]).messages[-1]
    store.close()
    assert note.meta.get("synthetic") == "processes"
    assert "left running" in note.content and token in note.content


class _StaticSource:
    """Fixed processes and output, so the picture does not depend on a clock or a real process."""

    def __init__(self) -> None:
        from agent.tools.processes import ProcessInfo

        def info(n: int, command: str, status: str, code: int | None, runtime: float) -> ProcessInfo:
            return ProcessInfo(f"proc_{n}", command, "/w", "s", 4000 + n, status, code, runtime, 3)  # type: ignore[arg-type]

        self.infos = [
            info(1, "npm run build", "exited", 0, 42.0),
            info(2, "pytest -x tests/test_slow.py", "exited", 1, 8.5),
            info(3, "python -m http.server 8000", "running", None, 754.0),
        ]

    def list(self):
        return list(self.infos)

    def output(self, process_id: str, lines: int) -> str:
        return "Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ...\n127.0.0.1 - - GET / 200 -"

    def kill(self, process_id: str) -> bool:
        return False


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_ps_screen_snapshot(snap_compare, monkeypatch, size) -> None:
    from tests.snapshots.test_learning_snapshots import ModalSnapshotApp

    monkeypatch.setattr(ProcessesScreen, "REFRESH", False)
    app = ModalSnapshotApp(ProcessesScreen(_StaticSource()))
    assert snap_compare(app, terminal_size=size)

"""The status bar shows the chat's state through reactives bound to the screen's (issue 41, item 3): no
setters; the controller's busy, the turn's usage and a command's model reach it by assignment."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widget import Widget

from hermes_tui.app import HermesApp
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, submit, wait_for
from widgets.status_bar import StatusBar


def test_the_status_bar_has_no_setters() -> None:
    assert [name for name in dir(StatusBar) if name.startswith("set_") and not hasattr(Widget, name)] == []


async def test_the_bar_follows_the_chat_state(hermes_home: Path, tmp_path: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        bar = screen.status_bar
        assert bar.model == "scripted" and not bar.busy
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: screen.busy, what="busy")
        await pilot.pause()
        assert bar.busy and "working" in bar.render().plain
        assert screen.controller.busy
        await wait_for(pilot, lambda: not screen.busy, what="the turn")
        await pilot.pause()
        assert not bar.busy and "idle" in bar.render().plain
        assert bar.usage.prompt_tokens == 1200 and bar.usage.completion_tokens == 40
        await submit(pilot, "/yolo")
        await wait_for(pilot, lambda: bar.yolo and "YOLO" in bar.render().plain, what="YOLO shown")
        screen.model = "provider/other-model"
        await pilot.pause()
        assert "other-model" in bar.render().plain

    calls = [
        {"text": "a reply " * 40, "delay": 0.05, "usage": {"prompt_tokens": 1200, "completion_tokens": 40}}
    ]
    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)

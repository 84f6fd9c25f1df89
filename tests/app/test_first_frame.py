"""What the app defers to its first frame runs after a frame was displayed, not merely laid out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hermes_tui.app import HermesApp
from hermes_tui.chat.screen import ChatScreen
from hermes_tui.first_frame import FirstFrame
from scripted import ScriptedServer
from tests.app.harness import chat_settings, wait_for


def test_callbacks_wait_for_the_first_display_then_run_in_order() -> None:
    scheduled: list[Any] = []
    first = FirstFrame(scheduled.append)
    first.after(lambda: "a")
    first.after(lambda: "b")
    assert scheduled == []  # nothing displayed yet
    first.displayed()
    assert [callback() for callback in scheduled] == ["a", "b"]
    first.displayed()  # a later frame releases nothing again
    assert len(scheduled) == 2
    first.after(lambda: "c")  # after the first frame: scheduled at once
    assert scheduled[-1]() == "c"


async def test_the_engine_and_background_work_start_after_the_first_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual runs `call_after_refresh` callbacks at once while its startup batch holds the frames, so
    the agent was built (and the MCP start, the theme watcher, the prewarm ran) before anything was drawn."""
    frames: list[int] = []  # displayed frames so far, when each deferred piece of work ran
    order: dict[str, int] = {}

    def recorder(name: str, original: Any) -> Any:
        def run(self: Any, *args: Any) -> Any:
            order.setdefault(name, len(frames))
            return original(self, *args)

        return run

    monkeypatch.setattr(ChatScreen, "_engine_ready", recorder("engine", ChatScreen._engine_ready))
    monkeypatch.setattr(
        HermesApp, "_freeze_startup_objects", recorder("freeze", HermesApp._freeze_startup_objects)
    )
    original_display = HermesApp._display

    def display(self: HermesApp, screen: Any, renderable: Any) -> None:
        if renderable is not None and not self._batch_count:
            frames.append(1)
        original_display(self, screen, renderable)

    monkeypatch.setattr(HermesApp, "_display", display)
    with ScriptedServer({"name": "t", "calls": []}) as server:
        app = HermesApp(chat_settings(server, tmp_path / "home", tmp_path))
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(pilot, lambda: len(order) == 2, what="the deferred work")
    assert order == {"engine": 1, "freeze": 1}

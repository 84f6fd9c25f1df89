"""The engine's prewarm thread starts once the chat's engine is built on the UI thread, on a fast start and a
slow one: before, it imported the engine's packages while the UI thread imported the same ones for the chat,
and Python 3.11 fails one of two threads importing a package at once (`_DeadlockError`): a loaded machine
crashed about one start in 200 so (`HermesApp._prewarm_model_client` says how)."""

from __future__ import annotations

import threading
from pathlib import Path

from pytest import MonkeyPatch

from agent.config.settings import LoadedSettings
from hermes_tui.app import FastStart, HermesApp
from scripted import ScriptedServer
from tests.app.harness import chat, chat_settings, wait_for
from tests.app.test_fast_start import SNAPSHOT


def _record_prewarm_starts(monkeypatch: MonkeyPatch, app_of: list[HermesApp]) -> list[bool]:
    """For each start of the prewarm's thread: whether the chat's engine was built by then."""
    seen: list[bool] = []
    start = threading.Thread.start

    def recording(thread: threading.Thread) -> None:
        if thread.name == "sdk-prewarm":
            chat_screen = app_of[0].chat
            seen.append(chat_screen is not None and chat_screen.session.built is not None)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", recording)
    return seen


async def test_a_slow_start_prewarms_once_the_engine_is_built(
    hermes_home: Path, tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    with ScriptedServer({"name": "t", "calls": []}) as server:
        app = HermesApp(chat_settings(server, hermes_home, tmp_path))
        seen = _record_prewarm_starts(monkeypatch, [app])
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: seen, what="the prewarm's thread")
            assert chat(app).session.built is not None
    assert seen == [True]


async def test_a_fast_start_prewarms_once_the_engine_is_built(
    tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    with ScriptedServer({"name": "t", "calls": []}) as server:
        settings = chat_settings(server, tmp_path / "home", tmp_path)
        app = HermesApp(None, fast_start=FastStart(SNAPSHOT, lambda: LoadedSettings(settings)))
        seen = _record_prewarm_starts(monkeypatch, [app])
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: seen, what="the prewarm's thread")
    assert seen == [True]

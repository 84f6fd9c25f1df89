"""The modules of ours the engine's prewarm imports are imported on the UI thread before the prewarm's
thread starts, on a fast start and a slow one: imported by that thread beside the UI thread's making of the
chat, they crashed the app about one start in 200 on a loaded machine (Python 3.11 fails one of two threads
importing a package at once with `_DeadlockError`; `HermesApp._prewarm_model_client` says how)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

from pytest import MonkeyPatch

import agent.api as api
from agent.config.settings import LoadedSettings
from agent.session.prewarm import PREWARM_MODULES
from hermes_tui.app import FastStart, HermesApp
from scripted import ScriptedServer
from tests.app.harness import chat_settings, wait_for
from tests.app.test_fast_start import SNAPSHOT, typed


def _record(monkeypatch: MonkeyPatch) -> list[str]:
    """What happened, in order: the prewarm's imports (and on which thread), its thread's start."""
    events: list[str] = []
    start = threading.Thread.start
    imports = api.import_prewarm_modules

    def recording_start(thread: threading.Thread) -> None:
        if thread.name == "sdk-prewarm":
            events.append("prewarm thread started")
        start(thread)

    def recording_imports() -> None:
        imports()
        loaded = all(name in sys.modules for name in PREWARM_MODULES)
        events.append(f"imported on {threading.current_thread().name}: {loaded}")

    monkeypatch.setattr(threading.Thread, "start", recording_start)
    monkeypatch.setattr(api, "import_prewarm_modules", recording_imports)
    return events


EXPECTED = ["imported on MainThread: True", "prewarm thread started"]


async def test_a_slow_start_imports_the_prewarms_modules_before_its_thread(
    hermes_home: Path, tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    with ScriptedServer({"name": "t", "calls": []}) as server:
        app = HermesApp(chat_settings(server, hermes_home, tmp_path))
        events = _record(monkeypatch)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: "prewarm thread started" in events, what="the prewarm's thread")
    assert events == EXPECTED


async def test_a_fast_start_imports_the_prewarms_modules_before_its_thread(
    tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    with ScriptedServer({"name": "t", "calls": []}) as server:
        settings = chat_settings(server, tmp_path / "home", tmp_path)
        app = HermesApp(None, fast_start=FastStart(SNAPSHOT, lambda: LoadedSettings(settings)))
        events = _record(monkeypatch)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: "prewarm thread started" in events, what="the prewarm's thread")
            await wait_for(pilot, lambda: typed(app) is not None, what="the chat's prompt")
    assert events == EXPECTED


def test_the_prewarm_imports_no_module_of_ours_that_is_not_listed() -> None:
    """`PREWARM_MODULES` names every module of ours the prewarm imports (a new one must be listed, or it is
    imported beside the UI thread again): a fresh interpreter imports the list, then runs the prewarm."""
    import subprocess

    code = (
        "import sys, agent.session.prewarm as p\n"
        "from agent.config.settings import Settings\n"
        "p.import_prewarm_modules()\n"
        "before = set(sys.modules)\n"
        "p.prewarm_engine(Settings(model='m', base_url='http://127.0.0.1:9/v1', api_key='k'))\n"
        "ours = ('agent', 'hermes_tui', 'widgets')\n"
        "new = sorted(m for m in set(sys.modules) - before if m.split('.')[0] in ours)\n"
        "print(new)\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout

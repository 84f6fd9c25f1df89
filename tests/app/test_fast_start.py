"""A fast start: the first frame is the chat's layout drawn from the startup snapshot, before the
configuration is read; then the chat (or the setup screen) takes over, with every key typed meanwhile."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from pytest import MonkeyPatch
from textual import events
from textual.theme import Theme

from agent.config.settings import LoadedSettings, Settings
from hermes_tui.app import FastStart, HermesApp
from hermes_tui.chat.layout import StartingScreen
from hermes_tui.chat.screen import ChatScreen
from hermes_tui.screens.setup import SetupScreen
from hermes_tui.startup_snapshot import DEFAULT_SNAPSHOT, StartupSnapshot, read_snapshot, write_snapshot
from scripted import ScriptedServer
from tests.app.harness import chat, chat_settings, wait_for
from widgets.prompt.input import PromptInput
from widgets.status_bar import StatusBar

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = StartupSnapshot(
    theme=Theme(name="default", primary="#123456", background="#000000"),
    prompt_symbol="λ",
    model="last-model",
)


def type_keys(app: HermesApp, keys: str) -> None:
    for key in keys:
        app.post_message(events.Key(key, key))


class TypingApp(HermesApp):
    """Keys arrive as soon as the app reads the terminal: before its first frame."""

    def on_mount(self) -> None:  # Textual runs HermesApp.on_mount first, as for every class in the MRO
        type_keys(self, "hel")


def typed(app: HermesApp) -> str | None:
    screen = app.screen
    if not isinstance(screen, ChatScreen) or not screen.query(PromptInput):
        return None
    return screen.prompt_input.text


async def test_the_first_frame_is_the_snapshot_and_keys_typed_meanwhile_reach_the_chat(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    with ScriptedServer({"name": "t", "calls": []}) as server:
        settings = chat_settings(server, home, tmp_path, skin="daylight")
        loads: list[str] = []

        def load() -> LoadedSettings:
            # What was on screen while the configuration was read, in which theme; and keys typed then.
            loads.append(f"{type(app.screen).__name__} {app.first_frame.shown} {app.current_theme.primary}")
            type_keys(app, "lo")
            return LoadedSettings(settings)

        app = TypingApp(None, fast_start=FastStart(SNAPSHOT, load))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: typed(app) == "hello", what="the early keys in the chat's prompt")
            screen = chat(app)
            assert loads == ["StartingScreen True #123456"]
            assert app.theme == "daylight"  # the configuration's theme replaced the snapshot's
            assert not any(isinstance(s, StartingScreen) for s in app.screen_stack)
            assert "scripted" in str(screen.query_one(StatusBar).render())
    saved = read_snapshot(home)  # the next launch's first frame: this run's theme, model and SDK
    assert saved is not None and saved.theme.name == "daylight" and saved.model == "scripted"
    assert saved.sdk == "openai"


async def test_a_fast_start_imports_the_sdk_its_snapshot_names_before_reading_the_configuration(
    tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    """The SDK's import is most of what a quick first message waits for: it starts with the starting
    frame, in a thread of its own, before the configuration is read."""
    import agent.api as api

    home = tmp_path / "home"
    imported: list[tuple[str, str, bool]] = []
    monkeypatch.setattr(
        api, "import_sdk", lambda name: imported.append((name, threading.current_thread().name, bool(loads)))
    )
    loads: list[str] = []
    with ScriptedServer({"name": "t", "calls": []}) as server:
        settings = chat_settings(server, home, tmp_path)

        def load() -> LoadedSettings:
            deadline = time.monotonic() + 5
            while not imported and time.monotonic() < deadline:  # the import began before this read
                time.sleep(0.01)
            loads.append("read")
            return LoadedSettings(settings)

        snapshot = StartupSnapshot(theme=SNAPSHOT.theme, prompt_symbol="λ", model="m", sdk="anthropic")
        app = HermesApp(None, fast_start=FastStart(snapshot, load))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: typed(app) is not None, what="the chat")
    assert imported == [("anthropic", "sdk-import", False)]


async def test_a_snapshot_naming_no_sdk_imports_none_early(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    import agent.api as api

    home = tmp_path / "home"
    imported: list[str] = []
    monkeypatch.setattr(api, "import_sdk", imported.append)
    with ScriptedServer({"name": "t", "calls": []}) as server:
        settings = chat_settings(server, home, tmp_path)
        app = HermesApp(None, fast_start=FastStart(SNAPSHOT, lambda: LoadedSettings(settings)))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: typed(app) is not None, what="the chat")
    assert imported == []


async def test_a_fast_start_that_finds_no_provider_shows_the_setup_screen(tmp_path: Path) -> None:
    unconfigured = Settings(hermes_home=tmp_path / "home", cwd=tmp_path)
    app = HermesApp(None, fast_start=FastStart(SNAPSHOT, lambda: LoadedSettings(unconfigured)))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen), what="the setup screen")
        assert not any(isinstance(screen, StartingScreen) for screen in app.screen_stack)
        assert app.key_order.pending == 0  # nothing held: the setup screen takes keys as they come
        await pilot.pause()
        assert app.focused is not None and app.focused.id == "setup-demo"  # `d` / `q` are keys, not text


async def test_a_store_that_cannot_open_ends_a_fast_start_with_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "tui" / "state.db").mkdir(parents=True)  # a folder where the database should be
    with ScriptedServer({"name": "t", "calls": []}) as server:
        settings = chat_settings(server, home, tmp_path)
        app = HermesApp(None, fast_start=FastStart(SNAPSHOT, lambda: LoadedSettings(settings)))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: app.return_value is not None, what="the exit")
    assert app.return_value == 1
    assert app.exit_message is not None and app.exit_message.startswith("hermes-tui: ")
    assert "state.db" in app.exit_message


def test_the_command_line_has_one_start_drawn_from_the_snapshot_or_the_defaults(
    tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    """No snapshot (a first run): the same fast start, its first frame drawn from the defaults; the
    snapshot's first frame needs no pydantic, YAML or store."""
    from hermes_tui import app as app_module
    from hermes_tui import cli

    started: list[StartupSnapshot] = []
    monkeypatch.setattr(
        app_module, "run_fast_app", lambda args, snapshot, load: started.append(snapshot) or 0
    )
    monkeypatch.setattr(cli, "missing_terminal", lambda: None)  # pytest holds stdin and stdout
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "none"))
    assert cli._run([]) == 0
    assert started == [DEFAULT_SNAPSHOT]
    write_snapshot(tmp_path / "none", SNAPSHOT)
    assert cli._run([]) == 0
    assert started == [DEFAULT_SNAPSHOT, SNAPSHOT]
    code = (
        "import sys; import hermes_tui.cli, hermes_tui.app, hermes_tui.chat.layout, "
        "hermes_tui.startup_snapshot, agent.config.home; "
        "print(','.join(m for m in ('pydantic', 'yaml', 'agent.config.settings', 'agent.store', 'sqlite3', "
        "'hermes_tui.chat.screen', 'agent.core.events') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def theme_saved(home: Path) -> str | None:
    snapshot = read_snapshot(home)
    return None if snapshot is None else snapshot.theme.name


async def test_the_usual_start_writes_the_snapshot_and_a_theme_choice_updates_it(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with ScriptedServer({"name": "t", "calls": []}) as server:
        app = HermesApp(chat_settings(server, home, tmp_path))
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: read_snapshot(home) is not None, what="the snapshot")
            assert theme_saved(home) == "default"
            chat(app).submit("/theme ares")
            await wait_for(pilot, lambda: theme_saved(home) == "ares", what="the new theme")
    data: dict[str, Any] = json.loads((home / "tui" / "startup.json").read_text(encoding="utf-8"))
    assert data["model"] == "scripted"
    write_snapshot(home, SNAPSHOT)  # and it is what the next fast start shows
    assert read_snapshot(home) == SNAPSHOT

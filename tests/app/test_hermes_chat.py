"""A Hermes user's home in the running app: a Hermes plugin's command and tool, `/plugins`, `/usage`, the
session's cost in the status bar, continuing a Hermes session from the browser, and a plugin rewriting the
answer. The real app on the scripted server, driven with Pilot."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.pilot import Pilot

from agent.store.library import open_library
from hermes_tui.app import HermesApp
from hermes_tui.screens.sessions import SessionsScreen
from hermes_tui.screens.usage import UsageScreen
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, submit, wait_for
from tests.hermes_home_fixture import QUOKKA_SESSION, copy_hermes_home_0_19
from widgets.transcript.entries.notice import NoticeEntry
from widgets.transcript.entries.reply import ReplyEntry

PLUGINS = Path(__file__).resolve().parent.parent / "fixtures" / "hermes_plugins"


def _notices(app: HermesApp) -> list[str]:
    return [n.text for n in chat(app).transcript.entries_of(NoticeEntry)]


def _install_weather(home: Path) -> None:
    shutil.copytree(PLUGINS / "weather", home / "plugins" / "weather")


async def test_a_hermes_plugin_command_runs_and_is_completed(hermes_home: Path, tmp_path: Path) -> None:
    _install_weather(hermes_home)

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        assert {c.name: c.help for c in screen.commands.plugins} == {
            "forecast": "Today's forecast for a city"
        }
        await submit(pilot, "/forecast Oslo")
        await wait_for(
            pilot, lambda: any("Forecast for Oslo: snow" in n for n in _notices(app)), what="forecast"
        )
        await submit(pilot, "/plugins")
        listing = _notices(app)[-1]
        assert "weather  loaded" in listing and "(Hermes plugin)" in listing
        assert "tools: weather_forecast" in listing and "commands: /forecast" in listing
        # One plugin, one fact per line, as `hermes-tui plugins` prints it (not folded into a paragraph).
        lines = listing.splitlines()
        assert lines[0] == "1 plugin: 1 loaded" and lines[1].startswith("✓ weather  loaded")
        await pilot.pause()
        notice = screen.transcript.entries_of(NoticeEntry)[-1]
        assert notice.measure(screen.transcript.entry_width) >= len(lines) + 1
        assert screen.transcript.tool_icons.get("weather_forecast") == "🌤"

    await run_chat(
        {"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path, plugins_enabled=["weather"]
    )


async def test_the_status_bar_shows_the_sessions_cost(hermes_home: Path, tmp_path: Path) -> None:
    calls = [{"text": "priced", "usage": {"prompt_tokens": 1200, "completion_tokens": 40}}]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "hello")
        await wait_for(
            pilot, lambda: not screen.busy and "$0.0" in screen.status_bar.render().plain, what="cost"
        )
        info = screen.store.get_session(screen.agent.session_id)
        assert info is not None and f"${info.cost_usd:.4f}" in screen.status_bar.render().plain

    await run_chat(
        {"name": "t", "calls": calls},
        body,
        home=hermes_home,
        cwd=tmp_path,
        size=(140, 30),
        model="gpt-4o",
        provider="openai",
    )


async def test_usage_command_opens_the_usage_screen(hermes_home: Path, tmp_path: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/usage")
        usage = await wait_for(
            pilot, lambda: isinstance(app.screen, UsageScreen) and app.screen, what="usage"
        )
        await wait_for(pilot, lambda: usage.report is not None, what="report")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, UsageScreen), what="closed")

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path)


async def test_continuing_a_hermes_session_from_the_browser(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    home = copy_hermes_home_0_19(tmp_path / "hermes")
    monkeypatch.setenv("HERMES_HOME", str(home))
    calls = [{"text": "Yes: quokka."}]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        screen.action_command("sessions")
        browser = await wait_for(
            pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen, what="browser"
        )
        await pilot.press(*"quokka")
        await wait_for(
            pilot, lambda: browser.shown_query == "quokka" and not browser.is_filling, what="search"
        )
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: any("Continuing Hermes session" in n for n in _notices(app)), what="resume"
        )
        copy_id = screen.agent.session_id
        assert not copy_id.startswith("hermes:")
        await submit(pilot, "was it a quokka?")
        await wait_for(pilot, lambda: not screen.busy and server.requests, what="turn")
        assert screen.store.get_session(copy_id).message_count == 6

    with ScriptedServer({"name": "t", "calls": calls}) as server:
        from tests.app.harness import chat_settings

        app = HermesApp(
            chat_settings(server, home, tmp_path), store=open_library(home / "tui" / "state.db", home)
        )
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for(pilot, lambda: any(s.__class__.__name__ == "ChatScreen" for s in app.screen_stack))
            await body(pilot, app, server)
    library = open_library(home / "tui" / "state.db", home)
    try:
        assert library.copy_for(f"hermes:{QUOKKA_SESSION}") is not None
    finally:
        library.close()


async def test_a_plugin_rewriting_the_answer_is_shown(hermes_home: Path, tmp_path: Path) -> None:
    plugin = hermes_home / "plugins" / "shout"
    plugin.mkdir(parents=True)
    (plugin / "plugin.yaml").write_text("name: shout\n")
    (plugin / "__init__.py").write_text(
        "def register(ctx):\n"
        "    ctx.register_hook('transform_llm_output', lambda response_text, **kw: response_text.upper())\n"
    )

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "hi")
        await wait_for(pilot, lambda: "A plugin rewrote the answer:" in _notices(app), what="rewritten")
        replies = [m.text for m in screen.transcript.entries_of(ReplyEntry)]
        assert replies[-2:] == [
            "quiet words",
            "QUIET WORDS",
        ]  # what streamed, then what the plugin made of it
        assert not screen.busy

    await run_chat(
        {"name": "t", "calls": [{"text": "quiet words"}]},
        body,
        home=hermes_home,
        cwd=tmp_path,
        plugins_enabled=["shout"],
    )


async def test_faulty_plugins_leave_the_app_running_with_one_notice_each(
    hermes_home: Path, tmp_path: Path
) -> None:
    """A plugin raising KeyboardInterrupt on import, one raising SystemExit in a hook and one hanging in a
    hook: the app keeps running, the turn completes, and each is one notice (no traceback on screen)."""
    plugins = hermes_home / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "interrupter.py").write_text("raise KeyboardInterrupt('from the plugin')\n")
    (plugins / "quitter.py").write_text("def pre_llm_call(**kw):\n    raise SystemExit(1)\n")
    (plugins / "sleeper.py").write_text("import time\n\ndef on_turn_end(result):\n    time.sleep(30)\n")

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "hi")
        await wait_for(pilot, lambda: any("sleeper" in n for n in _notices(app)), what="the hung hook")
        await wait_for(pilot, lambda: not screen.busy, what="the turn's end")
        notices = _notices(app)
        for name, fault in [
            ("interrupter", "failed to load: KeyboardInterrupt: from the plugin"),
            ("quitter", "failed in pre_llm_call: SystemExit: 1"),
            ("sleeper", "failed in on_turn_end: did not return within 0.5 s (abandoned); plugin disabled"),
        ]:
            lines = [n for n in notices if name in n]
            assert len(lines) == 1 and fault in lines[0], (name, notices)
        assert not any("Traceback" in n for n in notices)
        assert [m.text for m in screen.transcript.entries_of(ReplyEntry)][-1] == "still here"
        assert app.is_running

    await run_chat(
        {"name": "t", "calls": [{"text": "still here"}]},
        body,
        home=hermes_home,
        cwd=tmp_path,
        plugin_hook_timeout=0.5,
    )

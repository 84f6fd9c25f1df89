"""`/reasoning`: the level reaches the next request and the status bar; `hide` leaves the thinking out."""

from __future__ import annotations

from pathlib import Path

import yaml
from textual.pilot import Pilot

from hermes_tui.app import HermesApp
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, submit, wait_for
from widgets.status_bar import StatusBar
from widgets.transcript.entries.notice import NoticeEntry
from widgets.transcript.entries.reasoning import ReasoningEntry


def _notices(app: HermesApp) -> list[str]:
    return [n.text for n in chat(app).transcript.entries_of(NoticeEntry)]


async def test_reasoning_level_show_and_hide(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        {"reasoning": "thinking hard", "text": "first"},
        {"reasoning": "thinking unseen", "text": "second"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        bar = app.screen.query_one(StatusBar)
        assert bar.reasoning == ""  # nothing set: nothing shown
        await submit(pilot, "/reasoning high")
        await wait_for(pilot, lambda: bar.reasoning == "high", what="the level in the status bar")
        assert "◐ high" in bar.render().plain
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: len(server.requests) == 1 and not screen.controller.busy, what="turn")
        assert server.requests[0].body["reasoning_effort"] == "high"  # a custom endpoint takes it so
        await wait_for(pilot, lambda: len(screen.transcript.entries_of(ReasoningEntry)) == 1, what="block")
        await submit(pilot, "/reasoning hide")
        await wait_for(pilot, lambda: any("hidden" in n for n in _notices(app)), what="hide notice")
        saved = yaml.safe_load((hermes_home / "tui" / "config.yaml").read_text())
        assert saved["show_reasoning"] is False
        await submit(pilot, "again")
        await wait_for(pilot, lambda: len(server.requests) == 2 and not screen.controller.busy, what="turn 2")
        await pilot.pause()
        assert len(screen.transcript.entries_of(ReasoningEntry)) == 1  # the second turn's is left out
        await submit(pilot, "/reasoning loud")
        await wait_for(pilot, lambda: any("Unknown reasoning level" in n for n in _notices(app)), what="bad")
        await submit(pilot, "/reasoning")
        await wait_for(pilot, lambda: any("Reasoning effort: high" in n for n in _notices(app)), what="show")

    await run_chat({"name": "r", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_reasoning_on_a_bare_base_url_is_not_claimed(hermes_home: Path, tmp_path: Path) -> None:
    """No provider named (a bare base URL): nothing is sent, as in Hermes, so the status bar shows no level
    and the notice says why and how to send it."""

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        bar = app.screen.query_one(StatusBar)
        await submit(pilot, "/reasoning high")
        await wait_for(pilot, lambda: any("is not sent" in n for n in _notices(app)), what="the warning")
        assert bar.reasoning == "" and "◐" not in bar.render().plain
        assert any("--provider custom" in n for n in _notices(app))

    await run_chat({"name": "r", "calls": ["ok"]}, body, home=hermes_home, cwd=tmp_path, provider="")

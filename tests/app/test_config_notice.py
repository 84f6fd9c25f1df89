"""Configuration problems give one summary notice, and /config lists every one of them."""

from __future__ import annotations

from pathlib import Path

from agent.config.settings import ConfigProblem
from hermes_tui.app import HermesApp
from scripted import ScriptedServer
from tests.app.harness import chat, chat_settings, submit, wait_for
from widgets.transcript.entries.notice import NoticeEntry

PROBLEMS = [ConfigProblem("/h/config.yaml", f"key{i}", "bad", "a number") for i in range(6)]


async def test_six_problems_are_one_notice_and_config_lists_them(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t", "calls": []}) as server:
        app = HermesApp(chat_settings(server, hermes_home, tmp_path), problems=PROBLEMS)
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(pilot, lambda: len(app._notifications) > 0, what="a notice")
            await pilot.pause()
            (notice,) = list(app._notifications)
            assert "6 problems" in notice.message and "/config" in notice.message
            await submit(pilot, "/config")
            texts = [n.text for n in chat(app).transcript.entries_of(NoticeEntry)]
            listed = next(t for t in texts if "configuration problem" in t)
            assert all(f"key{i}" in listed for i in range(6))

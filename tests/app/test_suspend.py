"""Ctrl+Z: undo while the prompt holds text, else the app suspends as a shell's programs do (issue 46,
item 4; the real stop and `fg` are in `tests/e2e/test_suspend_tmux.py`)."""

from __future__ import annotations

from pathlib import Path

from pytest import MonkeyPatch
from textual.pilot import Pilot

from hermes_tui.app import HermesApp
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat


async def test_ctrl_z_undoes_in_a_prompt_with_text_and_suspends_elsewhere(
    hermes_home: Path, tmp_path: Path, monkeypatch: MonkeyPatch
) -> None:
    suspended: list[str] = []
    monkeypatch.setattr(HermesApp, "action_suspend_process", lambda app: suspended.append(app.focused.id))

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        prompt = chat(app).prompt_input
        assert app.focused is prompt
        await pilot.press(*"hello")
        await pilot.press("ctrl+z")  # the typing is undone, nothing suspends
        assert prompt.text == "" and suspended == []
        await pilot.press("ctrl+z")  # an empty prompt: the app suspends
        assert len(suspended) == 1
        await pilot.press(*"draft")
        await pilot.press("tab")  # out of the prompt (to the transcript): Ctrl+Z suspends there too
        assert app.focused is not prompt
        await pilot.press("ctrl+z")
        assert len(suspended) == 2 and prompt.text == "draft"

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path)

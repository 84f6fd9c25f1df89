"""Ctrl+G's temp file ends in a newline (an appended line stays a line); the palette's Screenshot saves
somewhere that exists and says where."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from hermes_tui.app import HermesApp
from hermes_tui.editor import edit_text
from scripted import ScriptedServer
from tests.app.harness import chat_settings, wait_for


def _editor(tmp_path: Path, script: str) -> str:
    editor = tmp_path / "ed.sh"
    editor.write_text(f"#!/bin/sh\n{script}\n")
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    return str(editor)


def test_a_line_appended_by_the_editor_is_its_own_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", _editor(tmp_path, 'echo "second line" >> "$1"'))
    assert edit_text("first line") == "first line\nsecond line"


def test_an_unchanged_prompt_comes_back_unchanged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VISUAL", _editor(tmp_path, "true"))
    assert edit_text("one\ntwo") == "one\ntwo"
    assert edit_text("ends\n") == "ends\n"
    assert edit_text("") == ""


async def test_screenshot_goes_to_the_working_directory(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "no-such-home"))  # no ~/Downloads anywhere
    cwd = tmp_path / "work"
    cwd.mkdir()
    with ScriptedServer({"name": "t", "calls": []}) as server:
        app = HermesApp(chat_settings(server, hermes_home, cwd))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            app.action_screenshot()
            await wait_for(pilot, lambda: any("Screenshot saved" in n.message for n in app._notifications))
    (saved,) = cwd.glob("*.svg")
    assert saved.read_text(encoding="utf-8").startswith("<svg")

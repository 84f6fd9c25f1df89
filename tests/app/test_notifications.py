"""Attention when the terminal is unfocused: the bell, a desktop notification, or nothing."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest
from textual.app import App

from hermes_tui.notifications import request_attention


class BellApp(App[None]):
    """Counts the bells it would send to the terminal."""

    def __init__(self) -> None:
        super().__init__()
        self.bells = 0

    def bell(self) -> None:
        self.bells += 1


@pytest.fixture
def notify_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `notify-send` on PATH that records its arguments, one call per line."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "notify.log"
    script = bin_dir / "notify-send"
    script.write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


def _wait_for_file(path: Path, timeout: float = 10.0) -> str:
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text()):
        assert time.monotonic() < deadline, f"{path} never written"
        time.sleep(0.02)
    return path.read_text()


async def test_desktop_mode_sends_a_notification_instead_of_the_bell(notify_log: Path) -> None:
    app = BellApp()
    async with app.run_test():
        app.app_focus = False
        request_attention(app, "desktop", "The turn has ended.")
        assert "hermes-tui The turn has ended." in _wait_for_file(notify_log)
        assert app.bells == 0


async def test_desktop_mode_without_notify_send_rings_the_bell(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    app = BellApp()
    async with app.run_test():
        app.app_focus = False
        request_attention(app, "desktop", "A question waits.")
        assert app.bells == 1


async def test_nothing_while_focused_or_when_off(notify_log: Path) -> None:
    app = BellApp()
    async with app.run_test():
        app.app_focus = True
        request_attention(app, "bell", "x")
        request_attention(app, "desktop", "x")
        app.app_focus = False
        request_attention(app, "off", "x")
        assert app.bells == 0
        request_attention(app, "bell", "x")
        assert app.bells == 1
    assert not notify_log.exists()

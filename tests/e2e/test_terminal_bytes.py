"""Bytes from a real terminal: invalid UTF-8 and pastes full of escapes (issue 20, items 8 and 16)."""

from __future__ import annotations

import stat
from pathlib import Path

from tests.e2e.test_key_bursts import prompt_line
from tests.e2e.tmux_harness import Tmux, app_env, demo_command, needs_tmux

pytestmark = needs_tmux


def start(tmp_path: Path, home: Path, **env: str) -> Tmux:
    tmux = Tmux((120, 40), demo_command(tmp_path), {**app_env(home), **env})
    tmux.wait_for("Message Hermes")
    return tmux


def test_invalid_utf8_typed_or_pasted_does_not_crash(tmp_path: Path, hermes_home: Path) -> None:
    tmux = start(tmp_path, hermes_home)
    try:
        tmux.hex_keys(b"aa\xe9\xe9bb")
        shown = tmux.wait_until(lambda s: "bb" in prompt_line(s), "the text after the bad bytes never showed")
        assert prompt_line(shown) == "aa\ufffd\ufffdbb"
        tmux.hex_keys(b"\x1b[200~cc\xff\xfedd\x1b[201~")
        shown = tmux.wait_until(lambda s: "dd" in prompt_line(s), "the pasted text never showed")
        assert prompt_line(shown) == "aa\ufffd\ufffdbbcc\ufffd\ufffddd"
        assert "Traceback" not in shown and "UnicodeDecodeError" not in shown
    finally:
        tmux.close()


def test_a_pasted_escape_is_text_in_order_never_a_key(tmp_path: Path, hermes_home: Path) -> None:
    opened = tmp_path / "editor-ran"
    editor = tmp_path / "editor.sh"
    editor.write_text(f"#!/bin/sh\ntouch {opened}\n")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    tmux = start(tmp_path, hermes_home, EDITOR=str(editor), VISUAL=str(editor))
    try:
        tmux.paste("abc\x1b]0;T\x07def \x1b[31mred\x1b[0m end\u009b!")
        expected = "abc\\x1b]0;T\\x07def \\x1b[31mred\\x1b[0m end\\x9b!"
        shown = tmux.wait_until(lambda s: "abc" in prompt_line(s), "the paste never showed")
        assert prompt_line(shown) == expected
        tmux.keys("Enter")
        tmux.wait_for("Hermes asks")  # the demo's first turn: the paste was sent as one message
        assert not opened.exists()  # the BEL was not Ctrl+G
    finally:
        tmux.close()

"""A big paste in a real terminal: bracketed paste becomes one token, Ctrl+G's editor gets the full text and
the pastes it left alone collapse again (issue 19, item 4)."""

from __future__ import annotations

import stat
from pathlib import Path

from tests.e2e.test_key_bursts import prompt_line
from tests.e2e.tmux_harness import Tmux, app_env, demo_command, needs_tmux

pytestmark = needs_tmux

LOG = "\n".join(f"traceback line {i}" for i in range(30))


def test_a_big_paste_is_one_token_and_the_editor_sees_all_of_it(tmp_path: Path, hermes_home: Path) -> None:
    seen = tmp_path / "editor-saw.txt"
    editor = tmp_path / "editor.sh"
    # The editor keeps a copy of what it was given and adds a line at the end.
    editor.write_text(f'#!/bin/sh\ncp "$1" {seen}\necho "thanks" >> "$1"\n')
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    env = {**app_env(hermes_home), "EDITOR": str(editor), "VISUAL": str(editor)}
    tmux = Tmux((120, 40), demo_command(tmp_path), env)
    try:
        tmux.wait_for("Message Hermes")
        tmux.keys("see ")
        tmux.paste(LOG)
        tmux.keys(" please")
        shown = tmux.wait_until(lambda s: "please" in prompt_line(s), "the paste never showed")
        assert prompt_line(shown) == "see [Pasted #1: 30 lines] please"
        assert "traceback line 5" not in shown  # the prompt did not fill with the paste
        tmux.keys("C-g")
        tmux.wait_until(lambda s: seen.exists(), "the editor never ran")
        assert seen.read_text() == f"see {LOG} please\n"
        shown = tmux.wait_until(lambda s: "thanks" in s, "the edited prompt never came back")
        # The untouched paste collapses again; the editor's line is plain text after it.
        assert "see [Pasted #1: 30 lines] please" in shown and "traceback line 5" not in shown
        assert "Traceback" not in shown
    finally:
        tmux.close()

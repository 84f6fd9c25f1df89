"""Keys typed in bursts are never lost, only late: while a theme changes, while every core is busy, and
while the app starts (issue 29, item 6). Each burst is one `send-keys` write, as a fast typist's keys reach
the app; the test then waits (generously: the machine may be loaded on purpose) for the whole text to be in
the prompt, in order.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.e2e.test_key_bursts import prompt_line
from tests.e2e.tmux_harness import Tmux, app_env, demo_command, needs_tmux

pytestmark = needs_tmux

PATIENCE = 90.0
"""Seconds the end state may take under load: keys may be late, never lost."""

THEMES = ("mono", "slate", "daylight", "poseidon")


def start(tmp_path: Path, home: Path) -> Tmux:
    tmux = Tmux((120, 40), f"{demo_command(tmp_path)}; sleep 30", app_env(home))
    tmux.wait_for("for commands", timeout=PATIENCE)  # the chat is up (its welcome line)
    return tmux


def wait_for_prompt(tmux: Tmux, expected: str) -> str:
    """Wait until the prompt holds exactly `expected` (it may get there late); fail if it never does.
    Keep `expected` under 60 characters: the prompt's first line is what is read."""
    try:
        return tmux.wait_until(lambda s: prompt_line(s) == expected, "", timeout=PATIENCE)
    except AssertionError:
        shown = tmux.screen()
        raise AssertionError(f"the prompt shows {prompt_line(shown)!r}, not {expected!r}:\n{shown}") from None


@contextmanager
def saturated_cpu() -> Iterator[None]:
    """One busy loop per core beside the app, for as long as the block runs."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
        for loop in loops:
            loop.wait()


def test_keys_typed_right_after_a_theme_change_all_arrive(tmp_path: Path, hermes_home: Path) -> None:
    tmux = start(tmp_path, hermes_home)
    try:
        for n, theme in enumerate(THEMES):
            word = f"typed{n} after {theme}"
            # `/theme NAME` Enter restyles the whole app; the characters after it are in the same write.
            tmux.keys(f"/theme {theme}", "Enter", word)
            wait_for_prompt(tmux, word)
            tmux.keys("C-u")
            tmux.wait_until(lambda s: prompt_line(s).startswith("Message Hermes"), "Ctrl+U", PATIENCE)
        saved = hermes_home / "tui" / "config.yaml"
        assert THEMES[-1] in saved.read_text()  # every theme change was applied too
        # The picker: it opens, Down previews the next theme (a restyle), Enter chooses it and closes the
        # picker; the characters after it, in the same write, go to the prompt once it has the focus again.
        tmux.keys("/theme", "Enter", "Down", "Enter", "after the picker")
        wait_for_prompt(tmux, "after the picker")
        assert THEMES[-1] not in saved.read_text()  # Down moved off the current theme, Enter chose
    finally:
        tmux.close()


def test_keys_typed_while_every_core_is_busy_all_arrive(tmp_path: Path, hermes_home: Path) -> None:
    tmux = start(tmp_path, hermes_home)
    try:
        with saturated_cpu():
            expected = ""
            for n in range(8):
                burst = f"b{n} fox "
                tmux.keys("-l", burst)
                expected += burst
            wait_for_prompt(tmux, expected.strip())
            tmux.keys("C-u", "after the clear")  # a binding, then characters, in one write
            wait_for_prompt(tmux, "after the clear")
            tmux.keys("C-u", "/theme mono", "Enter", "after a theme")  # a restyle under load
            wait_for_prompt(tmux, "after a theme")
            tmux.keys("-l", " and more")
            wait_for_prompt(tmux, "after a theme and more")
    finally:
        tmux.close()


def test_keys_typed_during_startup_all_arrive_in_order(tmp_path: Path, hermes_home: Path) -> None:
    words = [f"w{n}" for n in range(12)]  # short: the whole text on the prompt's first line
    with saturated_cpu():
        tmux = Tmux((120, 40), f"{demo_command(tmp_path, real=True)}; sleep 30", app_env(hermes_home))
        try:
            for word in words[:4]:
                tmux.keys("-l", f"{word} ")  # before the first frame
            tmux.wait_for("Message Hermes", timeout=PATIENCE)
            for word in words[4:]:
                tmux.keys("-l", f"{word} ")  # while the engine loads behind the first frame
            wait_for_prompt(tmux, " ".join(words))
        finally:
            tmux.close()

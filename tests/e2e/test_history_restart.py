"""Up after a restart shows the last prompt typed in this folder (issue 34, item 4), in a real terminal."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.test_key_bursts import prompt_line
from tests.e2e.tmux_harness import Tmux, app_env, demo_command, needs_tmux

pytestmark = needs_tmux


def _first_run(tmp_path: Path, home: Path, commands: list[tuple[str, str]]) -> None:
    """A run that types each (command, text it shows) and quits with Ctrl+Q: the history to find later."""
    marker = tmp_path / "exited"
    first = Tmux((120, 40), demo_command(tmp_path, marker=marker), app_env(home))
    try:
        first.wait_for("Message Hermes")
        for command, shows in commands:  # commands are history too, and need no model turn
            first.keys(command, "Enter")
            first.wait_for(shows)
            first.keys("Escape")  # closes a screen the command opened; on the prompt it does nothing
            first.wait_until(lambda s: "Message Hermes" in s, f"the prompt did not come back after {command}")
        first.keys("C-q")
        first.wait_exit(marker)
    finally:
        first.close()


def test_up_after_a_restart_shows_the_last_prompt(tmp_path: Path, hermes_home: Path) -> None:
    _first_run(tmp_path, hermes_home, [("/status", "provider")])
    second = Tmux((120, 40), demo_command(tmp_path), app_env(hermes_home))
    try:
        second.wait_for("F1 help")
        second.keys("Up")
        second.wait_until(lambda s: prompt_line(s) == "/status", "Up did not bring back the last prompt")
    finally:
        second.close()


def test_ctrl_r_after_a_restart_finds_an_earlier_prompt_by_a_piece_of_it(
    tmp_path: Path, hermes_home: Path
) -> None:
    _first_run(tmp_path, hermes_home, [("/status", "provider"), ("/help", "Help: keys and commands")])
    second = Tmux((120, 40), demo_command(tmp_path), app_env(hermes_home))
    try:
        second.wait_for("F1 help")
        second.keys("e", "C-r")  # one burst: the piece, then the search
        second.wait_until(lambda s: prompt_line(s) == "/help", "Ctrl+R did not find /help")
        second.keys("BSpace", "stat")  # typing during the search narrows it, in the order typed
        # "s" alone already finds /status: the search is done once it shows all four letters typed.
        second.wait_until(
            lambda s: prompt_line(s) == "/status" and "history search 'stat'" in s,
            "typing did not narrow to /status",
        )
        second.keys("Enter")  # kept to edit, not run
        shown = second.wait_until(lambda s: "history search" not in s, "Enter did not end the search")
        assert prompt_line(shown) == "/status"
    finally:
        second.close()

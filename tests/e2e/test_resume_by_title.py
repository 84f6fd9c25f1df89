"""`-r PART_OF_A_TITLE`: one match resumes it (the TUI, `-z`), several are listed and nothing is resumed."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.messages import Message
from agent.store import SessionStore
from hermes_tui.cli import main
from tests.e2e.tmux_harness import Tmux, app_env, demo_command, needs_tmux

TITLES = ("Fix the login bug", "Fix the logout bug", "Write the release notes")


def seed(home: Path, cwd: Path) -> dict[str, str]:
    """The three sessions, each with one exchange; title -> id."""
    store = SessionStore(home / "tui" / "state.db")
    try:
        ids = {}
        for title in TITLES:
            sid = store.create_session(
                model="m", provider="custom", cwd=str(cwd), system_prompt="", title=title
            )
            store.append_message(sid, Message("user", f"first words of {title.lower()}"))
            store.append_message(sid, Message("assistant", f"an answer about {title.lower()}"))
            ids[title] = sid
        return ids
    finally:
        store.close()


def message_counts(home: Path) -> dict[str, int]:
    store = SessionStore(home / "tui" / "state.db")
    try:
        return {info.title or "": info.message_count for info in store.list_sessions()}
    finally:
        store.close()


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "scenario.yaml"
    path.write_text("name: t\ncalls:\n  - text: Resumed.\n")
    return path


def test_several_matches_are_listed_and_nothing_resumes(
    hermes_home: Path,
    tmp_path: Path,
    scenario: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hermes_tui import cli

    monkeypatch.setattr(cli, "missing_terminal", lambda: None)  # the TUI's path, with pytest holding stdin
    ids = seed(hermes_home, tmp_path)
    for argv in (["-z", "go on", "-r", "fix the", "--scenario", str(scenario)], ["-r", "FIX THE", "--demo"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "2 sessions match" in err and "resume one by its id" in err
        for title in TITLES[:2]:
            line = next(line for line in err.splitlines() if title in line)
            assert ids[title] in line
        assert TITLES[2] not in err
    assert message_counts(hermes_home) == dict.fromkeys(TITLES, 2)  # nothing was resumed


def test_one_partial_match_resumes_it_headless(
    hermes_home: Path, tmp_path: Path, scenario: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(hermes_home, tmp_path)
    assert main(["-z", "go on", "-r", "LOGIN", "--scenario", str(scenario)]) == 0
    assert capsys.readouterr().out.strip() == "Resumed."
    counts = message_counts(hermes_home)
    assert counts["Fix the login bug"] == 4 and counts["Fix the logout bug"] == 2
    assert main(["-z", "x", "-r", "no such words", "--scenario", str(scenario)]) == 2
    assert "no session found for no such words" in capsys.readouterr().err


@needs_tmux[0]  # skipped without tmux
@needs_tmux[1]  # one terminal at a time
def test_one_partial_match_resumes_it_in_the_tui(hermes_home: Path, tmp_path: Path) -> None:
    seed(hermes_home, tmp_path)
    tmux = Tmux((120, 40), demo_command(tmp_path, "-r", "release"), app_env(hermes_home))
    try:
        shown = tmux.wait_for("an answer about write the release notes")
        assert "first words of write the release notes" in shown
        assert "login" not in shown
    finally:
        tmux.close()

"""Ctrl+R with text typed searches the prompt's history (issue 34, item 4): the newest earlier prompt
containing it, Ctrl+R again an older one, Enter keeps the match to edit, Esc restores what was typed, any
other key keeps the match and acts; on an empty prompt Ctrl+R still opens the sessions browser."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from hermes_tui.app import HermesApp
from hermes_tui.screens.sessions import SessionsScreen
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, wait_for
from widgets.prompt.history_search import HistorySearch, older_match
from widgets.prompt.input import PromptBar

HISTORY = ["run the unit tests", "git status", "run the lint", "explain calc.py", "git status"]


def test_older_match_skips_the_query_itself_and_ignores_case() -> None:
    assert older_match(HISTORY, "RUN", len(HISTORY)) == 2
    assert older_match(HISTORY, "run", 2) == 0
    assert older_match(HISTORY, "run", 0) is None
    assert older_match(HISTORY, "git status", len(HISTORY)) is None  # only the query itself
    search = HistorySearch(query="run", draft="run")
    assert search.step(HISTORY) and search.index == 2
    assert "1 of 2" in search.title(HISTORY)
    assert "Ctrl+R older" in search.title(HISTORY)
    assert search.step(HISTORY) and search.index == 0 and "2 of 2" in search.title(HISTORY)
    assert "no older match" in search.title(HISTORY)  # said before the next Ctrl+R finds nothing
    assert not search.step(HISTORY) and search.index == 0 and "no older match" in search.title(HISTORY)


async def _typed(pilot: Pilot, app: HermesApp, text: str) -> None:
    prompt = chat(app).prompt_input
    prompt.prompt_history[:] = HISTORY
    prompt.focus()
    await pilot.press(*text)
    await wait_for(pilot, lambda: prompt.text == text, what=f"{text!r} typed")


async def test_search_narrows_steps_older_keeps_and_cancels(hermes_home: Path, tmp_path: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        prompt = chat(app).prompt_input
        bar = app.screen.query_one(PromptBar)
        await _typed(pilot, app, "run")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: prompt.text == "run the lint", what="the newest match")
        assert bar.border_title is not None and "history search 'run'" in str(bar.border_title)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: prompt.text == "run the unit tests", what="the older match")
        await pilot.press("ctrl+r")  # nothing older: the match stays, the title says so
        await pilot.pause()
        assert prompt.text == "run the unit tests" and "no older match" in str(bar.border_title)
        await pilot.press("escape")  # back to what was typed, nothing interrupted or sent
        await wait_for(pilot, lambda: prompt.text == "run" and prompt.search is None, what="restored")
        assert not bar.border_title and not server.requests
        await pilot.press("ctrl+r", "enter")  # Enter keeps the match to edit, it does not send it
        await wait_for(pilot, lambda: prompt.text == "run the lint" and prompt.search is None, what="kept")
        await pilot.press("space", "n", "o", "w")  # editing it goes on from its end
        await wait_for(pilot, lambda: prompt.text == "run the lint now", what="edited")
        assert not server.requests and not bar.border_title

    await run_chat({"name": "t", "calls": ["never"]}, body, home=hermes_home, cwd=tmp_path)


async def test_no_match_says_so_and_an_empty_prompt_opens_the_sessions(
    hermes_home: Path, tmp_path: Path
) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        prompt = chat(app).prompt_input
        bar = app.screen.query_one(PromptBar)
        await _typed(pilot, app, "quokka")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "no earlier prompt" in str(bar.border_title), what="no match")
        assert prompt.text == "quokka"
        await pilot.press("escape", "ctrl+u")
        await wait_for(pilot, lambda: prompt.text == "", what="cleared")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen), what="the sessions browser")

    await run_chat({"name": "t", "calls": ["never"]}, body, home=hermes_home, cwd=tmp_path)


def test_narrowing_looks_again_from_the_newest_and_finds_an_entry_equal_to_the_fragment() -> None:
    search = HistorySearch(query="git", draft="git")
    assert search.step(HISTORY) and search.index == 4
    assert search.narrow(HISTORY, "git status") and search.index == 4  # no longer what was typed
    assert search.step(HISTORY) and search.index == 1
    assert not search.narrow(HISTORY, "git statusz") and search.index is None
    assert "no earlier prompt has it" in search.title(HISTORY)


async def test_typing_during_the_search_narrows_it_and_backspace_widens_it(
    hermes_home: Path, tmp_path: Path
) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        prompt = chat(app).prompt_input
        bar = app.screen.query_one(PromptBar)
        await _typed(pilot, app, "run")
        await pilot.press("ctrl+r", *" the u")  # one burst: the search, then the fragment grows in order
        await wait_for(pilot, lambda: prompt.text == "run the unit tests", what="the narrowed match")
        assert "history search 'run the u'" in str(bar.border_title) and prompt.search is not None
        await pilot.press(*["backspace"] * 6)
        await wait_for(pilot, lambda: prompt.text == "run the lint", what="widened back to 'run'")
        assert "history search 'run'" in str(bar.border_title)
        await pilot.press("z", "z")  # nothing has it: the last match stays, the title says so
        await wait_for(pilot, lambda: "no earlier prompt has it" in str(bar.border_title), what="no match")
        assert prompt.text == "run the lint" and "'runzz'" in str(bar.border_title)
        await pilot.press("escape")
        await wait_for(pilot, lambda: prompt.text == "run" and prompt.search is None, what="restored")
        await pilot.press("ctrl+r", *" the u", "enter")
        await wait_for(
            pilot, lambda: prompt.text == "run the unit tests" and prompt.search is None, what="kept"
        )
        assert not server.requests and not bar.border_title

    await run_chat({"name": "t", "calls": ["never"]}, body, home=hermes_home, cwd=tmp_path)

"""Tool panels from the keyboard: Ctrl+O (the panel in focus, else the latest), Ctrl+T (the whole last
turn), and file edits' diffs shown without a click unless `expand_diffs` is off."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from hermes_tui.app import HermesApp
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, screen_text, shown, submit, wait_for
from widgets.transcript.entries.tool_call import ToolCallEntry


def _calls() -> list[dict[str, Any]]:
    return [
        {
            "tool_calls": [
                {"name": "terminal", "arguments": {"command": "echo first-output"}},
                {
                    "name": "patch",
                    "arguments": {"path": "x.txt", "old_string": "alpha", "new_string": "beta"},
                },
                {"name": "terminal", "arguments": {"command": "echo last-output"}},
            ]
        },
        {"text": "done"},
    ]


def _panels(app: HermesApp) -> list[ToolCallEntry]:
    return list(chat(app).transcript.entries_of(ToolCallEntry))


async def _finished_turn(pilot: Pilot, app: HermesApp) -> list[ToolCallEntry]:
    await submit(pilot, "go")
    await wait_for(
        pilot,
        lambda: len(_panels(app)) == 3 and all(p.is_finished for p in _panels(app)) and not chat(app).busy,
        what="three finished panels",
    )
    await pilot.pause()
    return _panels(app)


async def test_ctrl_o_toggles_the_latest_panel_and_ctrl_t_the_whole_turn(
    hermes_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "x.txt").write_text("alpha\n")

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        first, patch, last = await _finished_turn(pilot, app)
        assert patch.expanded and not first.expanded and not last.expanded  # a diff opens by default
        assert chat(app).focused is chat(app).prompt_input

        await pilot.press("ctrl+o")  # the prompt has focus: the latest panel
        await wait_for(pilot, lambda: last.expanded, what="latest panel expanded")
        assert not first.expanded
        await shown(pilot, "last-output")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: not last.expanded, what="latest panel collapsed")

        await pilot.press("ctrl+t")  # some are collapsed: all open
        await wait_for(pilot, lambda: first.expanded and patch.expanded and last.expanded, what="all open")
        await shown(pilot, "first-output")
        await pilot.press("ctrl+t")  # all open: all closed
        await wait_for(pilot, lambda: not (first.expanded or patch.expanded or last.expanded), what="closed")
        assert chat(app).focused is chat(app).prompt_input  # the keys never took the focus

    await run_chat({"name": "t", "calls": _calls()}, body, home=hermes_home, cwd=tmp_path, size=(100, 40))


async def test_ctrl_o_toggles_the_panel_in_focus(hermes_home: Path, tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("alpha\n")

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        first, _patch, last = await _finished_turn(pilot, app)
        chat(app).transcript.focus()
        chat(app).transcript.select(first)
        await pilot.pause()
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: first.expanded, what="focused panel expanded")
        assert not last.expanded
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: not first.expanded, what="focused panel collapsed")

    await run_chat({"name": "t", "calls": _calls()}, body, home=hermes_home, cwd=tmp_path, size=(100, 40))


async def test_a_patch_shows_its_diff_once_and_expand_diffs_off_keeps_it_collapsed(
    hermes_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "x.txt").write_text("alpha\n")

    async def expanded(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        _first, patch, _last = await _finished_turn(pilot, app)
        body = patch.render_body().plain
        assert "Patched x.txt: 1 replacement." in body
        assert body.count("+beta") == 1 and body.count("-alpha") == 1  # not once plain, once coloured
        assert body.count("--- a/x.txt") == 1

    await run_chat({"name": "t", "calls": _calls()}, expanded, home=hermes_home, cwd=tmp_path, size=(100, 40))

    (tmp_path / "x.txt").write_text("alpha\n")

    async def collapsed(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        _first, patch, _last = await _finished_turn(pilot, app)
        assert not patch.expanded and patch.has_body
        assert "+beta" not in screen_text(app)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: patch.expanded, what="opened by key")
        await shown(pilot, "+beta")

    await run_chat(
        {"name": "t", "calls": _calls()},
        collapsed,
        home=hermes_home,
        cwd=tmp_path,
        size=(100, 40),
        expand_diffs=False,
    )


async def test_a_call_wrapped_in_itself_is_titled_once(hermes_home: Path, tmp_path: Path) -> None:
    wrapped = {"name": "terminal", "arguments": {"command": "echo hi"}}
    calls = [{"tool_calls": [{"name": "terminal", "arguments": wrapped}]}, {"text": "done"}]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "go")
        await wait_for(pilot, lambda: _panels(app) and _panels(app)[0].is_finished, what="finished panel")
        await pilot.pause()
        shown = screen_text(app)
        assert "terminal  terminal" not in shown
        assert "terminal  echo hi" in shown

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_the_transcript_keys_work_in_the_whole_app_and_other_typing_goes_to_the_prompt(
    hermes_home: Path, tmp_path: Path
) -> None:
    """Tab into the transcript, then `y` copies and Space opens a panel: the chat screen's redirect of
    typing to the prompt must leave the transcript's own keys alone (it sees them first)."""
    (tmp_path / "x.txt").write_text("alpha\n")

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        first, _patch, _last = await _finished_turn(pilot, app)
        view = chat(app)
        await pilot.press("tab")
        assert view.focused is view.transcript
        view.transcript.select(first)
        await pilot.pause()
        await pilot.press("space")
        await wait_for(pilot, lambda: first.expanded, what="Space opened the panel at the cursor")
        await pilot.press("y")
        await wait_for(pilot, lambda: "first-output" in (app.clipboard or ""), what="y copied its output")
        assert view.prompt_input.text == ""  # neither key was typed into the prompt
        await pilot.press("o", "k")  # one burst: the first moves the focus, the second follows at once
        await pilot.pause()
        assert view.focused is view.prompt_input, view.focused
        assert view.prompt_input.text == "ok", view.prompt_input.text

    await run_chat({"name": "t", "calls": _calls()}, body, home=hermes_home, cwd=tmp_path, size=(100, 40))

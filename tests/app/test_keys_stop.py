"""Esc means stop, and questions never take the keyboard by surprise (issue 20, items 3, 4, 6, 7)."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from hermes_tui.app import HermesApp
from hermes_tui.screens.approval import ApprovalDialog
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, screen_text, shown, submit, wait_for
from widgets.clarify_prompt import ClarifyPrompt
from widgets.queued_messages import QueuedMessages

SLOW = {"text": "slow " * 400, "chunk_size": 5, "delay": 0.05}


async def test_escape_keeps_queued_messages_and_the_steer_until_enter(
    hermes_home: Path, tmp_path: Path
) -> None:
    scenario = {"name": "t", "calls": [SLOW], "fallback": {"text": "next answer"}}

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        queue = screen.query_one(QueuedMessages)
        await submit(pilot, "go slow")
        await wait_for(pilot, lambda: screen.busy and server.requests, what="streaming")
        await submit(pilot, "queued question")
        await submit(pilot, "/steer be brief")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, what="turn end after escape")
        await pilot.pause(0.3)  # long enough for a wrongly started turn to reach the server
        assert len(server.requests) == 1  # nothing started by itself
        assert queue.items == ("be brief", "queued question")
        await shown(pilot, "Enter on an empty prompt sends the next")
        assert app.focused is screen.prompt_input
        await pilot.press("enter")  # empty prompt: the next queued message goes
        await wait_for(pilot, lambda: len(server.requests) >= 2, what="the steer sent")
        note = "[Request interrupted by user]"  # the turn before it was stopped: the model is told
        assert server.requests[1].body["messages"][-1] == {"role": "user", "content": f"{note}\n\nbe brief"}
        # That turn completes, so the queue goes on as usual: only a stop holds it.
        await wait_for(pilot, lambda: len(server.requests) == 3 and not queue.items, what="the queue went on")
        assert server.requests[2].body["messages"][-1] == {"role": "user", "content": "queued question"}

    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path)


CLARIFY = {
    "tool_calls": [
        {"name": "clarify", "arguments": {"question": "Which one?", "choices": ["red", "green", "blue"]}}
    ]
}


async def test_ctrl_c_during_a_clarify_question_stops_the_turn(hermes_home: Path, tmp_path: Path) -> None:
    target = tmp_path / "precious"
    target.mkdir()
    calls = [
        CLARIFY,
        {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {target}"}}]},
        {"text": "done"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "ask me")
        await wait_for(pilot, lambda: next(iter(screen.query(ClarifyPrompt)), None), what="clarify card")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not screen.busy, what="turn end")
        await pilot.pause(0.3)
        assert not list(screen.query(ClarifyPrompt))
        assert not isinstance(app.screen, ApprovalDialog)  # the turn did not go on to the risky command
        assert target.exists()
        assert len(server.requests) <= 2

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_ctrl_c_in_the_approval_dialog_stops_the_turn(hermes_home: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {first}"}}]},
        {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {second}"}}]},
        {"text": "done"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "delete")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalDialog), what="dialog")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not screen.busy, what="turn end")
        await pilot.pause(0.3)
        assert app.screen is screen and first.exists() and second.exists()
        assert len(server.requests) == 1  # the denial did not start another model call

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_an_approval_waits_while_the_user_types(hermes_home: Path, tmp_path: Path) -> None:
    target = tmp_path / "precious"
    target.mkdir()
    calls = [
        {
            "first_delay": 0.3,
            "tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {target}"}}],
        },
        {"text": "done"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        # A key every 50 ms must hold the dialog back; with the usual 1 s pause a worker starved for a second
        # between two keys (a series run did that, its machine loaded) would see the keyboard go quiet.
        screen.controller.typing_pause = 3.0
        await submit(pilot, "delete")
        typed = ""
        for word in ["sorry ", "sorry ", "sorry ", "sorry ", "sorry "]:  # ~2 s of typing, s and o included
            for char in word:
                await pilot.press(char if char != " " else "space")
                typed += char
                await pilot.pause(0.05)
                assert not isinstance(app.screen, ApprovalDialog)
        assert "stop typing" in screen_text(app) or isinstance(app.screen, ApprovalDialog) is False
        assert screen.prompt_input.text == typed  # every key reached the prompt
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalDialog), 20, "dialog after a pause")
        assert target.exists()
        dialog = app.screen
        await wait_for(pilot, lambda: dialog.is_armed, what="armed")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, what="turn end")
        assert target.exists()

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_focus_is_never_lost_in_the_chat(hermes_home: Path, tmp_path: Path) -> None:
    calls = [{"tool_calls": [{"name": "terminal", "arguments": {"command": "echo hi"}}]}, {"text": "done"}]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        from widgets.transcript.entries.tool_call import ToolCallEntry

        screen = chat(app)
        await submit(pilot, "run it")
        panel = await wait_for(
            pilot, lambda: next(iter(screen.transcript.entries_of(ToolCallEntry)), None), what="tool panel"
        )
        await wait_for(pilot, lambda: not screen.busy, what="turn end")
        transcript = screen.transcript
        row = transcript.row_of(panel)
        assert row is not None
        await pilot.click(transcript, offset=(4, row))
        await pilot.pause()
        assert panel.expanded  # a click on the header opens the panel...
        assert app.focused is screen.prompt_input  # ...and the keyboard stays
        transcript.focus()  # the user navigated there (Tab)
        transcript.select(panel)
        await pilot.pause()
        await pilot.press("h", "i")
        await wait_for(pilot, lambda: screen.prompt_input.text == "hi", what="typing reached the prompt")
        assert app.focused is screen.prompt_input
        transcript.focus()
        await pilot.pause()
        await pilot.press("escape")
        assert app.focused is screen.prompt_input

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)

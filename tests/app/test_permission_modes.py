"""Permission modes in the chat (Pilot, on the scripted server): the mode key and `/mode`, the status bar,
plan mode refusing without a dialog, the plan card's "switch and go", and ask mode's dialog with the diff."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from hermes_tui.app import HermesApp
from hermes_tui.screens.approval import ApprovalDialog
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, screen_text, shown, submit, wait_for
from widgets.cards.plan import PlanCard


def _write(call_id: str, path: str = "out.txt", content: str = "hello\n") -> dict[str, Any]:
    return {
        "tool_calls": [{"name": "write_file", "arguments": {"path": path, "content": content}, "id": call_id}]
    }


async def test_the_mode_key_cycles_the_status_bars_mode(hermes_home: Path, tmp_path: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        bar = screen.status_bar
        await wait_for(pilot, lambda: screen.session.built is not None, what="the engine")
        seen = []
        for _ in range(3):
            await pilot.press("shift+tab")
            await pilot.pause()
            seen.append((bar.mode, screen.agent.permission_mode.value))
            if bar.mode != "default":
                assert f"{bar.mode} mode" in bar.render().plain
        assert seen == [
            ("ask", "ask"),
            ("plan", "plan"),
            ("default", "default"),
        ]  # yolo not chosen: not offered
        assert app.focused is screen.prompt_input  # the key moved no focus
        await submit(pilot, "/yolo")
        await wait_for(pilot, lambda: bar.yolo and "YOLO" in bar.render().plain, what="YOLO shown")
        await pilot.press("shift+tab")  # chosen once, yolo is in the cycle now
        await wait_for(pilot, lambda: bar.mode == "default" and not bar.yolo, what="back to default")
        for _ in range(3):
            await pilot.press("shift+tab")
        await wait_for(pilot, lambda: bar.mode == "yolo" and bar.yolo, what="yolo in the cycle")

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path)


async def test_mode_command_lists_switches_and_refuses_an_unknown_name(
    hermes_home: Path, tmp_path: Path
) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "/mode")
        await wait_for(
            pilot, lambda: "Permission modes (Shift+Tab cycles them" in screen_text(app), what="list"
        )
        text = screen_text(app)
        assert "● default" in text and "○ plan" in text
        await submit(pilot, "/mode careful")
        await wait_for(
            pilot,
            lambda: (
                "unknown permission mode 'careful'; the modes are: default, ask, plan, yolo"
                in screen_text(app)
            ),
            what="one line naming the modes",
        )
        assert screen.agent.permission_mode.value == "default"
        await submit(pilot, "/mode plan")
        await wait_for(pilot, lambda: screen.status_bar.mode == "plan", what="plan on the bar")
        assert screen.agent.permission_mode.value == "plan"

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path)


async def test_plan_refuses_a_write_with_no_dialog_and_the_card_switches_and_goes(
    hermes_home: Path, tmp_path: Path
) -> None:
    scenario = {
        "name": "plan",
        "calls": [_write("w1"), {"text": "Plan: 1. write out.txt"}, _write("w2"), {"text": "Done."}],
    }

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "make the file")
        card = await wait_for(pilot, lambda: next(iter(screen.query(PlanCard)), None), what="the plan card")
        assert not any(isinstance(s, ApprovalDialog) for s in app.screen_stack)  # refused, never asked
        assert not (tmp_path / "out.txt").exists()
        refused = [m for m in server.requests[1].body["messages"] if m["role"] == "tool"]
        assert "plan mode" in refused[-1]["content"]
        await shown(pilot, "Would you like to proceed?")
        card.arm()  # past the typing guard
        await pilot.press("1")
        await wait_for(pilot, lambda: (tmp_path / "out.txt").exists(), what="the write, in default mode")
        await wait_for(pilot, lambda: len(server.requests) == 4 and not screen.busy, what="the turn's end")
        assert screen.agent.permission_mode.value == "default" and screen.status_bar.mode == "default"
        go = [m for m in server.requests[2].body["messages"] if m["role"] == "user"][-1]["content"]
        assert "The plan is approved: go ahead" in go and "Plan mode is active" not in go
        assert not screen.query(PlanCard)

    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path, permission_mode="plan")


async def test_keep_planning_and_typing_go_where_they_should(hermes_home: Path, tmp_path: Path) -> None:
    scenario = {"name": "plan", "calls": [{"text": "Plan: 1. look"}], "fallback": {"text": "Revised plan."}}

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "plan it")
        card = await wait_for(pilot, lambda: next(iter(screen.query(PlanCard)), None), what="the plan card")
        card.arm()
        await pilot.press("h", "i")  # typing is the user's message, not a choice
        await wait_for(pilot, lambda: screen.prompt_input.text == "hi", what="typing kept")
        assert card.chosen is None and card.is_attached
        screen.prompt_input.clear()
        card.focus_choices()
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.query(PlanCard), what="the card gone")
        assert screen.agent.permission_mode.value == "plan"
        await shown(pilot, "Still in plan mode")
        await submit(pilot, "also check the tests")
        await wait_for(pilot, lambda: len(server.requests) == 2, what="the next plan-mode request")
        user = [m for m in server.requests[1].body["messages"] if m["role"] == "user"][-1]["content"]
        assert "Plan mode is active" in user

    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path, permission_mode="plan")


async def test_ask_mode_asks_an_edit_inside_the_workspace_with_its_diff(
    hermes_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "out.txt").write_text("old line\n")
    scenario = {"name": "ask", "calls": [_write("w1", content="new line\n"), {"text": "ok"}]}

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "edit it")
        dialog = await wait_for(
            pilot,
            lambda: next((s for s in app.screen_stack if isinstance(s, ApprovalDialog)), None),
            what="dialog",
        )
        assert dialog.request.diff and "+new line" in dialog.request.diff
        await wait_for(pilot, lambda: "-old line" in screen_text(app) and "+new line" in screen_text(app))
        await shown(pilot, "ask mode: every file edit asks")
        dialog.arm()
        await pilot.press("escape")  # deny
        await wait_for(pilot, lambda: len(server.requests) == 2, what="the denial sent")
        assert (tmp_path / "out.txt").read_text() == "old line\n"

    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path, permission_mode="ask")

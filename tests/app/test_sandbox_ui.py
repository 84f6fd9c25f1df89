"""The sandbox in the TUI (Pilot, the real bwrap): the status bar names it, a write in the workspace runs
with no dialog, a command that must leave the sandbox asks in a dialog that says so, and only the user's
answer lets it out (for that one call)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Static

from hermes_tui.app import HermesApp
from hermes_tui.screens.approval import ApprovalDialog
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, submit, wait_for
from tests.engine.environments.test_sandbox import needs_bwrap


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the workspace and the temp dir (the test's tmp_path is under /tmp, which the
    sandbox lets commands write)."""
    path = Path.home() / f".hermes-sandbox-ui-{os.getpid()}"
    path.mkdir(exist_ok=True)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _calls(*commands: str) -> list[dict[str, object]]:
    calls: list[dict[str, object]] = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": c}, "id": f"t{i}"}]}
        for i, c in enumerate(commands)
    ]
    return [*calls, {"text": "done"}]


def _text(app: HermesApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


@needs_bwrap
async def test_dialog_names_the_sandbox_and_deny_keeps_it_in(
    hermes_home: Path, tmp_path: Path, outside: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    target = outside / "outside.txt"

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        bar = screen.status_bar
        assert bar.where == "sandbox workspace-write"
        assert "sandbox workspace-write" in bar.render().plain
        await submit(pilot, "go")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalDialog), what="the dialog")
        assert (ws / "in.txt").read_text() == "x\n"  # the first command ran with no dialog
        dialog = app.screen
        # Armed: composed and shown (pushed is not yet composed: its lines were once read too early).
        await wait_for(pilot, lambda: dialog.is_armed, what="dialog armed")
        assert "wants to run this command outside the sandbox" in _text(app, "#approval-intro")
        reasons = _text(app, "#approval-reasons")
        assert "writes outside the sandbox workspace-write" in reasons and str(target) in reasons
        assert "outside the sandbox, for this call only" in reasons
        assert dialog.query_one("#approval-always", Button).disabled  # no "always" for leaving the sandbox
        await pilot.press("escape")  # deny
        await wait_for(pilot, lambda: not screen.busy, what="the turn's end")
        assert not target.exists()
        # the model was told the bounds (the system prompt)
        system = str(server.requests[0].body["messages"][0]["content"])
        assert "terminal commands run in an OS sandbox (workspace-write)" in system
        assert f"can write only in {ws}" in system and "have no network" in system

    calls = _calls("echo x > in.txt", f"touch {target}")
    await run_chat(
        {"name": "t", "calls": calls}, body, home=hermes_home, cwd=ws, sandbox_mode="workspace-write"
    )


@needs_bwrap
async def test_allow_once_runs_that_call_outside(
    hermes_home: Path, tmp_path: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ApprovalDialog, "DIGITS_AFTER", 0.0)
    ws = tmp_path / "ws"
    ws.mkdir()
    first, second = outside / "first.txt", outside / "second.txt"

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "go")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalDialog), what="the dialog")
        dialog = app.screen
        await wait_for(pilot, lambda: dialog.is_armed, what="dialog armed")
        await pilot.press("1")  # allow once
        await wait_for(pilot, first.exists, what="the approved write, outside the sandbox")
        # the next escape asks again: "once" was for that call only
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ApprovalDialog) and app.screen is not dialog,
            what="the second dialog",
        )
        second_dialog = app.screen
        await wait_for(pilot, lambda: second_dialog.is_armed, what="second dialog armed")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, what="the turn's end")
        assert first.exists() and not second.exists()

    calls = _calls(f"touch {first}", f"touch {second}")
    await run_chat(
        {"name": "t", "calls": calls}, body, home=hermes_home, cwd=ws, sandbox_mode="workspace-write"
    )


async def test_a_sandbox_that_cannot_be_had_ends_the_app_with_one_line(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No chat opens, nothing runs: the app exits 2 and its line is printed once the terminal is back."""
    from agent.environments import sandbox as sandbox_module
    from hermes_tui.chat.screen import ChatScreen
    from tests.app.harness import chat_settings

    monkeypatch.setattr(sandbox_module, "BWRAP", "hermes-test-no-such-bwrap")
    monkeypatch.setattr(sandbox_module, "BWRAP_PLACES", ())
    with ScriptedServer({"name": "t", "calls": _calls("touch marker")}) as server:
        app = HermesApp(chat_settings(server, hermes_home, tmp_path, sandbox_mode="read-only"))
        async with app.run_test() as pilot:
            await wait_for(pilot, lambda: app.exit_message is not None, what="the exit line")
            assert not any(isinstance(s, ChatScreen) for s in app.screen_stack)
            assert app.return_value == 2  # what `app.run()` returns: the exit code (`hermes_tui.app._run`)
    assert server.requests == []
    assert app.exit_message is not None and "bubblewrap (bwrap) is not installed" in app.exit_message
    assert not (tmp_path / "marker").exists()

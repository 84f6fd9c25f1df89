"""`!command` runs in the user's shell into a panel; Esc stops it; its output goes with the next message."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from hermes_tui.app import HermesApp
from hermes_tui.chat.shell import shell_command
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, shown, submit, wait_for
from widgets.transcript.entries.tool_call import ToolCallEntry


def test_what_counts_as_a_shell_line() -> None:
    assert shell_command("!ls -la") == "ls -la"
    assert shell_command("  ! git status ") == "git status"
    assert shell_command("!!") is None and shell_command("!") is None and shell_command("hi!") is None


async def test_output_streams_into_a_panel_and_goes_with_the_next_message(
    hermes_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("quokka\n")

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "!cat notes.txt; exit 3")
        await wait_for(
            pilot, lambda: not screen.busy and screen.transcript.entries_of(ToolCallEntry), what="the command"
        )
        (panel,) = screen.transcript.entries_of(ToolCallEntry)
        assert "quokka" in panel.output and panel.is_finished and panel.expanded  # shown: the user asked
        await shown(pilot, "exit 3")
        assert not server.requests  # nothing is sent on its own
        await submit(pilot, "why did it fail?")
        await wait_for(pilot, lambda: server.requests and not screen.busy, what="the turn")
        sent = [m for m in server.requests[0].body["messages"] if m["role"] == "user"][-1]["content"]
        assert sent.startswith("why did it fail?") and "$ cat notes.txt; exit 3" in sent and "quokka" in sent
        await shown(pilot, "📎 $ cat notes.txt; exit 3 · exit 3")

    await run_chat({"name": "t", "calls": [{"text": "It exited 3."}]}, body, home=hermes_home, cwd=tmp_path)


async def test_escape_stops_a_long_command(hermes_home: Path, tmp_path: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "!echo started; sleep 30")
        await wait_for(
            pilot,
            lambda: (
                screen.transcript.entries_of(ToolCallEntry)
                and "started" in screen.transcript.entries_of(ToolCallEntry)[0].output
            ),
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, timeout=10, what="the command stopped")
        assert screen.transcript.entries_of(ToolCallEntry)[0].is_finished

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path)


async def test_the_prompt_box_marks_a_shell_line_while_it_is_typed() -> None:
    from textual.app import App, ComposeResult

    from widgets.prompt.input import PromptBar

    class BarApp(App[None]):
        def compose(self) -> ComposeResult:
            yield PromptBar()

    app = BarApp()
    async with app.run_test(size=(80, 10)) as pilot:
        bar = app.query_one(PromptBar)
        bar.focus_input()
        await pilot.press("!", "l", "s")
        assert bar.has_class("-shell") and "shell" in str(bar.border_title)
        await pilot.press("home", "!")  # `!!ls` is ordinary text
        assert not bar.has_class("-shell") and not bar.border_title
        await pilot.press("home", "delete", "delete")
        assert bar.input.text == "ls" and not bar.has_class("-shell")

"""Hermes' `quick_commands` in the chat: `/hi` (exec) shows the command's output and sends nothing to the
model, an alias runs another command, a prompt type sends its text; they are completed and in `/help`; an
entry that cannot be used is one line, and a built-in name stays the built-in's."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from hermes_tui.app import HermesApp
from hermes_tui.commands.quick import quick_commands
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, submit, wait_for
from widgets.transcript.entries.notice import NoticeEntry

QUICK = {
    "hi": {"type": "exec", "command": "echo hello from $((40 + 2))", "description": "Say hi"},
    "st": {"type": "alias", "target": "status"},
    "review": {"type": "prompt", "prompt": "Review the last commit."},
    "loop": {"type": "alias", "target": "/loop"},
    "help": {"type": "exec", "command": "echo mine"},
    "odd": {"type": "webhook", "url": "x"},
}


def notices(app: HermesApp) -> list[str]:
    return [n.text for n in chat(app).transcript.entries_of(NoticeEntry)]


async def test_quick_commands_run_as_hermes_defines_them(hermes_home: Path, tmp_path: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await wait_for(pilot, lambda: screen.commands.quick, what="the quick commands")
        assert [c.name for c in screen.commands.quick] == ["hi", "st", "review", "loop"]
        assert ("/hi", "Say hi") in screen.commands.completions()
        assert ("Quick commands", "/hi", "Say hi") in screen.commands.help_rows()
        lines = notices(app)
        assert any("quick_commands.help: /help is a built-in command" in n for n in lines)
        assert any("quick_commands.odd: type 'webhook' is not one of exec, alias, prompt" in n for n in lines)

        await submit(pilot, "/hi")
        await wait_for(pilot, lambda: any("hello from 42" in n for n in notices(app)), what="/hi's output")
        assert not server.requests  # nothing went to the model
        await submit(pilot, "/st")
        await wait_for(
            pilot, lambda: any(n.startswith("model scripted") for n in notices(app)), what="/status"
        )
        await submit(pilot, "/loop")
        await wait_for(pilot, lambda: any("aliases call each other in a loop" in n for n in notices(app)))
        await submit(pilot, "/review carefully")
        await wait_for(pilot, lambda: server.requests and not screen.busy, what="the turn")
        sent = [m for m in server.requests[0].body["messages"] if m["role"] == "user"][-1]["content"]
        assert sent == "Review the last commit. carefully"

    await run_chat(
        {"name": "t", "calls": [{"text": "Reviewed."}]},
        body,
        home=hermes_home,
        cwd=tmp_path,
        quick_commands=QUICK,
    )


def test_a_config_that_is_not_a_mapping_is_one_line(tmp_path: Path) -> None:
    assert quick_commands(["hi"], frozenset(), tmp_path, tmp_path) == (
        [],
        ["quick_commands: expected a mapping of name -> command, got list"],
    )

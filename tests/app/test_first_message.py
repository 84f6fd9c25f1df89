"""`hermes-tui "fix the failing test"` opens the TUI and sends that as the first message."""

from __future__ import annotations

from pathlib import Path

from hermes_tui.app import HermesApp
from hermes_tui.cli import build_parser
from scripted import ScriptedServer
from tests.app.harness import chat, chat_settings, wait_for


def test_a_positional_prompt_is_the_first_message_and_subcommands_still_parse() -> None:
    args = build_parser().parse_args(["fix the failing test", "--demo"])
    assert args.message == "fix the failing test" and args.prompt is None
    assert build_parser().parse_args(["-z", "x"]).message is None


async def test_the_first_message_is_sent_once_the_chat_is_up(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t", "calls": [{"text": "on it"}]}) as server:
        app = HermesApp(chat_settings(server, hermes_home, tmp_path), first_message="fix the failing test")
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(pilot, lambda: len(server.requests) == 1, what="the first request")
            screen = await wait_for(pilot, lambda: (s := chat(app)) and not s.busy and s)
            user = [m for m in server.requests[0].body["messages"] if m["role"] == "user"]
            assert user[-1]["content"] == "fix the failing test"
            assert screen.prompt_input.text == ""


def test_toolsets_flag_chooses_the_tools_offered(tmp_path: Path) -> None:
    """`-t file,terminal` (Hermes' flag): the fix a small window's overflow names."""
    from agent.config.settings import load_settings
    from hermes_tui.cli import _flags

    args = build_parser().parse_args(["-t", "file, terminal", "--hermes-home", str(tmp_path)])
    loaded = load_settings(_flags(args), env={})
    assert loaded.settings.toolsets == ["file", "terminal"] and not loaded.problems

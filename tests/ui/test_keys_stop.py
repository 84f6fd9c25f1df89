"""Esc means stop, and questions never take the keyboard by surprise (issue 20, items 3, 4, 6, 7)."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from agent.scripted import ScriptedServer
from hermes_tui.app import HermesApp
from tests.ui.harness import chat, run_chat, screen_text, submit, wait_for
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
        assert "Enter on an empty prompt sends the next" in screen_text(app)
        assert app.focused is screen.prompt_input
        await pilot.press("enter")  # empty prompt: the next queued message goes
        await wait_for(pilot, lambda: len(server.requests) >= 2, what="the steer sent")
        assert server.requests[1].body["messages"][-1] == {"role": "user", "content": "be brief"}
        # That turn completes, so the queue goes on as usual: only a stop holds it.
        await wait_for(pilot, lambda: len(server.requests) == 3 and not queue.items, what="the queue went on")
        assert server.requests[2].body["messages"][-1] == {"role": "user", "content": "queued question"}

    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path)

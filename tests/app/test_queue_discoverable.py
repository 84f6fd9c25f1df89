"""The queue is discoverable: its keys are in the status bar while messages wait, and Up on an empty prompt
takes the last one back for editing (issue 19, item 8)."""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.pilot import Pilot

from hermes_tui.app import HermesApp
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, screen_text, shown, submit, wait_for
from widgets.queued_messages import QueuedMessages

SLOW = {"text": "slow " * 400, "chunk_size": 5, "delay": 0.05}


async def test_the_status_bar_names_the_queue_keys_and_up_takes_the_last_message_back(
    hermes_home: Path, tmp_path: Path
) -> None:
    scenario = {"name": "t", "calls": [SLOW], "fallback": {"text": "next answer"}}

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        queue = screen.query_one(QueuedMessages)
        prompt = screen.prompt_input
        await submit(pilot, "go slow")
        await wait_for(pilot, lambda: screen.busy and server.requests, what="streaming")
        assert "queued" not in screen.status_bar.hint
        await submit(pilot, "first queued")
        await submit(pilot, "second queued")
        assert queue.items == ("first queued", "second queued")
        await wait_for(pilot, lambda: "2 queued · ↑ edit last · Alt+↑ manage" in screen_text(app))
        await pilot.press("up")  # empty prompt: the last queued message comes back, out of the queue
        assert prompt.text == "second queued"
        assert queue.items == ("first queued",)
        await wait_for(pilot, lambda: "1 queued" in screen_text(app), what="hint follows the queue")
        prompt.clear()
        await pilot.press("up")
        assert prompt.text == "first queued" and queue.items == ()
        await wait_for(pilot, lambda: "queued ·" not in screen_text(app), what="hint gone")
        prompt.clear()
        await pilot.press("up")  # nothing queued: Up is the history again
        assert prompt.text == prompt.prompt_history[-1] == "second queued"

    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path)


async def test_alt_up_reaches_the_queue_and_its_keys_are_shown_there(
    hermes_home: Path, tmp_path: Path
) -> None:
    scenario = {"name": "t", "calls": [SLOW], "fallback": {"text": "next answer"}}

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        queue = screen.query_one(QueuedMessages)
        await submit(pilot, "go slow")
        await wait_for(pilot, lambda: screen.busy and server.requests, what="streaming")
        await submit(pilot, "queued one")
        await pilot.press("alt+up")  # what the hint says
        await wait_for(pilot, lambda: app.focused is queue, what="the queue focused")
        await wait_for(pilot, lambda: "queue: e edit · x remove · s steer now · Tab back" in screen_text(app))
        await pilot.press("tab")  # back, as it says
        await wait_for(pilot, lambda: app.focused is screen.prompt_input, what="the prompt focused")
        await wait_for(pilot, lambda: "1 queued · ↑ edit last" in screen_text(app), what="the prompt's hint")
        await pilot.press("alt+up")
        await wait_for(pilot, lambda: app.focused is queue, what="the queue focused again")
        await pilot.press("e")
        await wait_for(pilot, lambda: screen.prompt_input.text == "queued one", what="taken back")
        assert app.focused is screen.prompt_input and queue.items == ()

    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path)


async def test_a_queued_paste_shows_its_token_and_is_sent_whole(hermes_home: Path, tmp_path: Path) -> None:
    short = {**SLOW, "text": "slow " * 60}  # busy long enough to queue, short enough to wait for
    scenario = {"name": "t", "calls": [short], "fallback": {"text": "next answer"}}
    log = "\n".join(f"row {i}" for i in range(50))

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        queue = screen.query_one(QueuedMessages)
        prompt = screen.prompt_input
        await submit(pilot, "go slow")
        await wait_for(pilot, lambda: screen.busy and server.requests, what="streaming")
        prompt.focus()
        prompt.post_message(events.Paste(log))
        await wait_for(pilot, lambda: prompt.text == "[Pasted #1: 50 lines]", what="token")
        await pilot.press("enter")
        await wait_for(pilot, lambda: queue.items == ("[Pasted #1: 50 lines]",), what="queued as its token")
        await shown(pilot, "queued: [Pasted #1: 50 lines]")
        await wait_for(pilot, lambda: len(server.requests) == 2, timeout=60, what="the queued message sent")
        assert server.requests[1].body["messages"][-1] == {"role": "user", "content": log}

    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path)


def test_help_lists_the_queue_and_paste_keys() -> None:
    from hermes_tui.commands import new_registry

    rows = {key: text for group, key, text in new_registry().help_rows() if group == "Prompt"}
    assert (
        "queue" in rows["Alt+Up"] and "permission mode" in rows["Shift+Tab"] and "queued" in rows["Up / Down"]
    )
    assert "Pasted" in rows["Ctrl+O"] and "paste" in rows["Backspace"]

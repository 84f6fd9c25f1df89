"""An app sitting at the prompt runs no timer: nothing wakes it until something changes.

The one exception a user sees is the cursor blink, and it stops after `PromptInput.BLINK_TIMEOUT` seconds
without a key (like GTK's blink timeout); the next key blinks it again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.timer import Timer

from agent.core.events import TextDelta
from hermes_tui.app import HermesApp
from hermes_tui.chat.bridge import EventsReady, UIBridge
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, submit, wait_for
from widgets.prompt.input import PromptInput
from widgets.transcript.entries.reply import ReplyEntry

IDLE_WINDOW = 2.0
"""Seconds of idle observed (an observation window, not a wait for something: nothing may happen in it)."""


async def test_no_timer_fires_while_idle_after_a_turn(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ticks: list[str] = []
    real_tick = Timer._tick

    async def counting_tick(self: Timer, *, next_timer: float, count: int) -> None:
        ticks.append(self.name)
        await real_tick(self, next_timer=next_timer, count=count)

    monkeypatch.setattr(Timer, "_tick", counting_tick)
    monkeypatch.setattr(PromptInput, "BLINK_TIMEOUT", 0.3)
    scenario = {"name": "t", "calls": [{"text": "a reply with **markdown**", "chunk_size": 4}]}

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "hello")
        await wait_for(
            pilot,
            lambda: not screen.busy and screen.transcript.entries_of(ReplyEntry),
            what="the reply",
        )
        prompt = screen.prompt_input
        # At rest: nothing queued, the cursor still, and the collection after the turn done (its timer
        # runs a moment after the reply is drawn, which can be after the blink stopped).
        await wait_for(
            pilot,
            lambda: screen.bridge.is_asleep and not prompt.is_blinking and not screen.gc_policy.paused,
            what="the app at rest",
        )
        ticks.clear()
        await pilot.pause(IDLE_WINDOW)
        assert ticks == [], f"timers fired while idle: {sorted(set(ticks))}"
        # Typing wakes the cursor again, and the text is there.
        await pilot.press("o", "k")
        assert prompt.is_blinking and prompt.text == "ok"

    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path, auto_title=False)


class _Recorder:
    """Stands in for the screen the bridge wakes: records the wake-ups."""

    def __init__(self) -> None:
        self.posted: list[Any] = []

    def post_message(self, message: Any) -> bool:
        self.posted.append(message)
        return True


def test_a_sleeping_ui_is_woken_by_any_event_an_awake_one_by_text_at_most_30_times_a_second() -> None:
    target = _Recorder()
    bridge = UIBridge(target)  # type: ignore[arg-type]
    bridge.on_event(TextDelta("streamed"))
    assert [type(m) for m in target.posted] == [EventsReady]  # awake: text wakes it, throttled
    assert not bridge.sleep()  # something is still queued: the UI must drain before sleeping
    bridge.drain()
    target.posted.clear()
    assert bridge.sleep() and bridge.is_asleep
    bridge.on_event(TextDelta("late text"))  # e.g. a background summary after the turn: no timer runs
    assert [type(m) for m in target.posted] == [EventsReady]
    bridge.on_event(TextDelta(" more"))
    assert len(target.posted) == 1  # one wake-up until the UI drains
    assert [e.text for e in bridge.drain()] == ["late text more"]  # type: ignore[attr-defined]

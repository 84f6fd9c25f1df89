"""The key order's fast lane: characters for the focused text field do not wait for a busy screen, and a
binding typed after them still waits for everything before it (`hermes_tui.key_order`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import ClassVar

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input

from hermes_tui.key_order import KeyOrder
from tests.app.harness import wait_for


async def sleep_until(predicate: Callable[[], bool], what: str, timeout: float = 5.0) -> None:
    """`wait_for` without the pilot: `Pilot.pause` waits for the screen, which is stalled on purpose."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


class Stall(Message):
    """Keeps the screen's message pump busy until `release` is set (a screen drawing a burst)."""


class BusyScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("f5", "clear", "Clear")]

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.cleared: list[str] = []

    def compose(self) -> ComposeResult:
        yield Input(id="field")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    async def on_stall(self, message: Stall) -> None:
        await self.release.wait()

    def action_clear(self) -> None:
        field = self.query_one(Input)
        self.cleared.append(f"clear after {field.value!r}")
        field.value = ""


class OrderedApp(App[None]):
    """An app whose keys go through a `KeyOrder`, as `HermesApp`'s do, showing `first`."""

    def __init__(self, first: Screen[None]) -> None:
        super().__init__()
        self.key_order = KeyOrder(self, self._deliver)
        self.first = first

    def on_mount(self) -> None:
        self.push_screen(self.first)

    async def on_event(self, event: events.Event) -> None:
        if self.key_order.takes(event):
            self.key_order.accept(event)
            return
        await super().on_event(event)

    async def _deliver(self, event: events.Event) -> None:
        await super().on_event(event)


async def test_characters_reach_the_field_while_the_screen_is_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the fast lane every character would wait for the stalled screen (up to the settle patience,
    # made longer than the test's own waits here), so the field would stay at its first letter.
    monkeypatch.setattr(KeyOrder, "SETTLE_PATIENCE", 60.0)
    screen = BusyScreen()
    app = OrderedApp(screen)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.focused is not None, what="the field focused")
        field = screen.query_one(Input)
        screen.post_message(Stall())
        try:
            for key in "hello":
                app.post_message(events.Key(key, key))
            app.post_message(events.Key("f5", None))
            app.post_message(events.Key("x", "x"))
            await sleep_until(lambda: field.value == "hello", "the characters in the field")
            await asyncio.sleep(0.1)
            assert screen.cleared == []  # the binding waits for the busy screen, and the key after it
            assert field.value == "hello" and app.key_order.pending == 2
        finally:
            screen.release.set()
        await wait_for(pilot, lambda: field.value == "x", what="the binding, then the last key")
        assert screen.cleared == ["clear after 'hello'"]


async def test_a_character_that_bubbles_does_not_open_the_fast_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    """A printable key the focused widget does not consume (a screen binding such as `r` for rename) may
    change focus: the next key waits for it."""
    monkeypatch.setattr(KeyOrder, "SETTLE_PATIENCE", 60.0)

    class Keys(Screen[None]):
        BINDINGS: ClassVar[list[BindingType]] = [Binding("r", "rename", "Rename")]

        def compose(self) -> ComposeResult:
            yield Input(id="rename", disabled=True)

        def action_rename(self) -> None:
            field = self.query_one(Input)
            field.disabled = False
            field.focus()

    app = OrderedApp(Keys())
    async with app.run_test() as pilot:
        await pilot.pause()
        for key in "rab":
            app.post_message(events.Key(key, key))
        field = app.screen.query_one(Input)
        await wait_for(pilot, lambda: field.value == "ab", what="the keys after r in the field it focused")


async def test_a_key_typed_while_nothing_has_the_focus_waits_for_a_widget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Out of patience with a busy app (a slow restyle, a saturated CPU), a key still goes only to a focused
    widget: while nothing has the focus it waits, late, and is never dropped on a screen that ignores it."""
    monkeypatch.setattr(KeyOrder, "SETTLE_PATIENCE", 0.05)
    screen = BusyScreen()
    app = OrderedApp(screen)
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: app.focused is not None, what="the field focused")
        field = screen.query_one(Input)
        field.blur()
        await wait_for(pilot, lambda: app.focused is None, what="the focus gone")
        screen.post_message(Stall())
        try:
            for key in "late":
                app.post_message(events.Key(key, key))
            await asyncio.sleep(0.5)  # ten times the patience: the keys are still waiting, in order
            assert app.key_order.pending == 4 and field.value == ""
            app.set_focus(field)
            await sleep_until(lambda: field.value == "late", "the waiting keys in the field, in order")
        finally:
            screen.release.set()
        await pilot.pause()
        assert field.value == "late" and app.key_order.pending == 0

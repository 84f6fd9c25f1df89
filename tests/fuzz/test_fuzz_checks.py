"""The fuzzer's own parts can fail: plans are the same for a seed and cover every kind of action, every
paste and every command; the watches see a logged or a thread's exception, and tell an approval given by
the dialog's own key from one given by anything else."""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from agent.api import ApprovalDecision, ApprovalRequest
from hermes_tui.app import HermesApp
from scripted import ScriptedServer
from tests.app.harness import chat, chat_settings, submit, wait_for
from tests.fuzz.plan import KEYS, PASTES, Action, make_plan
from tests.fuzz.scenario import APPROVAL, FINAL, SCRATCH
from tests.fuzz.watch import ApprovalWatch, ErrorWatch

COMMANDS = ["help", "model", "theme", "quit", "exit"]


def test_a_seed_always_gives_the_same_plan_and_seeds_cover_everything() -> None:
    assert make_plan(42, 30, COMMANDS) == make_plan(42, 30, COMMANDS)
    assert make_plan(42, 30, COMMANDS) != make_plan(43, 30, COMMANDS)
    actions = [a for seed in range(400) for a in make_plan(seed, 6, COMMANDS).actions]
    assert {a.kind for a in actions} == {
        "key",
        "type",
        "message",
        "paste",
        "click",
        "resize",
        "slash",
        "wait",
    }
    assert {a.value for a in actions if a.kind == "paste"} == set(PASTES)
    assert {a.value.split()[0] for a in actions if a.kind == "slash"} == {"/help", "/model", "/theme"}
    assert {a.value for a in actions if a.kind == "key"} == set(KEYS)
    assert any(a.kind == "resize" and (a.x, a.y) == (20, 6) for a in actions)
    assert make_plan(19, 1, COMMANDS).mode == "setup"
    assert {make_plan(seed, 1, COMMANDS).mode for seed in range(4)} == {
        "idle",
        "stream",
        "clarify",
        "approval",
    }


def test_the_error_watch_sees_logged_and_thread_exceptions() -> None:
    with ErrorWatch() as watch:
        logging.getLogger("some.module").warning("a warning is not an exception")
        assert watch.errors == []
        try:
            raise ValueError("boom")
        except ValueError:
            logging.getLogger("some.module").exception("it failed")
        thread = threading.Thread(target=lambda: 1 / 0, name="worker")
        thread.start()
        thread.join()
    assert "ValueError: boom" in watch.errors[0]
    assert "uncaught in thread worker" in watch.errors[1] and "ZeroDivisionError" in watch.errors[1]


@asynccontextmanager
async def _watched_chat(home: Path, cwd: Path) -> AsyncIterator[tuple[Pilot[Any], HermesApp, ApprovalWatch]]:
    """The app on the chat screen, two approval turns scripted, the watch installed."""
    with ScriptedServer({"name": "t", "calls": [APPROVAL, FINAL, APPROVAL, FINAL]}) as server:
        app = HermesApp(chat_settings(server, home, cwd))
        watch = ApprovalWatch(app)
        watch.install()
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(pilot, lambda: type(app.screen).__name__ == "ChatScreen")
            yield pilot, app, watch


async def _dialog(pilot: Pilot[Any], app: HermesApp) -> Any:
    await submit(pilot, "go")
    dialog = await wait_for(
        pilot, lambda: isinstance(getattr(app.screen, "request", None), ApprovalRequest) and app.screen
    )
    dialog.DIGITS_AFTER = 0.0  # a digit counts at once (the dialog's own rule, tested with the dialog)
    await wait_for(pilot, lambda: dialog.is_armed, what="the guard's end")
    return dialog


async def test_the_approval_watch_tells_the_dialogs_own_key_from_anything_else(
    hermes_home: Path, tmp_path: Path
) -> None:
    (tmp_path / SCRATCH).mkdir()
    async with _watched_chat(hermes_home, tmp_path) as (pilot, app, watch):
        dialog = await _dialog(pilot, app)
        one = Action("key", "1")
        watch.before(0, one, ("1",), None)
        await pilot.press("1")
        watch.after()
        await wait_for(pilot, lambda: watch.decisions, what="the decision")
        assert watch.allowed == 1 and watch.wrongful() == []
        await wait_for(pilot, lambda: not (tmp_path / SCRATCH).exists(), what="the command ran")

        await wait_for(pilot, lambda: not chat(app).busy, what="the turn's end")
        (tmp_path / SCRATCH).mkdir()
        await submit(pilot, "again")  # the next turn's approval: answered by something else
        dialog = await _dialog(pilot, app)
        typing = Action("type", "run it")
        watch.before(1, typing, tuple("run it"), None)
        dialog.dismiss(ApprovalDecision.ONCE)
        watch.after()
        await pilot.pause()
        assert watch.allowed == 2
        assert len(watch.wrongful()) == 1 and "type('run it')" in watch.wrongful()[0]


async def test_a_click_is_judged_by_what_it_reached_not_by_the_screen_when_it_was_sent(
    hermes_home: Path, tmp_path: Path
) -> None:
    """On a loaded machine the dialog can appear between an action's start and its delivery: a click sent
    while the chat was on top that lands on the armed dialog's allow button is the dialog's own answer (one
    CI run's fuzz called it wrongful), and a click that lands on Deny allows nothing."""
    async with _watched_chat(hermes_home, tmp_path) as (pilot, app, watch):
        for turn, button in enumerate(("approval-deny", "approval-session")):
            (tmp_path / SCRATCH).mkdir(exist_ok=True)
            click = Action("click", "1", 500, 500)
            watch.before(turn, click, (), None)  # the cell is filled in below, once the dialog shows it
            dialog = await _dialog(pilot, app)
            region = dialog.query_one(f"#{button}").region
            assert watch.cause is not None
            watch.cause.click = (region.x + region.width // 2, region.y + region.height // 2)
            await pilot.click(offset=watch.cause.click)
            watch.after()
            await wait_for(pilot, lambda n=turn + 1: len(watch.decisions) == n, what="the decision")
            await wait_for(pilot, lambda: not chat(app).busy, what="the turn's end")
        assert [d.result for d in watch.decisions] == [ApprovalDecision.DENY, ApprovalDecision.SESSION]
        assert watch.wrongful() == [] and watch.allowed == 1
        session = watch.decisions[1].cause
        assert session is not None and session.dialog_on_top and session.clicked_id == "approval-session"

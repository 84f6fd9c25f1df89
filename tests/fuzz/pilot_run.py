"""One fuzz sequence in-process: the real app on the scripted server, driven by Pilot as a terminal would.

Keys go through the driver (Pilot's `press`), pastes are posted to the app as the driver posts a
bracketed paste (so the key order and the focus decide where they land), clicks at screen cells, resizes
of the terminal. After every action the app must still run (or have quit cleanly after a key that
quits), nothing may have logged an exception, and no approval may have been given by anything but the
dialog's own keys. A failure names the seed, the step, the last actions, the screens and the exception.
"""

from __future__ import annotations

import asyncio
import traceback
import unicodedata
from dataclasses import dataclass, field
from itertools import takewhile
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App
from textual.errors import NoWidget
from textual.keys import KEY_NAME_REPLACEMENTS
from textual.pilot import OutOfBounds, Pilot

from agent.api import ApprovalRequest
from agent.config.settings import Settings
from hermes_tui.app import HermesApp
from hermes_tui.commands import new_registry
from scripted import ScriptedServer, scripted_settings
from tests.app.harness import chat, chat_settings, wait_for
from tests.fuzz.plan import PASTES, QUIT_KEYS, Action, Plan, make_plan, mode_of
from tests.fuzz.scenario import SCRATCH, fuzz_scenario
from tests.fuzz.watch import ApprovalWatch, ErrorWatch, QuitWatch

START_SIZE = (100, 32)
SHOWN_ACTIONS = 12
STEP_PATIENCE = 60.0
"""A step still unfinished after this long is a hung app (a loaded machine takes a second or two)."""


class FuzzFailure(AssertionError):
    pass


def keys_of(action: Action) -> tuple[str, ...]:
    """The keys an action presses (Pilot names; one character is its own key)."""
    if action.kind == "key":
        return (action.value,)
    if action.kind == "type":
        return tuple(action.value)
    if action.kind in ("message", "slash"):
        return (*action.value, "enter")
    return ()


def screen_stack(app: App[Any]) -> str:
    names = [type(s).__name__ for s in app.screen_stack]
    if not names:
        return "no screen (the app has exited)"
    focused = app.focused
    where = f"{type(focused).__name__}#{focused.id}" if focused is not None else "nothing"
    return f"{' > '.join(names)} (focus: {where}, size {app.size.width}x{app.size.height})"


def _started(app: HermesApp, mode: str) -> bool:
    wanted = "SetupScreen" if mode == "setup" else "ChatScreen"
    return any(type(screen).__name__ == wanted for screen in app.screen_stack)


def _mode_reached(app: HermesApp, mode: str) -> bool:
    screen = chat(app)
    if mode == "stream":
        return bool(screen.busy)
    if mode == "clarify":
        return bool(screen.query("#clarify-question"))
    if mode == "approval":
        return isinstance(getattr(app.screen, "request", None), ApprovalRequest)
    return True


def key_event(key: str) -> events.Key:
    """The event a terminal's driver posts for `key` (a Pilot key name or one character)."""
    if len(key) == 1:
        name = (
            key if key.isalnum() else unicodedata.name(key, key).lower().replace("-", "_").replace(" ", "_")
        )
        return events.Key(KEY_NAME_REPLACEMENTS.get(name, name), key)
    return events.Key(key, {"enter": "\r", "space": " ", "tab": "\t", "escape": "\x1b"}.get(key))


async def _apply(pilot: Pilot[Any], app: App[Any], action: Action, keys: tuple[str, ...]) -> None:
    if len(keys) == 1:
        await pilot.press(*keys)
    elif keys:  # typed text arrives as a fast typist's keys do: all read before the app handles the first
        for key in keys:
            app.post_message(key_event(key))
    elif action.kind == "paste":
        app.post_message(events.Paste(PASTES[action.value]))
    elif action.kind == "click":
        x, y = click_cell(app, action)
        try:
            await pilot.click(offset=(x, y), times=int(action.value or 1))
        except OutOfBounds:
            pass
        except NoWidget:
            # Nothing laid out under the cell yet (a screen pushed a moment before, not yet arranged): a
            # terminal's click there is dropped (`Screen._forward_event`). It must not stay so: a screen
            # that is never laid out is a frozen one.
            where = f"({x}, {y}) of {type(app.screen).__name__}"
            await wait_for(pilot, lambda: _laid_out(app, x, y), what=f"something laid out at {where}")
    elif action.kind == "resize":
        await pilot.resize_terminal(action.x, action.y)
    elif action.kind == "wait":
        await pilot.pause(0.05 * int(action.value))
    await pilot.pause()


def _laid_out(app: App[Any], x: int, y: int) -> bool:
    try:
        app.get_widget_at(x, y)
    except NoWidget:
        return False
    return True


def click_cell(app: App[Any], action: Action) -> tuple[int, int]:
    return action.x * app.size.width // 1000, action.y * app.size.height // 1000


@dataclass
class Totals:
    """What a run did: sequences and steps played, apps started, quits, screens seen, approvals."""

    sequences: int = 0
    steps: int = 0
    apps: int = 0
    quits: int = 0
    screens: set[str] = field(default_factory=set)
    approvals: int = 0
    allowed: int = 0


async def run_fuzz(seeds: list[int], steps: int, home: Path, cwd: Path, *, fresh: bool = False) -> Totals:
    """Play the sequences of `seeds` (each `steps` actions) in as few apps as possible: one after the
    other in the same app, each from the chat screen at the starting size, or each in a new app (`fresh`:
    a replay, or the long run). An app that quits cleanly after a quitting key is replaced by a new one.
    Raises `FuzzFailure` with everything needed to replay."""
    totals = Totals()
    pending = list(seeds)
    (cwd / SCRATCH).mkdir(exist_ok=True)
    while pending:
        if fresh or mode_of(pending[0]) == "setup":  # the setup screen's sequences have an app each
            batch = pending[:1]
        else:
            batch = list(takewhile(lambda seed: mode_of(seed) != "setup", pending))
        played = await _one_app(batch, steps, home, cwd, totals)
        del pending[:played]
    return totals


async def _one_app(seeds: list[int], steps: int, home: Path, cwd: Path, totals: Totals) -> int:
    """Sequences of `seeds` in one app until they are done or it quits; returns how many were played."""
    mode = mode_of(seeds[0])
    played = 0
    history: list[str] = []  # every action of this app, across its sequences (an effect can land late)
    plan: Plan | None = None
    step = -1
    app: HermesApp | None = None
    with ErrorWatch() as errors, ScriptedServer(fuzz_scenario(mode)) as server:
        if mode == "setup":  # no provider: the setup screen first (its demo is this server)
            bare = Settings(hermes_home=home, cwd=cwd)
            app = HermesApp(bare, demo_factory=lambda: scripted_settings(server, bare))
        else:
            app = HermesApp(chat_settings(server, home, cwd, approvals_timeout=20.0))
        approvals = ApprovalWatch(app)
        approvals.install()
        quits = QuitWatch(app)
        quits.install()
        totals.apps += 1
        try:
            async with app.run_test(size=START_SIZE) as pilot:
                await wait_for(pilot, lambda: _started(app, mode), what="the first screen")
                await pilot.pause()
                registry = new_registry().commands()
                commands = [name for command in registry for name in (command.name, *command.aliases)]
                for index, seed in enumerate(seeds):
                    plan = make_plan(seed, steps, commands)
                    step = -1
                    history.append(f"[seed {seed} from the chat, mode {plan.mode}]")
                    await _start(pilot, app, plan.mode, first=index == 0)
                    for step, action in enumerate(plan.actions):
                        history.append(f"{step}:{action.describe()}")
                        keys = keys_of(action)
                        click = click_cell(app, action) if action.kind == "click" else None
                        approvals.before(step, action, keys, click)
                        quits.before(action)
                        try:
                            await asyncio.wait_for(_apply(pilot, app, action, keys), STEP_PATIENCE)
                        except TimeoutError:
                            hung = f"the app stopped answering: the step took over {STEP_PATIENCE} s"
                            raise FuzzFailure(hung) from None
                        approvals.after()
                        totals.steps += 1
                        totals.screens.update(type(s).__name__ for s in app.screen_stack)
                        _check(app, action, errors, approvals, quits)
                        if app.return_code is not None:
                            break
                    played += 1
                    totals.sequences += 1
                    if app.return_code is not None:
                        totals.quits += 1
                        break
        except Exception as exc:
            context = _context(seeds, played, plan, step, app, history)
            if isinstance(exc, FuzzFailure) and exc.__cause__ is None:
                raise FuzzFailure(f"{context}\n{exc}") from None
            raise FuzzFailure(f"{context}\n{_trace(exc)}") from None
    wrong = errors.errors + approvals.wrongful()
    if wrong:
        raise FuzzFailure(_context(seeds, played, plan, step, app, history) + "\n" + "\n".join(wrong))
    totals.approvals += len(approvals.decisions)
    totals.allowed += approvals.allowed
    return played


async def _start(pilot: Pilot[Any], app: HermesApp, mode: str, *, first: bool) -> None:
    """Back to the chat at the starting size (Escape closes what is open, as a user would), then the
    sequence's mode: a new app waits until its first turn streams, asks or waits for approval; a running
    app only sends the message (the scripted calls are wherever the previous sequences left them)."""
    for _ in range(4):
        if type(app.screen).__name__ in ("ChatScreen", "SetupScreen"):
            break
        await pilot.press("escape")
        await pilot.pause()
    if (app.size.width, app.size.height) != START_SIZE:
        await pilot.resize_terminal(*START_SIZE)
        await pilot.pause()
    if mode in ("idle", "setup") or type(app.screen).__name__ != "ChatScreen":
        return
    for key in (*"start", "enter"):
        app.post_message(key_event(key))
    await pilot.pause()
    if first:
        await wait_for(pilot, lambda: _mode_reached(app, mode), what=f"mode {mode}")


def _check(
    app: App[Any], action: Action, errors: ErrorWatch, approvals: ApprovalWatch, quits: QuitWatch
) -> None:
    """A clean exit is the quit's of a quitting key: the step's own (the setup screen's Quit exits at
    once), or one being handled when the app's quit began (it may end several actions later)."""
    problems = list(errors.errors) + approvals.wrongful()
    code = app.return_code
    asked = (action,) if quits.begun is None else (action, *quits.begun)
    if code is not None and (code != 0 or not any(set(keys_of(a)) & QUIT_KEYS for a in asked)):
        began = "" if quits.begun is None else f" (its quit began at {quits.begun[-1].describe()})"
        problems.append(f"the app exited (return code {code}) after {action.describe()}{began}")
    if problems:
        raise FuzzFailure("\n".join(problems))


def _trace(exc: BaseException) -> str:
    return "".join(traceback.format_exception(exc)).rstrip()


def _context(
    seeds: list[int], played: int, plan: Plan | None, step: int, app: App[Any] | None, history: list[str]
) -> str:
    """Where it failed and how to replay it: alone in a new app, and with the sequences before it."""
    failed = seeds[min(played, len(seeds) - 1)]
    lines = [f"UI fuzz sequence failed: seed {failed}, step {step}"]
    if plan is not None:
        lines.append(
            f"mode {plan.mode}; replay alone: {plan.replay()} (HERMES_FUZZ_STEPS={step + 1} stops there)"
        )
        if played:
            lines.append(
                f"it ran after {played} other sequence(s) in the same app: replay them too with "
                f"HERMES_FUZZ_SEED={seeds[0]} HERMES_FUZZ_SEQUENCES={played + 1} "
                f"HERMES_FUZZ_STEPS={len(plan.actions)} HERMES_FUZZ_SHARED=1"
            )
    lines.append("last actions (oldest first): " + ", ".join(history[-SHOWN_ACTIONS:]))
    if app is not None:
        lines.append(f"screens: {screen_stack(app)}")
    return "\n".join(lines)

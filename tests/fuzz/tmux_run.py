"""One fuzz sequence through a real terminal: `hermes-tui --demo --scenario` in a private tmux server.

What Pilot cannot show: the terminal's own key decoding (tmux sends what a terminal sends for Shift+Tab,
Ctrl+Home, F1), real bracketed pastes with bytes that are not UTF-8, SGR mouse clicks, and resizes of a
real window. The same plans as the Pilot form (`plan.make_plan`), over the command names of the registry.

A sequence fails when the app exits without a quitting key or with a non-zero code, when a traceback is
on the screen, or when the risky command ran (its scratch folder is gone) while the approval dialog was on
the screen, after actions that were not its own (a lone 1 or 2, Enter or Space, a click). A command run
with no dialog shown (YOLO, an earlier "allow this session") is not judged here: the Pilot form sees every
answer the dialog gives and what gave it.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path

from tests.e2e.tmux_harness import Tmux, app_env, demo_command
from tests.fuzz.plan import PASTES, QUIT_KEYS, Action, Plan
from tests.fuzz.scenario import SCRATCH

START_SIZE = (100, 32)
READY = "hermes-demo"
"""On the screen once the chat is up (the status bar's model)."""
STEP_PAUSE = 0.15
"""Seconds after each action before the screen is read: what the app shows is paced by its own frames."""

_TMUX_KEYS = {
    "enter": "Enter",
    "escape": "Escape",
    "tab": "Tab",
    "shift+tab": "BTab",
    "up": "Up",
    "down": "Down",
    "left": "Left",
    "right": "Right",
    "pageup": "PPage",
    "pagedown": "NPage",
    "home": "Home",
    "end": "End",
    "ctrl+home": "C-Home",
    "ctrl+end": "C-End",
    "space": "Space",
    "backspace": "BSpace",
    "delete": "DC",
    "shift+enter": "S-Enter",
    "shift+up": "S-Up",
    "shift+down": "S-Down",
    "f1": "F1",
    "f2": "F2",
    "f10": "F10",
}

_PASTE_BYTES = {"invalid-utf8": b"bytes \xff\xfe\xc3( from a bad clipboard \xed\xa0\x80 end"}
"""Pastes whose bytes a Python string cannot carry: a real terminal sends them as they are."""


def tmux_key(key: str) -> str:
    if key in _TMUX_KEYS:
        return _TMUX_KEYS[key]
    if key.startswith("ctrl+"):
        return "C-" + key.removeprefix("ctrl+")
    return key


class TmuxFuzz:
    """The app in tmux for one plan; `play` raises AssertionError naming the seed, step and screen."""

    def __init__(self, plan: Plan, scenario: Path, home: Path, cwd: Path) -> None:
        self.plan = plan
        self.cwd = cwd
        self.marker = cwd.parent / f"exit-{plan.seed}"
        self.scratch = cwd / SCRATCH
        self.scratch.mkdir(exist_ok=True)
        env = app_env(home)
        env.update({"EDITOR": "true", "VISUAL": "true"})
        command = (
            f"{demo_command(cwd, '--scenario', str(scenario))}; echo $? > {shlex.quote(str(self.marker))}; "
            "sleep 600"
        )
        self.tmux = Tmux(START_SIZE, command, env)
        self.tmux._run("set", "-g", "window-size", "manual")
        self._buffer_file = cwd.parent / f"paste-{plan.seed}"

    def close(self) -> None:
        self.tmux.close()

    def send(self, action: Action) -> None:
        if action.kind == "key":
            self.tmux.keys(tmux_key(action.value))
        elif action.kind == "type":
            self.tmux.keys("-l", action.value)
        elif action.kind in ("message", "slash"):
            self.tmux.keys("-l", action.value)
            self.tmux.keys("Enter")
        elif action.kind == "paste":
            data = _PASTE_BYTES.get(action.value) or PASTES[action.value].encode()
            self._buffer_file.write_bytes(data)
            self.tmux._run("load-buffer", "-b", "fuzz", str(self._buffer_file))
            self.tmux._run("paste-buffer", "-p", "-r", "-b", "fuzz", "-t", "t")
        elif action.kind == "click":
            width, height = self.size()
            x, y = action.x * width // 1000 + 1, action.y * height // 1000 + 1
            self.tmux.hex_keys(f"\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m".encode() * int(action.value or 1))
        elif action.kind == "resize":
            self.tmux._run("resize-window", "-t", "t", "-x", str(action.x), "-y", str(action.y))
        elif action.kind == "wait":
            time.sleep(0.05 * int(action.value))

    def size(self) -> tuple[int, int]:
        shown = self.tmux._run("display", "-p", "-t", "t", "#{pane_width} #{pane_height}").split()
        return (int(shown[0]), int(shown[1])) if len(shown) == 2 else START_SIZE

    def play(self) -> int:
        """Run the plan; returns how many actions ran (fewer when a quitting key quit)."""
        self.tmux.wait_for(READY, timeout=30)
        if self.plan.mode != "idle":
            self.tmux.keys("-l", "start")
            self.tmux.keys("Enter")
            time.sleep(0.8)
        could_approve = [False]  # per step: the dialog was shown and the action could answer it
        dialog_shown = [False]  # per step: the dialog was on the screen before the action
        for step, action in enumerate(self.plan.actions):
            before = self.tmux.screen()
            self.send(action)
            time.sleep(STEP_PAUSE)
            shown = self.tmux.screen()
            dialog_shown.append("Approval needed" in before)
            could_approve.append(dialog_shown[-1] and _may_approve(action))
            problem = None
            if "Traceback" in shown:
                problem = "a traceback is on the screen"
            elif self.marker.exists():
                code = self.marker.read_text().strip()
                if code != "0" or not (set(_keys(action)) & QUIT_KEYS):
                    problem = f"the app exited with code {code}"
                else:
                    return step + 1
            elif not self.scratch.exists():
                # With no dialog on the screen it ran unasked (YOLO, an "allow this session" or "always"
                # given before): the Pilot form checks those answers where they were given.
                if any(dialog_shown[-2:]) and not any(could_approve[-2:]):
                    problem = "the risky command ran after an action that was not the dialog's own"
                self.scratch.mkdir()
            if problem is not None:
                self._fail(step, problem, shown)
        return len(self.plan.actions)

    def _fail(self, step: int, problem: str, shown: str) -> None:
        first = max(0, step - 11)
        actions = ", ".join(
            f"{first + n}:{a.describe()}" for n, a in enumerate(self.plan.actions[first : step + 1])
        )
        raise AssertionError(
            f"UI fuzz (tmux) failed: seed {self.plan.seed} (mode {self.plan.mode}), step {step}: {problem}\n"
            f"replay: {self.plan.replay()} python -m pytest -n 0 tests/fuzz -k tmux\n"
            f"last actions: {actions}\nscreen:\n{shown}"
        )


def _keys(action: Action) -> list[str]:
    if action.kind == "key":
        return [action.value]
    if action.kind in ("message", "slash"):
        return ["enter"]
    return []


def _may_approve(action: Action) -> bool:
    if action.kind == "click":
        return True
    if action.kind == "key":
        return action.value in ("1", "2", "enter", "space")
    if action.kind == "type":
        return action.value in ("1", "2")
    return action.kind in ("message", "slash")  # Enter on an allow button the arrows focused

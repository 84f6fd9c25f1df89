"""What a fuzz sequence does: a list of user actions drawn from one seed, and nothing else.

The plan is a pure function of `(seed, steps, commands)`: the same seed always gives the same keys, pastes,
clicks, resizes and slash commands, so a failure replays with `HERMES_FUZZ_SEED=<seed>
HERMES_FUZZ_STEPS=<steps>`. What the app does in between is paced by the scripted server and Textual, so
a replay meets the same actions, not always the same frames.

Nothing here knows the app's module layout: commands are names read from the running app's registry, and
the runners (Pilot, tmux) turn each action into what a user's terminal sends.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from typing import Literal

Kind = Literal["key", "type", "message", "paste", "click", "resize", "slash", "wait"]

MODES = ("idle", "stream", "clarify", "approval")
"""What the sequence starts during: nothing, a streaming turn, a clarify question, an approval dialog."""

SETUP_EVERY = 20
"""One seed in this many starts a new app with no provider configured, on the setup screen."""


def mode_of(seed: int) -> str:
    """The sequence's starting mode: one of `MODES`, or "setup" for one seed in `SETUP_EVERY`."""
    return "setup" if seed % SETUP_EVERY == SETUP_EVERY - 1 else MODES[seed % len(MODES)]


_CTRL_LETTERS = [c for c in string.ascii_lowercase if c not in "qim"]  # ctrl+i is Tab, ctrl+m is Enter
KEYS: tuple[str, ...] = (
    *string.ascii_letters,
    *string.digits,
    *(["enter"] * 6),
    *(["escape"] * 6),
    *(["tab"] * 4),
    *(["shift+tab"] * 3),
    *(["up", "down", "left", "right"] * 2),
    "pageup",
    "pagedown",
    "home",
    "end",
    "ctrl+home",
    "ctrl+end",
    "space",
    "space",
    "backspace",
    "delete",
    "shift+enter",
    "shift+up",
    "shift+down",
    "f1",
    "f1",
    "f2",
    "f10",
    *(f"ctrl+{c}" for c in _CTRL_LETTERS),
    "ctrl+p",
    "ctrl+o",
    "ctrl+t",
    "ctrl+r",
)
"""Every key a user presses, weighted towards the ones that move between screens and focus positions.
Ctrl+Q is left out (it only quits, at once, by design); Ctrl+C and Ctrl+D can quit too and are kept."""

QUIT_KEYS = frozenset({"ctrl+c", "ctrl+d", "enter"})
"""Keys after which a clean exit is a quit the user asked for (Ctrl+C twice, Ctrl+D on an empty prompt,
Enter on the palette's "quit"), not a dead app."""

NEVER_TYPED_COMMANDS = frozenset({"quit", "exit", "q"})
"""Commands whose whole job is to end the app: typing them ends the sequence, so they are not drawn."""

PASTES: dict[str, str] = {
    "empty": "",
    "line": "a pasted line",
    "many-lines": "\n".join(f"line {n}: {'x' * (n % 70)}" for n in range(2000)),
    "invalid-utf8": "bytes \udcff\udcfe\ufffd from a bad clipboard \ud800 end",
    "escapes": (
        "\x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b[2J\x1b[H \x1b]52;c;aGk=\x07 \r over \x08\x07 \x9b31m"
    ),
    "bidi": "safe\u202e txt.exe \u200b\u2066hidden\u2069",
    "slash": "/model gpt-4o\n/theme\n",
    "markup": "[bold red]not markup[/] [link=http://x]x[/link] $(rm -rf ~)",
    "path": "/tmp/does-not-exist.png",
    "nul": "before\x00after\x00",
    "wide": "👩‍👩‍👧‍👦 漢字かな 🇫🇷 e\u0301 " * 20,
    "one-huge-line": "y" * 200_000,
}
"""What a user pastes: nothing, a line, 2,000 lines, one 200,000-character line, undecodable bytes, NULs,
terminal escapes, invisible Unicode, wide and combining characters, text that looks like commands or
markup, a path."""

ARGUMENTS: tuple[str, ...] = (
    "x",
    "1",
    "0",
    "-1",
    "999999",
    "--help",
    "list",
    "on",
    "off",
    "high",
    "../../etc/passwd",
    "a" * 300,
    "\x1b[31mred",
    "🙂 émoji",
    "[bold]markup[/]",
    "   ",
)
"""Arguments for any command: plausible, out of range, hostile."""

WORDS = ("hello", "ls", "/", "@", "!", "/mo", "@READ", "!echo hi", "y", "1", "ünïcode", "two words")


@dataclass(frozen=True)
class Action:
    """One thing the user does. `value` is a key name, text, paste kind, command line or pause; `x`/`y` are
    a click's or resize's numbers (a click's as thousandths of the screen, so they fit any size)."""

    kind: Kind
    value: str = ""
    x: int = 0
    y: int = 0

    def describe(self) -> str:
        if self.kind == "click":
            double = ", double" if self.value == "2" else ""
            return f"click({self.x / 1000:.3f}w, {self.y / 1000:.3f}h{double})"
        if self.kind == "resize":
            return f"resize({self.x}x{self.y})"
        if self.kind == "paste":
            return f"paste({self.value})"
        return f"{self.kind}({self.value!r})"


@dataclass(frozen=True)
class Plan:
    seed: int
    mode: str
    actions: tuple[Action, ...]

    def replay(self) -> str:
        return f"HERMES_FUZZ_SEED={self.seed} HERMES_FUZZ_STEPS={len(self.actions)}"


_WEIGHTS: dict[Kind, int] = {
    "key": 40,
    "type": 6,
    "message": 6,
    "paste": 7,
    "click": 10,
    "resize": 5,
    "slash": 14,
    "wait": 12,
}


def make_plan(seed: int, steps: int, commands: list[str]) -> Plan:
    """The sequence for `seed`: its starting mode and `steps` actions over `commands` (registry names)."""
    rng = random.Random(seed)
    mode = mode_of(seed)
    typed = sorted(name for name in commands if name not in NEVER_TYPED_COMMANDS)
    kinds = list(_WEIGHTS)
    weights = list(_WEIGHTS.values())
    actions = [_action(rng, rng.choices(kinds, weights)[0], typed) for _ in range(steps)]
    if actions and rng.random() < 0.5:  # half the sequences open a screen (or run a command) first
        actions[0] = _action(rng, "slash", typed)
    return Plan(seed, mode, tuple(actions))


def _action(rng: random.Random, kind: Kind, commands: list[str]) -> Action:
    if kind == "key":
        return Action("key", rng.choice(KEYS))
    if kind == "type":
        return Action("type", rng.choice(WORDS))
    if kind == "message":
        return Action("message", rng.choice(("go on", "tell me more", "run it", "what now?")))
    if kind == "paste":
        return Action("paste", rng.choice(sorted(PASTES)))
    if kind == "click":
        times = "2" if rng.random() < 0.2 else "1"  # a double click selects a word or opens an entry
        return Action("click", times, x=rng.randrange(1000), y=rng.randrange(1000))
    if kind == "resize":
        roll = rng.random()
        if roll < 0.25:
            return Action("resize", x=20, y=6)
        if roll < 0.5:
            return Action("resize", x=100, y=32)
        return Action("resize", x=rng.randint(20, 160), y=rng.randint(6, 50))
    if kind == "slash":
        name = rng.choice(commands)
        arg = rng.choice(ARGUMENTS) if rng.random() < 0.5 else ""
        return Action("slash", f"/{name} {arg}".rstrip() if arg else f"/{name}")
    return Action("wait", str(rng.choice((1, 2, 4, 8))))

"""The "model is thinking" line: a Hermes-style kawaii face, a verb, the elapsed time and the interrupt hint.

One widget rendering one `Text` line (no children). It animates at most `FPS` frames a second and only
while it is running *and* on screen: the timer is paused on `Hide` (display none, scrolled away, removed) and
resumed on `Show`. The face and verb change every `CHANGE_EVERY` seconds, like Hermes' `KawaiiSpinner`.

Faces and verbs are constructor parameters and reactives, so a skin/theme can replace them. Snapshot tests
set `Spinner.ANIMATE = False` (or pass `animate=False`): the line is then fully static (first frame, first
face and verb, "0.0s"). `TEXTUAL_ANIMATIONS=none` stops the glyph animation but keeps the elapsed time.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget

from agent.humanize import format_elapsed
from widgets.text_safety import component_text_style

__all__ = ["Spinner"]


class Spinner(Widget):
    """`⠹ (◔_◔) pondering… 3.2s · esc to interrupt`"""

    DEFAULT_CSS = """
    Spinner {
        height: 1;
        margin: 1 0 0 0;
        padding: 0 1;
        & > .spinner--glyph { color: $accent; }
        & > .spinner--face { color: $secondary; }
        & > .spinner--verb { color: $foreground; text-style: italic; }
        & > .spinner--elapsed { color: $text-muted; }
        & > .spinner--hint { color: $text-muted; }
        & > .spinner--stall { color: $text-warning; }
    }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "spinner--glyph",
        "spinner--face",
        "spinner--verb",
        "spinner--elapsed",
        "spinner--hint",
        "spinner--stall",
    }

    FRAMES: ClassVar[tuple[str, ...]] = ("⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏")
    DEFAULT_FACES: ClassVar[tuple[str, ...]] = (
        "(｡◕‿◕｡)",
        "(◕‿◕✿)",
        "(◔_◔)",
        "(¬‿¬)",
        "(⌐■_■)",
        "ʕ•ᴥ•ʔ",
        "(◕ᴗ◕✿)",
        "(≧◡≦)",
        "(★ω★)",
        "(⊙_⊙)",
        "( ˘▽˘)っ",
        "ಠ_ಠ",
    )
    DEFAULT_VERBS: ClassVar[tuple[str, ...]] = (
        "pondering",
        "contemplating",
        "musing",
        "cogitating",
        "ruminating",
        "deliberating",
        "mulling",
        "reflecting",
        "processing",
        "reasoning",
        "analyzing",
        "computing",
        "synthesizing",
        "formulating",
        "brainstorming",
    )
    FPS: ClassVar[float] = 12.0
    """Animation frame rate while running and visible."""
    CHANGE_EVERY: ClassVar[float] = 2.0
    """Seconds between face/verb changes."""
    SLOW_AFTER: ClassVar[float] = 30.0
    """After this many seconds without a first token, say that we are still waiting for the provider."""
    ANIMATE: ClassVar[bool] = True
    """Class-wide switch; False makes every spinner static (snapshot tests)."""

    faces: reactive[tuple[str, ...]] = reactive(DEFAULT_FACES)
    verbs: reactive[tuple[str, ...]] = reactive(DEFAULT_VERBS)
    hint: reactive[str] = reactive("esc to interrupt")

    def __init__(
        self,
        *,
        faces: Sequence[str] | None = None,
        verbs: Sequence[str] | None = None,
        hint: str = "esc to interrupt",
        animate: bool | None = None,
        seed: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        if faces:
            self.set_reactive(Spinner.faces, tuple(faces))
        if verbs:
            self.set_reactive(Spinner.verbs, tuple(verbs))
        self.set_reactive(Spinner.hint, hint)
        self._animate_choice = animate  # not `_animate`: Textual keeps its bound animator there
        self._random = random.Random(seed)
        self._clock = clock
        self._started_at: float | None = None
        self._frame = 0
        self._face_offset = 0
        self._verb_offset = 0
        self._timer: Timer | None = None
        self._visible = False
        self._stall: tuple[float, float] | None = None  # (seconds without data when told, at what time)

    # ----------------------------------------------------------------------------------------- public API

    @property
    def is_running(self) -> bool:
        return self._started_at is not None

    @property
    def is_animating(self) -> bool:
        """True while the frame timer runs (running, animated and on screen)."""
        return self._timer is not None

    @property
    def animates(self) -> bool:
        """Whether the spinner moves at all: off for `ANIMATE=False` or `animate=False` (snapshots)."""
        if self._animate_choice is not None:
            return self._animate_choice
        return self.ANIMATE

    @property
    def elapsed(self) -> float:
        """Seconds since `start()` (0.0 when stopped or static)."""
        if self._started_at is None or not self.animates:
            return 0.0
        return self._clock() - self._started_at

    def set_stalled(self, seconds: float | None) -> None:
        """The stream has sent nothing for `seconds` (the line says "no data for N s", counting on);
        None: data flows again."""
        self._stall = None if seconds is None else (seconds, self._clock())
        self.refresh()

    @property
    def stalled_for(self) -> float | None:
        """Seconds without data (None while data flows); not counting on in static mode (snapshots)."""
        if self._stall is None:
            return None
        seconds, since = self._stall
        return seconds + (self._clock() - since if self.animates else 0.0)

    def start(self) -> None:
        """Start (or restart) the spinner: new random face and verb, elapsed from zero."""
        self._stall = None
        self._started_at = self._clock()
        self._frame = 0
        if self.animates:
            self._face_offset = self._random.randrange(len(self.faces)) if self.faces else 0
            self._verb_offset = self._random.randrange(len(self.verbs)) if self.verbs else 0
        else:
            self._face_offset = self._verb_offset = 0
        self._sync_timer()
        self.refresh()

    def stop(self) -> None:
        """Stop animating (the widget stays as it is; the transcript hides it)."""
        self._started_at = None
        self._stall = None
        self._sync_timer()

    # ----------------------------------------------------------------------------------------- internals

    def _glyph_animation(self) -> bool:
        return self.animates and (not self.is_attached or self.app.animation_level != "none")

    def _sync_timer(self) -> None:
        """Run the interval only while running, animating and visible."""
        want = self.is_running and self.animates and self._visible and self.is_attached
        if want and self._timer is None:
            rate = self.FPS if self._glyph_animation() else 1.0
            self._timer = self.set_interval(1 / rate, self._tick, name="spinner")
        elif not want and self._timer is not None:
            self._timer.stop()
            self._timer = None

    def _tick(self) -> None:
        if self._glyph_animation():
            self._frame += 1
        self.refresh()

    def on_show(self, event: events.Show) -> None:
        self._visible = True
        self._sync_timer()

    def on_hide(self, event: events.Hide) -> None:
        self._visible = False
        self._sync_timer()

    def on_unmount(self) -> None:
        self._visible = False
        self._sync_timer()

    def watch_faces(self) -> None:
        self.refresh()

    def watch_verbs(self) -> None:
        self.refresh()

    def watch_hint(self) -> None:
        self.refresh()

    def render(self) -> Text:
        elapsed = self.elapsed
        step = int(elapsed // self.CHANGE_EVERY) if self.CHANGE_EVERY > 0 else 0
        faces, verbs = self.faces, self.verbs
        face = faces[(self._face_offset + step) % len(faces)] if faces else ""
        verb = verbs[(self._verb_offset + step) % len(verbs)] if verbs else "thinking"
        glyph = self.FRAMES[self._frame % len(self.FRAMES)] if self.FRAMES else ""

        line = Text(no_wrap=True, overflow="ellipsis", end="")
        line.append(glyph, style=component_text_style(self, "spinner--glyph"))
        if face:
            line.append(" ")
            line.append(face, style=component_text_style(self, "spinner--face"))
        line.append(" ")
        line.append(f"{verb}…", style=component_text_style(self, "spinner--verb"))
        line.append(" ")
        line.append(format_elapsed(elapsed), style=component_text_style(self, "spinner--elapsed"))
        hint_style = component_text_style(self, "spinner--hint")
        stalled = self.stalled_for
        if stalled is not None:
            line.append(f" · no data for {stalled:.0f} s", style=component_text_style(self, "spinner--stall"))
        elif elapsed >= self.SLOW_AFTER:
            line.append(" · still waiting for the provider", style=hint_style)
        if self.hint:
            line.append(f" · {self.hint}", style=hint_style)
        return line

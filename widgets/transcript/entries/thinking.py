"""The "model is thinking" line: a Hermes-style kawaii face, a verb, the elapsed time and the interrupt hint.

Drawn by the transcript below its last entry while shown (`display`), not a widget: the transcript's
pacer moves it at most `FPS` frames a second, and only while it is running, shown and on screen. The face
and verb change every `CHANGE_EVERY` seconds, like Hermes' `KawaiiSpinner`.

Faces and verbs are constructor parameters and attributes, so a skin/theme can replace them. Snapshot
tests set `ThinkingLine.ANIMATE = False` (or pass `animate=False`): the line is then fully static (first
frame, first face and verb, "0.0s"). `TEXTUAL_ANIMATIONS=none` stops the glyph animation but keeps the elapsed
time.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.style import Style
from rich.text import Text

from agent.api import format_elapsed
from widgets.support import timing
from widgets.transcript.markdown.render import Line, render_text

if TYPE_CHECKING:
    from widgets.transcript.entries.base import Painter

__all__ = ["ThinkingLine"]


class ThinkingLine:
    """`⠹ (◔_◔) pondering… 3.2s · esc to interrupt`"""

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
    FPS: ClassVar[float] = timing.SPINNER_FPS
    CHANGE_EVERY: ClassVar[float] = 2.0
    """Seconds between face/verb changes."""
    SLOW_AFTER: ClassVar[float] = 30.0
    """After this many seconds without a first token, say that we are still waiting for the provider."""
    ANIMATE: ClassVar[bool] = True
    """Class-wide switch; False makes every spinner static (snapshot tests)."""

    def __init__(
        self,
        *,
        faces: Sequence[str] | None = None,
        verbs: Sequence[str] | None = None,
        hint: str = "esc to interrupt",
        animate: bool | None = None,
        seed: int | None = None,
        clock: Callable[[], float] = time.monotonic,
        on_change: Callable[[], None] | None = None,
    ) -> None:
        self._faces = tuple(faces) if faces else self.DEFAULT_FACES
        self._verbs = tuple(verbs) if verbs else self.DEFAULT_VERBS
        self._hint = hint
        self._display = False
        self._animate_choice = animate
        self.on_change = on_change
        """Called when what the line shows changed (the transcript repaints it)."""
        self.painter: Painter | None = None
        self.animation_level = "full"
        """The app's animation level (`none` keeps the glyph still); set by the transcript."""
        self._random = random.Random(seed)
        self._clock = clock
        self._started_at: float | None = None
        self._frame = 0
        self._face_offset = 0
        self._verb_offset = 0
        self._stall: tuple[float, float] | None = None  # (seconds without data when told, at what time)

    # ----------------------------------------------------------------------------------------- public API

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    @property
    def faces(self) -> tuple[str, ...]:
        return self._faces

    @faces.setter
    def faces(self, faces: Sequence[str]) -> None:
        self._faces = tuple(faces)
        self._changed()

    @property
    def verbs(self) -> tuple[str, ...]:
        return self._verbs

    @verbs.setter
    def verbs(self, verbs: Sequence[str]) -> None:
        self._verbs = tuple(verbs)
        self._changed()

    @property
    def hint(self) -> str:
        return self._hint

    @hint.setter
    def hint(self, hint: str) -> None:
        self._hint = hint
        self._changed()

    @property
    def display(self) -> bool:
        """Shown below the transcript's last entry."""
        return self._display

    @display.setter
    def display(self, display: bool) -> None:
        if display != self._display:
            self._display = display
            self._changed()

    @property
    def is_running(self) -> bool:
        return self._started_at is not None

    @property
    def is_animating(self) -> bool:
        """True while the transcript's pacer moves it (running, animated and shown)."""
        return self.is_running and self.animates and self._display

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
        self._changed()

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
        self._changed()

    def stop(self) -> None:
        """Stop animating (the widget stays as it is; the transcript hides it)."""
        self._started_at = None
        self._stall = None
        self._changed()

    # ----------------------------------------------------------------------------------------- internals

    def _glyph_animation(self) -> bool:
        return self.animates and self.animation_level != "none"

    @property
    def fps(self) -> float:
        """Ticks a second it wants while animating (1 when only the clock moves)."""
        return self.FPS if self._glyph_animation() else 1.0

    def tick(self) -> None:
        """A frame of the pacer (UI thread)."""
        if self._glyph_animation():
            self._frame += 1

    def _style(self, component: str) -> Style:
        return Style() if self.painter is None else self.painter.span_style(component)

    def render(self) -> Text:
        elapsed = self.elapsed
        step = int(elapsed // self.CHANGE_EVERY) if self.CHANGE_EVERY > 0 else 0
        faces, verbs = self.faces, self.verbs
        face = faces[(self._face_offset + step) % len(faces)] if faces else ""
        verb = verbs[(self._verb_offset + step) % len(verbs)] if verbs else "thinking"
        glyph = self.FRAMES[self._frame % len(self.FRAMES)] if self.FRAMES else ""

        line = Text(no_wrap=True, overflow="ellipsis", end="")
        line.append(glyph, style=self._style("spinner--glyph"))
        if face:
            line.append(" ")
            line.append(face, style=self._style("spinner--face"))
        line.append(" ")
        line.append(f"{verb}…", style=self._style("spinner--verb"))
        line.append(" ")
        line.append(format_elapsed(elapsed), style=self._style("spinner--elapsed"))
        hint_style = self._style("spinner--hint")
        stalled = self.stalled_for
        if stalled is not None:
            line.append(f" · no data for {stalled:.0f} s", style=self._style("spinner--stall"))
        elif elapsed >= self.SLOW_AFTER:
            line.append(" · still waiting for the provider", style=hint_style)
        if self.hint:
            line.append(f" · {self.hint}", style=hint_style)
        return line

    def line(self, width: int) -> Line:
        """The line drawn at most `width` cells wide, with the painter's console and base style."""
        painter = self.painter
        if painter is None:
            return ()
        text = self.render()
        text.truncate(max(1, width), overflow="ellipsis")
        lines = render_text(painter.console, text, max(1, width), painter.base_style)
        return lines[0] if lines else ()

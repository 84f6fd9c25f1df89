"""Write each frame to the terminal in fewer bytes: one SGR change where the style changes, no needless moves.

Textual 8.2.8 writes every segment as `ESC[<whole style>m text ESC[0m` and starts every chop of a line
(a widget's part of it: border, padding, scrollbar) with an absolute cursor move, even where the cursor
already is. Measured in tmux (`benchmarks/terminal_stream.py`, 1,500 words at 50 chunks/s, the bytes kept
with `tmux pipe-pane`): 32 KiB/s, over the issue's 30; 56% of it SGR sequences, most of them setting
the same colours again, and 10% cursor moves, most of them to where the cursor already was. With this
writer, the same run: 19 KiB/s (SGR 584 -> 237 KB, moves 102 -> 36 KB). Every byte is also parsed again
by the terminal (and crosses the network under ssh).

`install()` replaces `render_segments` of Textual's two full-screen update kinds (`ChopsUpdate`: the
changed spans of lines, `LayoutUpdate`: whole lines) with `FrameWriter`, which walks the same strips in
the same order and writes the same cells: it keeps the current SGR state and, when a segment's style
differs, emits only the change (colours and added attributes in place, `0;…` when an attribute goes off),
moves the cursor only where it is not already, and ends the frame reset, as Textual's does. The cells on
screen are the same (`tests/compat/test_compat_frame_writer.py` plays both outputs into a terminal emulator).
Does nothing if the names are gone in another Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MethodType
from typing import Any

from rich.color import ColorSystem
from rich.console import COLOR_SYSTEMS, Console
from rich.style import Style
from textual._compositor import ChopsUpdate, LayoutUpdate
from textual.strip import SGR_STYLES, Strip

from hermes_tui.textual_compat.hooks import wrap_once

__all__ = ["FrameWriter", "SgrState", "install", "render_chops", "render_layout"]

_ATTRIBUTES = (
    "bold",
    "dim",
    "italic",
    "underline",
    "blink",
    "blink2",
    "reverse",
    "conceal",
    "strike",
    "underline2",
    "frame",
    "encircle",
    "overline",
)
"""Rich's attribute bits, in its order (the order of Textual's `SGR_STYLES`): read through the public
properties, once per style (the states are cached)."""

_MAX_CACHED = 4096
"""Styles and transitions remembered; a theme has a few hundred. Past it the caches start again."""


@dataclass(frozen=True, slots=True)
class SgrState:
    """A style as the terminal holds it: attribute bits (Rich's order), foreground and background codes."""

    attributes: int
    foreground: str
    background: str
    sgr: str
    """The codes Textual would write for this style (`Strip.render_ansi`), empty for the default."""


DEFAULT = SgrState(0, "", "", "")

_states: dict[tuple[Style, ColorSystem], SgrState] = {}
_transitions: dict[tuple[str, str], str] = {}


def sgr_state(style: Style, color_system: ColorSystem) -> SgrState:
    key = (style, color_system)
    state = _states.get(key)
    if state is None:
        if len(_states) >= _MAX_CACHED:
            _states.clear()
        attributes = sum(1 << bit for bit, name in enumerate(_ATTRIBUTES) if getattr(style, name))
        color, bgcolor = style.color, style.bgcolor
        foreground = ";".join(color.downgrade(color_system).get_ansi_codes()) if color else ""
        background = ";".join(bgcolor.downgrade(color_system).get_ansi_codes(False)) if bgcolor else ""
        state = SgrState(attributes, foreground, background, Strip.render_ansi(style, color_system))
        _states[key] = state
    return state


def transition(current: SgrState, target: SgrState) -> str:
    """The shortest sequence this module knows that takes the terminal from `current` to `target`."""
    key = (current.sgr, target.sgr)  # strings hash once; the state follows from its codes
    sequence = _transitions.get(key)
    if sequence is None:
        if len(_transitions) >= _MAX_CACHED:
            _transitions.clear()
        sequence = _transition(current, target)
        _transitions[key] = sequence
    return sequence


def _transition(current: SgrState, target: SgrState) -> str:
    if target.sgr == current.sgr:
        return ""
    if not target.sgr:
        return "\x1b[0m"
    if not current.sgr:
        return f"\x1b[{target.sgr}m"
    if current.attributes & ~target.attributes:  # an attribute goes off: SGR has no general "off"
        return f"\x1b[0;{target.sgr}m"
    added = target.attributes & ~current.attributes
    codes = [SGR_STYLES[bit] for bit in range(added.bit_length()) if added & (1 << bit)]
    if target.foreground != current.foreground:
        codes.append(target.foreground or "39")
    if target.background != current.background:
        codes.append(target.background or "49")
    delta = f"\x1b[{';'.join(codes)}m"
    full = f"\x1b[0;{target.sgr}m"
    return delta if len(delta) <= len(full) else full


class FrameWriter:
    """One frame's output: strips placed at cells, with the terminal's SGR state and cursor tracked."""

    def __init__(self, console: Console) -> None:
        self.color_system = COLOR_SYSTEMS.get(console.color_system or "", ColorSystem.TRUECOLOR)
        self.parts: list[str] = []
        self.state = DEFAULT
        self.x = -1
        self.y = -1

    def strip(self, x: int, y: int, strip: Strip) -> None:
        append = self.parts.append
        if x != self.x or y != self.y:
            append(f"\x1b[{y + 1}H" if x == 0 else f"\x1b[{y + 1};{x + 1}H")
        color_system = self.color_system
        state = self.state
        for text, style, _control in strip:
            if not text:
                continue  # nothing drawn: the style it carries need not be set
            target = DEFAULT if style is None else sgr_state(style, color_system)
            if target is not state:
                change = transition(state, target)
                if change:
                    append(change)
                state = target
            if style is not None and (link := style.link):
                append(f"\x1b]8;id={style.link_id};{link}\x1b\\{text}\x1b]8;;\x1b\\")
            else:
                append(text)
        self.state = state
        self.x, self.y = x + strip.cell_length, y

    def finish(self) -> str:
        if self.state.sgr:
            self.parts.append("\x1b[0m")  # as Textual leaves it: whatever is written next starts plain
            self.state = DEFAULT
        return "".join(self.parts)


def render_chops(update: ChopsUpdate, console: Console) -> str:
    """`ChopsUpdate.render_segments`: the same chops and crops as Textual's, through a `FrameWriter`."""
    writer = FrameWriter(console)
    chops, chop_ends = update.chops, update.chop_ends
    for y, x1, x2 in update.spans:
        for end, (x, strip) in zip(chop_ends[y], chops[y].items(), strict=False):
            if strip is None or x > x2 or end <= x1:
                continue
            if not (x2 > x >= x1 and end <= x2):
                strip = strip.crop(0, min(end, x2) - x)
            writer.strip(x, y, strip)
    return writer.finish()


def render_layout(update: LayoutUpdate, console: Console) -> str:
    """`LayoutUpdate.render_segments` (a whole screen: first frame, resize, a screen switch)."""
    writer = FrameWriter(console)
    x = update.region.x
    for y, line in enumerate(update.strips, update.region.y):
        line_x = x
        for strip in line:
            writer.strip(line_x, y, strip)
            line_x += strip.cell_length
    return writer.finish()


class _RenderSegments:
    """Stands in for `render_segments` on the class: binds like a method (a descriptor)."""

    render: Callable[[Any, Console], str]

    def __init__(self, original: Callable[..., str]) -> None:
        self.original = original

    def __get__(self, update: object, owner: type | None = None) -> Any:
        return self if update is None else MethodType(type(self).render, update)


class _ChopsRenderSegments(_RenderSegments):
    render = staticmethod(render_chops)


class _LayoutRenderSegments(_RenderSegments):
    render = staticmethod(render_layout)


def install() -> bool:
    """True if both replacements are in place (idempotent)."""
    chops = wrap_once(ChopsUpdate, "render_segments", _ChopsRenderSegments)
    layout = wrap_once(LayoutUpdate, "render_segments", _LayoutRenderSegments)
    return chops and layout

"""`ThemeSpec`: what one theme file holds, validated, and its conversion to a Textual `Theme`.

A theme is the ten base colours Textual derives its 160-odd CSS variables from, plus the Hermes flavour:
the spinner's faces and verbs, the prompt symbol, the agent's name and the tool icons. Colours are hex
strings (`#RGB` or `#RRGGBB`), normalised to upper-case `#RRGGBB`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from rich.cells import cell_len
from textual.theme import Theme

__all__ = ["COLOR_KEYS", "SpinnerSpec", "ThemeColors", "ThemeSpec", "luminance", "normalize_hex"]

_HEX = re.compile(r"#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})")

COLOR_KEYS: tuple[str, ...] = (
    "primary",
    "secondary",
    "accent",
    "background",
    "surface",
    "panel",
    "foreground",
    "success",
    "warning",
    "error",
)


def normalize_hex(value: object) -> str:
    """`#abc` / `#AABBCC` -> `#AABBCC`; anything else raises ValueError with what was expected."""
    if not isinstance(value, str):
        raise ValueError(f"expected a hex colour such as '#E0A526', got {type(value).__name__}")
    match = _HEX.fullmatch(value.strip())
    if match is None or not value.strip().startswith("#"):
        raise ValueError(f"expected a hex colour such as '#E0A526', got {value!r}")
    digits = match.group(1)
    if len(digits) == 3:
        digits = "".join(ch * 2 for ch in digits)
    return "#" + digits.upper()


def luminance(hex_color: str) -> float:
    """WCAG relative luminance of a `#RRGGBB` colour (0 black .. 1 white)."""
    value = normalize_hex(hex_color)

    def channel(pos: int) -> float:
        c = int(value[pos : pos + 2], 16) / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5)


def _short_glyph(limit: int) -> Callable[[str], str]:
    def check(value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        if "\n" in value or "\r" in value:
            raise ValueError("must be on one line")
        if cell_len(value) > limit:
            raise ValueError(f"must be at most {limit} cells wide, got {cell_len(value)}")
        return value

    return check


HexColor = Annotated[str, AfterValidator(normalize_hex)]
Face = Annotated[str, AfterValidator(_short_glyph(16))]
Verb = Annotated[str, AfterValidator(_short_glyph(40))]
Symbol = Annotated[str, AfterValidator(_short_glyph(4))]
Wing = Annotated[str, AfterValidator(_short_glyph(8))]


class ThemeColors(BaseModel):
    """The base colours Textual generates a theme's CSS variables from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    primary: HexColor
    secondary: HexColor
    accent: HexColor
    background: HexColor
    surface: HexColor
    panel: HexColor
    foreground: HexColor
    success: HexColor
    warning: HexColor
    error: HexColor


class SpinnerSpec(BaseModel):
    """The "model is thinking" line. Empty lists mean "the widget's own defaults"."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    faces: tuple[Face, ...] = ()
    verbs: tuple[Verb, ...] = ()
    wings: tuple[tuple[Wing, Wing], ...] = ()
    """Optional (left, right) decorations around the spinner label, as Hermes' skins have them."""


class ThemeSpec(BaseModel):
    """One theme file, validated."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
    description: str = ""
    dark: bool = True
    colors: ThemeColors
    spinner: SpinnerSpec = SpinnerSpec()
    prompt_symbol: Symbol = "❯"
    agent_name: str = Field("Hermes Agent", min_length=1, max_length=40)
    tool_icons: dict[str, Symbol] = Field(default_factory=dict)
    tool_prefix: Symbol = "┊"

    def to_textual_theme(self) -> Theme:
        c = self.colors
        return Theme(
            name=self.name,
            primary=c.primary,
            secondary=c.secondary,
            accent=c.accent,
            foreground=c.foreground,
            background=c.background,
            surface=c.surface,
            panel=c.panel,
            success=c.success,
            warning=c.warning,
            error=c.error,
            dark=self.dark,
        )

    def icon_for(self, tool_name: str, fallback: str = "🧩") -> str:
        return self.tool_icons.get(tool_name, fallback)

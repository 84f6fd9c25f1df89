"""The card look shared by every question, dialog and picker: a rounded border in an accent colour, a bold
title set in the border, the surface background.

Textual has no CSS mixins and a widget's DEFAULT_CSS is scoped to it, so the look is one rule built here and
placed at the top of each widget's DEFAULT_CSS (its own rules after it may still override a property, as
the theme picker does for its title colour). One place, so the cards cannot drift apart.
"""

from __future__ import annotations

__all__ = ["card_css"]


def card_css(selector: str, accent: str = "$primary") -> str:
    """A CSS rule giving `selector` the card look, with `accent` (a theme variable) for border and title."""
    return f"""
    {selector} {{
        border: round {accent};
        border-title-color: {accent};
        border-title-style: bold;
        background: $surface;
    }}
    """

"""Component classes restyled in place (`textual_compat/component_nodes.py`): the styles read are the ones a
fresh virtual node would give, after a focus change and a theme change, and no node is made per restyle."""

from __future__ import annotations

import gc
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.color import Color
from textual.dom import DOMNode
from textual.widget import Widget

from hermes_tui.textual_compat import guard


class Parts(Widget, can_focus=True):
    COMPONENT_CLASSES: ClassVar[set[str]] = {"parts--a", "parts--b"}
    DEFAULT_CSS = """
    Parts > .parts--a { color: $primary; }
    Parts:focus > .parts--a { color: red; }
    Parts > .parts--b { background: $secondary; text-style: bold; }
    """


class PartsApp(App[None]):
    AUTO_FOCUS = None

    def compose(self) -> ComposeResult:
        yield Parts()


def _virtual_nodes() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is DOMNode)


async def test_restyled_components_follow_focus_and_theme_and_make_no_nodes() -> None:
    assert guard.active()
    app = PartsApp()
    async with app.run_test() as pilot:
        parts = app.query_one(Parts)
        await pilot.pause()
        primary = app.current_theme.primary
        assert Color.from_rich_color(parts.get_component_rich_style("parts--a").color) == Color.parse(primary)
        gc.collect()
        nodes = _virtual_nodes()

        parts.focus()
        await pilot.pause()
        assert Color.from_rich_color(parts.get_component_rich_style("parts--a").color) == Color.parse("red")

        parts.blur()
        await pilot.pause()
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await pilot.pause()
        theme = app.current_theme
        style_a = parts.get_component_rich_style("parts--a")
        style_b = parts.get_component_rich_style("parts--b")
        assert Color.from_rich_color(style_a.color) == Color.parse(theme.primary)
        assert Color.from_rich_color(style_b.bgcolor) == Color.parse(theme.secondary)
        assert style_b.bold
        assert _virtual_nodes() == nodes, "a restyle made new virtual nodes"

"""Restyle a widget's component classes in place instead of building new virtual nodes each time.

Textual 8.2.8 reads a component class's styles (`get_component_rich_style`) from a virtual `DOMNode`
made for it, and `Stylesheet._process_component_classes` makes a new one per component class every time
the widget is restyled: on mount, when the app gains or loses the terminal's focus, when a screen
resumes, on hover and focus changes, on a theme change. The transcript has ~70 component classes (every
entry's parts and the Markdown elements), so each restyle left ~70 nodes behind, a message pump each,
in reference cycles only a full collection frees. At startup four restyles came before the first frame's
`gc.freeze()`, which moved that garbage out of the collector's reach for good (measured in tmux: 263
extra `DOMNode`s, ~10,000 objects, +2.3 MB of RSS at rest, +3 MB at the peak of a short stream).

After the first time, `install()`'s replacement applies the stylesheet again to the virtual nodes the
widget already has (the rules are replaced, as for any node restyled) and refreshes the widget when a
component's rules changed, as Textual's own comparison does. The styles read are the same; no node is
made or dropped. Does nothing if the names are gone in another Textual.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MethodType
from typing import Any

from textual.css.styles import RenderStyles
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

from hermes_tui.textual_compat.hooks import wrap_once

__all__ = ["ReusedComponentNodes", "install", "restyle_components"]


def restyle_components(
    stylesheet: Stylesheet, node: DOMNode, original: Callable[[Stylesheet, DOMNode], None]
) -> None:
    """`_process_component_classes`: Textual's on a node's first pass, in place after it."""
    existing: dict[str, RenderStyles] = node._component_styles
    if not existing:
        original(stylesheet, node)
        return
    changed = False
    for styles in existing.values():
        virtual = styles.node
        if virtual is None:  # not made by the stylesheet: start again as Textual would
            original(stylesheet, node)
            return
        before = styles.base.get_rules()
        stylesheet.apply(virtual, animate=False)
        changed = changed or styles.base.get_rules() != before
    if changed:
        node.refresh()


class ReusedComponentNodes:
    """Stands in for the method on `Stylesheet` (binds like one: a descriptor)."""

    def __init__(self, original: Callable[[Stylesheet, DOMNode], None]) -> None:
        self.original = original

    def __get__(self, stylesheet: Stylesheet | None, owner: type | None = None) -> Any:
        if stylesheet is None:
            return self
        return MethodType(self._call, stylesheet)

    def _call(self, stylesheet: Stylesheet, node: DOMNode) -> None:
        restyle_components(stylesheet, node, self.original)


def install() -> bool:
    """True if the replacement is in place (idempotent)."""
    return wrap_once(Stylesheet, "_process_component_classes", ReusedComponentNodes)

"""The chat screen's compositor: Textual's, minus two rebuilds of its full map that a page of history paid
for every time, though the map they rebuilt was already up to date.

Textual's compositor keeps a map of every widget's place (the full map) and flags it stale when a scroll
lays out only the visible widgets, or when a widget outside the view asks to be repainted. Two of those
flags outlive the reason for them, and the next region lookup (any `widget.size`, any render) then
arranges every widget of the screen again:
- a full layout (`reflow`) builds the full map, but leaves the flag as it found it: after a scroll, the
  first lookup after the layout rebuilt the map it had just built (a page of history is a scroll to the top,
  then a layout);
- a repaint asked by a widget outside the visible map (an entry of the page mounted above the view) flags the
  map stale as if the widget were new to it; its place in the map is still right (places change only in a
  layout, which rebuilds the map), so only a widget missing from the map needs the rebuild.
Measured with `benchmarks/sessions_bench.py`'s store: two rebuilds a page, ~200 widgets arranged each.
"""

from __future__ import annotations

from typing import Any

from textual._compositor import Compositor, ReflowResult
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget

from hermes_tui.textual_compat.guard import active

__all__ = ["KeptMapCompositor", "keep_full_map"]


class KeptMapCompositor(Compositor):
    def reflow(self, parent: Widget, size: Size) -> ReflowResult:
        result = super().reflow(parent, size)
        self._full_map_invalidated = False  # the layout just arranged every widget: the map is new
        return result

    def update_widgets(self, widgets: set[Widget]) -> None:
        stale = self._full_map_invalidated or not widgets.issubset(self._full_map.keys())
        # Textual's own test (every widget visible, else stale) is skipped by a flag already set.
        self._full_map_invalidated = True
        super().update_widgets(widgets)
        self._full_map_invalidated = stale


def keep_full_map(screen: Screen[Any]) -> None:
    """Give `screen` the `KeptMapCompositor` (where the verified Textual is installed)."""
    if active():
        screen._compositor = KeptMapCompositor()

"""A widget without children that does not scroll: its size changes never need a second layout.

Textual sets `virtual_size` as a layout reactive in `_size_updated`, so every widget the layout sizes for the
first time (every entry of a page of history, each part of a tool panel) asks for a layout of the whole
screen right after the one that sized it. For a container that is needed (its virtual size decides its
scrollbars, and they its children's room); for a leaf, its virtual size is its content size, which the
layout that called this has just used. Measured on the sessions benchmark's 5,000-message session: two
layouts per page of history, 34 and 17 ms; the second one was this.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget


class LeafWidget(Widget):
    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        if not self._nodes and not self.is_scrollable:
            layout = False
        return super()._size_updated(size, virtual_size, container_size, layout)

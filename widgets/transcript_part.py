"""The base of what the transcript mounts by the hundred (its entries and their parts): a size change that
neither asks for a needless second layout nor looks the widget's own region up.

Textual's `Widget._size_updated` does both, and both cost a page of history dearly (the sessions
benchmark's 5,000-message session, per page of 50 entries):
- it sets `virtual_size` as a layout reactive, so every widget the layout sizes asks for a layout of the
  whole screen right after the one that sized it (34 ms, then 17 ms). A container that can scroll needs
  that (its virtual size decides its scrollbars, and they its children's room); for a leaf or a container
  whose overflow is hidden both ways, the virtual size decides nothing the layout that called this has not
  already used (and its repaint looks the region up, below). Skipped only for the entries of a page of
  history (`from_history_page`): at the bottom, while the view follows, that second layout is also what
  brings the anchored scroll offset up to the grown content (the compositor anchors with the virtual size
  of the layout before), which the order of a resize's renders relies on
  (`Transcript._estimate_out_of_view`, tests/ui/test_markdown_view.py);
- it marks the widget dirty with `_set_dirty()`, which asks the widget's size, so its region, so the
  compositor's map; a widget above the view (a page of history always is) is not in the visible map, so
  the full map is rebuilt, an arrangement of every widget, once after every layout. Here the dirty marking
  uses the size it was given (what the lookup would have returned: the region the layout just placed).
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget


class TranscriptPart(Widget):
    from_history_page: bool = False
    """Set by the transcript on the entries of a page of history it mounts above or below the view."""

    def _size_updated(
        self, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
    ) -> bool:
        if self._never_scrolls() and self._in_history_page():
            layout = False
        resized = size != self._size
        if resized:
            self._dirty_with(size)
            self._size = size  # Textual's own step below then leaves the dirty marking to this
        changed: bool = super()._size_updated(size, virtual_size, container_size, layout)
        return changed or resized

    def _in_history_page(self) -> bool:
        node: object = self
        while isinstance(node, TranscriptPart):
            if node.from_history_page:
                return True
            node = node._parent
        return False

    def _never_scrolls(self) -> bool:
        """No scrollbar can show (a leaf, or overflow hidden both ways): the virtual size decides nothing."""
        if not self._nodes and not self.is_scrollable:
            return True
        styles = self.styles
        hidden: bool = styles.overflow_x == "hidden" and styles.overflow_y == "hidden"
        return hidden

    def _dirty_with(self, size: Size) -> None:
        """`Widget._set_dirty()` (the whole widget) for a widget of outer size `size`."""
        gutter = self.styles.gutter
        content = Size(max(0, size.width - gutter.width), max(0, size.height - gutter.height))
        self._dirty_regions.clear()
        self._repaint_regions.clear()
        self._styles_cache.clear()
        self._styles_cache.set_dirty(content.region)
        self._dirty_regions.add(size.region)
        if size:
            self._repaint_regions.add(size.region)

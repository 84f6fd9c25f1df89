"""The base of what the transcript mounts by the hundred (its entries and their parts).

Plain Textual here. Textual's size step (`Widget._size_updated`) costs a page of history dearly (a second
layout of the whole screen per sized widget, and a region lookup that rebuilds the compositor's full map
for every widget above the view); `hermes_tui.textual_compat.quiet_resize` replaces it for these widgets
when the installed Textual is the verified one. What it needs to know of an entry is asked through the
methods below, which use public API only.
"""

from __future__ import annotations

from textual.widget import Widget


class TranscriptPart(Widget):
    from_history_page: bool = False
    """Set by the transcript on the entries of a page of history it mounts above or below the view."""

    def in_history_page(self) -> bool:
        """This part belongs to an entry of a page of history (its own flag, or an ancestor part's)."""
        node: object = self
        while isinstance(node, TranscriptPart):
            if node.from_history_page:
                return True
            node = node.parent
        return False

    def never_scrolls(self) -> bool:
        """No scrollbar can show (a leaf, or overflow hidden both ways): the virtual size decides nothing."""
        if not self.children and not self.is_scrollable:
            return True
        styles = self.styles
        hidden: bool = styles.overflow_x == "hidden" and styles.overflow_y == "hidden"
        return hidden

"""The widget-per-entry transcript's anchor and `layout: stream` listing, where Textual offers no public way.

- `Transcript.anchor_released`: whether the user scrolled away from the anchored bottom is Textual's
  `_anchor_released` (`is_anchored` stays True after the user scrolls away).
- `Transcript.follow_at_bottom`: anchored but released (follow again once the user reaches the bottom)
  without scrolling there, which `anchor()` always does.
- `Transcript.list_grown_entries`: `layout: stream` re-measures only the children listed for it in
  `Screen._layout_widgets` and reuses the cached placement of every one before the first listed. Textual
  8.2.8's `Screen._on_layout` lists an entry only if it is not already a key of that dict, and it becomes
  one as soon as one of its own children asks for a layout (a tool panel's body when it expands). So when a
  later entry changed in the same frame, the expanded panel kept its old height and its body was drawn over
  (docs/upstream/stream_layout_stale_height.md).

These go with the one-view transcript (issue 28).
"""

from __future__ import annotations

from textual.widget import Widget

__all__ = ["install"]


def _anchor_released(self: Widget) -> bool:
    return bool(self._anchor_released)


def _follow_at_bottom(self: Widget) -> None:
    self._anchored = True
    self._anchor_released = True


def _list_grown_entries(self: Widget) -> None:
    layout_widgets = self.screen._layout_widgets
    listed = layout_widgets.get(self)
    if listed is None:
        return
    for widget in layout_widgets:
        if widget.parent is self and isinstance(widget, Widget):
            listed.add(widget)


def install() -> bool:
    from widgets.transcript import Transcript

    Transcript.anchor_released = _anchor_released  # type: ignore[method-assign]
    Transcript.follow_at_bottom = _follow_at_bottom  # type: ignore[method-assign]
    Transcript.list_grown_entries = _list_grown_entries  # type: ignore[method-assign]
    return True

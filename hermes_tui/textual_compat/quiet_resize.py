"""Size changes of transcript entries without the second layout and the repaints Textual adds to them.

Textual 8.2.8's `Widget._size_updated` costs a widget-per-entry transcript dearly (the sessions benchmark's
5,000-message session, per page of 50 entries, and every line a streaming reply grows):
- it sets `virtual_size` as a layout reactive, so every widget the layout sizes asks for a layout of the
  whole screen right after the one that sized it (34 ms, then 17 ms a page). For a leaf, or a container
  whose overflow is hidden both ways, the virtual size decides nothing the calling layout has not used.
  Skipped only for the entries of a page of history (`TranscriptPart.from_history_page`): at the bottom,
  while the view follows, that second layout is what brings the anchored scroll offset up to the grown
  content;
- it marks the widget dirty with `_set_dirty()`, which asks the widget's region, so the compositor's map;
  a widget above the view is not in the visible map, so the full map was rebuilt once after every layout.
  Here the dirty marking uses the size it was given;
- for a line-API entry that only grew (`LineView`), it repaints every visible line a second time: here the
  painted lines are kept (every changed line was marked stale by `LineView.painted_stale`) and those far
  above the end are forgotten (`PAINTED_KEPT`);
- the transcript itself, whose own size stayed, asks for a second layout whenever an entry's height
  changed; the layout that called it already placed the entries and the anchor.

These go with the one-view transcript (issue 28): a single Line-API view has no per-entry sizes.
"""

from __future__ import annotations

from textual.geometry import Region, Size
from textual.widget import Widget

__all__ = ["install"]


def _dirty_with(widget: Widget, size: Size) -> None:
    """`Widget._set_dirty()` (the whole widget) for a widget of outer size `size`, without a region lookup."""
    gutter = widget.styles.gutter
    content = Size(max(0, size.width - gutter.width), max(0, size.height - gutter.height))
    widget._dirty_regions.clear()
    widget._repaint_regions.clear()
    widget._styles_cache.clear()
    widget._styles_cache.set_dirty(content.region)
    widget._dirty_regions.add(size.region)
    if size:
        widget._repaint_regions.add(size.region)


def _part_size_updated(
    self: Widget, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
) -> bool:
    from widgets.transcript_part import TranscriptPart

    assert isinstance(self, TranscriptPart)
    if self.never_scrolls() and self.in_history_page():
        layout = False
    resized = size != self._size
    if resized:
        _dirty_with(self, size)
        self._size = size  # Textual's own step below then leaves the dirty marking to this
    changed: bool = super(TranscriptPart, self)._size_updated(size, virtual_size, container_size, layout)
    return changed or resized


def _line_view_size_updated(
    self: Widget, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
) -> bool:
    """A height-only change (the entry grew): keep the lines already painted."""
    from widgets.markdown_view.view import LineView

    assert isinstance(self, LineView)
    gutter = self.styles.gutter
    if size.width != self._size.width or gutter.bottom or gutter.top or self.is_scrollable:
        return bool(super(LineView, self)._size_updated(size, virtual_size, container_size, layout))
    self._layout_cache.clear()
    if self._size == size and self.virtual_size == virtual_size and self._container_size == container_size:
        return False
    if self._size.height != size.height:
        _prune_painted(self, size.height, self.PAINTED_KEPT)
    self._size = size
    self.set_reactive(Widget.virtual_size, virtual_size)
    self._container_size = container_size
    return True


def _prune_painted(widget: Widget, height: int, kept: int) -> None:
    """Forget painted lines more than `kept` above the end; keep the rest for the next frame (the
    full-screen frame after each growth reuses what is in view: at 50 chunks/s that frame cost five
    times a partial one without them)."""
    painted = widget._styles_cache._cache  # Textual 8.2's line cache: a dict of y -> Strip
    if len(painted) > 2 * kept:
        first_kept = height - kept
        for y in [y for y in painted if y < first_kept]:
            del painted[y]


def _painted_stale(self: Widget, region: Region) -> None:
    """The painted copies of these lines are stale, whoever asked for the sync (a layout too)."""
    self._styles_cache.set_dirty(region)


def _transcript_size_updated(
    self: Widget, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
) -> bool:
    """Content grew or shrank while the transcript's own size stayed: no second layout."""
    from widgets.transcript import Transcript

    assert isinstance(self, Transcript)
    if size == self._size and container_size == self._container_size:
        layout = False
    return bool(super(Transcript, self)._size_updated(size, virtual_size, container_size, layout))


def install() -> bool:
    from widgets.markdown_view.view import LineView
    from widgets.transcript import Transcript
    from widgets.transcript_part import TranscriptPart

    TranscriptPart._size_updated = _part_size_updated  # type: ignore[method-assign]
    LineView._size_updated = _line_view_size_updated  # type: ignore[method-assign]
    LineView.painted_stale = _painted_stale  # type: ignore[method-assign]
    Transcript._size_updated = _transcript_size_updated  # type: ignore[method-assign]
    return True

"""The transcript's keyboard cursor: which entry it is on, where it goes on Up/Down, where it is drawn.

Tab into the transcript shows a cursor over its entries (as `OptionList` shows one over its options): it
visits the entries that open and close or have text to copy, starts on the last of them in view, and
moves the view to keep the entry it is on in sight. Shown only while the transcript has the focus.
"""

from __future__ import annotations

from typing import Protocol

from widgets.transcript.entries.base import Entry
from widgets.transcript.model import TranscriptModel

__all__ = ["CursorHost", "EntryCursor"]


class CursorHost(Protocol):
    """The view, as the cursor needs it."""

    @property
    def has_focus(self) -> bool: ...

    @property
    def scroll_y(self) -> float: ...

    @property
    def rows(self) -> int:
        """Rows of the view that show the canvas."""
        ...

    def refresh_lines(self, y_start: int, line_count: int = 1) -> None: ...

    def scroll_to_entry(self, entry: Entry) -> None: ...

    def page(self, direction: int) -> None: ...


class EntryCursor:
    """The cursor's place (`index`) among `model`'s entries, shown by `host`."""

    def __init__(self, host: CursorHost, model: TranscriptModel) -> None:
        self._host = host
        self._model = model
        self.index: int | None = None

    @property
    def entry(self) -> Entry | None:
        """The entry under the cursor (while the view has the focus): the last one in view that opens or
        can be copied, until the user moves it."""
        model = self._model
        if self.index is None or not 0 <= self.index < len(model):
            candidates = model.selectable()
            self.index = self._last_in_view(candidates) if candidates and self._host.has_focus else None
        return None if self.index is None else model[self.index]

    def move_to(self, index: int | None) -> None:
        old, self.index = self.index, index
        for position in {old, index}:
            if position is not None and 0 <= position < len(self._model):
                heights = self._model.heights
                self._host.refresh_lines(heights.offset(position), heights.height(position))
        if index is not None:
            self._host.scroll_to_entry(self._model[index])

    def select(self, entry: Entry) -> None:
        index = self._model.position(entry)
        if index is not None:
            self.move_to(index)

    def step(self, direction: int) -> None:
        """Up (-1) or Down (1) to the previous or next entry it visits (a page when none is)."""
        candidates = self._model.selectable()
        if not candidates:
            self._host.page(direction)
            return
        if self.entry is None or self.index is None:
            return
        current = self.index
        if direction < 0:
            earlier = [i for i in candidates if i < current]
            self.move_to(earlier[-1] if earlier else current)
        else:
            later = [i for i in candidates if i > current]
            self.move_to(later[0] if later else current)

    def inserted(self, position: int) -> None:
        """An entry was put at `position` (before the end): the cursor stays on its entry."""
        if self.index is not None and self.index >= position:
            self.index += 1

    def removed(self, position: int) -> None:
        """The entry at `position` was taken out."""
        if self.index is not None and self.index >= position:
            self.index = max(0, self.index - 1) if len(self._model) else None

    def shown_at(self, canvas_y: int) -> bool:
        """The cursor's highlight is on this canvas line."""
        model, index = self._model, self.index
        if not self._host.has_focus or index is None or not 0 <= index < len(model):
            return False
        top = model.heights.offset(index)
        return top <= canvas_y < top + model.heights.height(index)

    def _last_in_view(self, candidates: list[int]) -> int:
        bottom = self._host.scroll_y + self._host.rows
        shown = [i for i in candidates if self._model.heights.offset(i) < bottom]
        return shown[-1] if shown else candidates[0]

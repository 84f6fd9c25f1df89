"""The moment a frame is on the terminal, not merely laid out (`hermes_tui.first_frame` waits for it).

Textual gives no public signal for it: `call_after_refresh` runs inside its startup batch, before anything
is drawn (a screen's idle handler runs its after-refresh callbacks at once while a batch is held), and
`App._display` drops a frame while `_batch_count` is non-zero. `FrameSignal.frame_displayed` is called
after each `_display` that was not dropped. On an unverified Textual it is called after the first refresh
instead (as Textual's own `call_after_refresh` would: a little early during startup, never missing).
"""

from __future__ import annotations

from typing import TypeVar

from rich.console import RenderableType
from textual.app import App
from textual.screen import Screen

from hermes_tui.textual_compat.guard import active

__all__ = ["FrameSignal"]

ReturnType = TypeVar("ReturnType")


class FrameSignal(App[ReturnType]):
    """An app told when each frame was displayed (`frame_displayed`)."""

    def frame_displayed(self) -> None:
        """A frame was written (headless: the same call marks the moment)."""

    def _display(self, screen: Screen[object], renderable: RenderableType | None) -> None:
        super()._display(screen, renderable)
        if renderable is not None and not self._batch_count and active():
            self.frame_displayed()

    def on_mount(self) -> None:
        if not active():
            self.call_after_refresh(self.frame_displayed)

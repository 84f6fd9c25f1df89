"""What the configuration says about the chat's look, applied once when it opens: the status bar's flags
(YOLO, the reasoning level) and the transcript's options (diffs open, reasoning shown). Before a resumed
session is loaded, so its entries follow them too."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.api import Settings
    from widgets.status_bar import StatusBar
    from widgets.transcript import Transcript

__all__ = ["apply_display_settings"]


def apply_display_settings(settings: Settings, status_bar: StatusBar, transcript: Transcript) -> None:
    status_bar.set_yolo(settings.yolo)
    from agent.api import reasoning_shown

    status_bar.set_reasoning(reasoning_shown(settings))
    transcript.show_reasoning = settings.show_reasoning
    transcript.expand_diffs = settings.expand_diffs

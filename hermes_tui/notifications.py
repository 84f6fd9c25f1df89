"""Getting the user's attention when something needs them and the terminal is not focused.

`settings.notify` chooses how: `bell` (the terminal's bell, which most terminals turn into an urgency hint
or a dock bounce), `desktop` (a `notify-send` notification, falling back to the bell where there is none),
or `off`. Nothing happens while the terminal has the focus: the user is already looking.
"""

from __future__ import annotations

import shutil
import subprocess

from textual.app import App

__all__ = ["request_attention"]


def request_attention(app: App[object], mode: str, why: str) -> None:
    """Ring or notify with `why` (one short sentence) when `app`'s terminal is unfocused."""
    if mode == "off" or app.app_focus:
        return
    if mode == "desktop" and _desktop_notification(why):
        return
    app.bell()


def _desktop_notification(why: str) -> bool:
    """Show `why` through `notify-send`; False when there is no notification service to ask."""
    if shutil.which("notify-send") is None:
        return False
    try:
        subprocess.Popen(
            ["notify-send", "hermes-tui", why], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    except OSError:
        return False
    return True

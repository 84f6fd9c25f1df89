"""The session browser, by job: `screen` (the screen and its actions), `search` (a search computed page
by page in a thread), `rows` (what a row looks like), `preview` (the preview pane), `widgets` (the search
field and the list). Its dialogs are the app's shared ones (`hermes_tui/screens/modals.py`)."""

from __future__ import annotations

from hermes_tui.screens.export_prompt import ExportPathModal
from hermes_tui.screens.sessions.rows import SessionRow, display_status, snippet_text
from hermes_tui.screens.sessions.screen import SessionsResult, SessionsScreen

__all__ = [
    "ExportPathModal",
    "SessionRow",
    "SessionsResult",
    "SessionsScreen",
    "display_status",
    "snippet_text",
]

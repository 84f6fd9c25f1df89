"""The keys `/help` lists that are not commands (typing, the turn, the screens), grouped for users."""

from __future__ import annotations

__all__ = ["KEY_GROUPS"]

KEY_GROUPS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Prompt",
        (
            ("Enter", "send (queued while the agent works)"),
            ("Shift+Enter", "newline (also Ctrl+J, Alt+Enter)"),
            ("Up / Down", "history (Up on an empty prompt: last queued first)"),
            ("Ctrl+R", "with text typed: the earlier prompts that contain it (again: older)"),
            ("Shift+Tab", "permission mode: default → ask → plan (→ yolo once chosen); /mode lists them"),
            ("Alt+Up", "to the queue: e edit, x remove, s steer now"),
            ("Tab", "complete a / command"),
            (
                "!command",
                "run it in your own shell, always on this machine (not in terminal.backend's container "
                "or host); its output goes with your next message",
            ),
            ("Ctrl+O", "expand a [Pasted #N] token into editable text"),
            ("Backspace", "on a paste token: delete it whole (Ctrl+Z undoes)"),
            ("Ctrl+Z / Ctrl+Y", "undo / redo while the prompt holds text"),
            ("Ctrl+G", "edit the prompt in $EDITOR (pastes in full)"),
            ("Ctrl+U", "clear the line before the cursor"),
        ),
    ),
    (
        "The turn",
        (
            ("Esc", "interrupt the running turn"),
            ("Esc Esc", "on an empty prompt at rest: rewind to before one of your messages (/rewind)"),
            ("Ctrl+C", "interrupt, else clear the prompt; twice to quit"),
            ("Ctrl+O", "expand/collapse the tool panel under the cursor, else the latest one"),
            ("Ctrl+T", "expand/collapse every tool panel of the last turn"),
            ("PageUp / PageDown", "scroll the transcript (the prompt keeps the focus)"),
            ("Ctrl+Home / Ctrl+End", "jump to the first message / the latest output"),
            ("Drag, then Ctrl+C", "copy the text selected with the mouse"),
            (
                "Tab, then Up / Down",
                "walk the transcript's tool calls and reasoning; Enter or Space opens one",
            ),
            ("y", "with the transcript's cursor on an entry (Tab): copy it whole"),
        ),
    ),
    (
        "Screens",
        (
            ("Ctrl+R", "sessions: browse, search, resume (on an empty prompt)"),
            ("Ctrl+P", "command palette"),
            ("Ctrl+Z", "suspend (empty prompt or outside it); fg resumes"),
            ("F1", "this help"),
            ("Ctrl+Q", "quit"),
        ),
    ),
)
"""The keys `/help` lists, grouped; the one place they are written down for users."""

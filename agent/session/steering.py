"""What the user sends while a turn works (Claude Code's and Codex's steering): held until the turn's next
safe point (after a tool batch, appended to the last tool result), never a new user message. The UI
thread adds, the turn's thread takes: one lock between them."""

from __future__ import annotations

import threading

from agent.core.messages import strip_surrogates

__all__ = ["SteerBox"]


class SteerBox:
    """One session's undelivered steering, in the order it was sent."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[str] = []

    def add(self, text: str) -> None:
        """Blank text is nothing to deliver."""
        text = strip_surrogates(text.strip())
        if text:
            with self._lock:
                self._pending.append(text)

    def take(self) -> str:
        """Everything pending, one message a line ("" when nothing), and the box emptied."""
        with self._lock:
            text = "\n".join(self._pending)
            self._pending.clear()
        return text

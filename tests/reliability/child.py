"""A turn to kill: runs one agent turn against the parent's scripted server and reports, on stdout, every
write the store committed (`saved <row id> <chars>`) and every text delta (`text <chars> <monotonic>`), so
the parent can tell after a kill -9 what was durable and how much streamed text the file lacks.

Usage: child.py HERMES_HOME CWD BASE_URL API
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from pydantic import SecretStr

from agent.config.settings import Settings
from agent.core.events import AgentEvent, TextDelta, ToolStarted
from agent.core.messages import Message
from agent.core.ui import NullUI
from agent.session.session import Session
from agent.store import SessionStore


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class ReportingStore(SessionStore):
    """The real store; after each committed write it says which row now holds how much text."""

    def append_message(self, session_id: str, message: Message) -> int:
        row = super().append_message(session_id, message)
        _say(f"saved {row} {len(message.content)} {int(message.partial)}")
        return row

    def update_message(self, message: Message) -> None:
        super().update_message(message)
        _say(f"saved {message.id} {len(message.content)} 0")

    def checkpoint_partial(self, message_id: int, content: str, reasoning: str | None) -> None:
        super().checkpoint_partial(message_id, content, reasoning)
        _say(f"checkpoint {message_id} {len(content)}")


class ReportingUI(NullUI):
    def __init__(self) -> None:
        self.chars = 0

    def on_event(self, event: AgentEvent) -> None:
        if isinstance(event, TextDelta):
            self.chars += len(event.text)
            _say(f"text {self.chars} {time.monotonic():.4f}")
        elif isinstance(event, ToolStarted):
            self.chars = 0
            _say(f"tool {event.name}")


if __name__ == "__main__":
    home, cwd, base_url, api = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    settings = Settings()
    for name, value in {
        "provider": "anthropic" if api == "anthropic" else "custom",
        "base_url": base_url,
        "model": "scripted",
        "api_key": SecretStr("test-key"),
        "auto_title": False,
        "hermes_home": home,
        "cwd": cwd,
        "yolo": True,
        "max_retries": 0,
    }.items():
        setattr(settings, name, value)
    store = ReportingStore(home / "tui" / "state.db")
    agent = Session(settings, ui=ReportingUI(), store=store)
    _say("started")
    agent.run_conversation("work until killed")
    _say("finished")

"""Child process for the kill -9 test: runs one turn against a slow scripted stream, forever streaming."""

from __future__ import annotations

import sys
from pathlib import Path

from agent.core.ui import NullUI
from agent.session.session import Session
from agent.store import SessionStore
from scripted import ScriptedServer, scripted_settings

if __name__ == "__main__":
    home, cwd = Path(sys.argv[1]), Path(sys.argv[2])
    slow = {"name": "slow", "calls": [{"text": "tick " * 5000, "chunk_size": 5, "delay": 0.01}]}
    with ScriptedServer(slow) as server:
        settings = scripted_settings(server, model="scripted", hermes_home=home, cwd=cwd)
        store = SessionStore(home / "tui" / "state.db")
        agent = Session(settings, ui=NullUI(), store=store)
        print("started", flush=True)
        agent.run_conversation("stream until killed")

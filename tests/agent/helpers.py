"""Builders shared by the agent tests: settings pointed at a scripted server, an agent with a store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import SecretStr

from agent.config import Settings
from agent.loop import Agent
from agent.store import SessionStore
from agent.ui import RecordingUI


def make_settings(server: Any, home: Path, cwd: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "model": "scripted",
        "provider": "custom",
        "base_url": server.openai_base_url,
        "api_key": SecretStr("test-key"),
        "hermes_home": home,
        "cwd": cwd,
        "max_retries": 0,
    }
    values.update(overrides)
    return Settings(**values)


def make_agent(server: Any, home: Path, cwd: Path, ui: RecordingUI | None = None, **overrides: Any) -> tuple[Agent, SessionStore, RecordingUI]:
    store = SessionStore(home / "tui" / "state.db")
    ui = ui or RecordingUI()
    agent = Agent(make_settings(server, home, cwd, **overrides), ui=ui, store=store)
    return agent, store, ui

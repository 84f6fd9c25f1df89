"""Builders shared by the agent tests: settings pointed at a scripted server, an agent with a store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import SecretStr

from agent.config.settings import Settings
from agent.core.events import StatusNotice, TurnFinished
from agent.session.session import Session
from agent.store import SessionStore
from scripted import ScriptedServer, scripted_settings
from tests.recording_ui import RecordingUI


def make_settings(server: ScriptedServer, home: Path, cwd: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "model": "scripted",
        "api_key": SecretStr("test-key"),
        "hermes_home": home,
        "cwd": cwd,
        "max_retries": 0,
        **overrides,
    }
    return scripted_settings(server, **values)


def make_agent(
    server: ScriptedServer, home: Path, cwd: Path, ui: RecordingUI | None = None, **overrides: Any
) -> tuple[Session, SessionStore, RecordingUI]:
    store = SessionStore(home / "tui" / "state.db")
    ui = ui or RecordingUI()
    agent = Session(make_settings(server, home, cwd, **overrides), ui=ui, store=store)
    return agent, store, ui


API_PARAMS = ["openai", "anthropic"]


def api_overrides(server: ScriptedServer, api: str) -> dict[str, Any]:
    """`make_agent` keywords for one wire API (`scripted_settings` picks the server's URL for it)."""
    if api == "anthropic":
        return {"api": "anthropic", "model": "claude-test"}
    return {}


def system_text(body: dict[str, Any], api: str) -> str:
    if api == "anthropic":
        return "".join(b["text"] for b in body.get("system", []))
    first = body["messages"][0]
    assert first["role"] == "system"
    return first["content"]


def tool_results(body: dict[str, Any], api: str) -> list[tuple[str, str]]:
    """(call id, content) of every tool result in a request, in order."""
    if api == "anthropic":
        out = []
        for m in body["messages"]:
            if isinstance(m["content"], list):
                out += [
                    (b["tool_use_id"], b["content"]) for b in m["content"] if b.get("type") == "tool_result"
                ]
        return out
    return [(m["tool_call_id"], m["content"]) for m in body["messages"] if m["role"] == "tool"]


def last_user_text(body: dict[str, Any], api: str) -> str:
    last = [m for m in body["messages"] if m["role"] == "user"][-1]
    if isinstance(last["content"], str):
        return last["content"]
    return "".join(b.get("text", "") for b in last["content"] if b.get("type") == "text")


def has_tools(body: dict[str, Any]) -> bool:
    return bool(body.get("tools"))


def error_lines(ui: RecordingUI) -> list[str]:
    """Every error line the user would see: error notices and the turn's closing error, in order."""
    lines = []
    for event in ui.events:
        if isinstance(event, StatusNotice) and event.kind == "error":
            lines.append(event.text)
        elif isinstance(event, TurnFinished) and event.error:
            lines.append(event.error)
    return lines


def install_distribution(site: Path, name: str, entry_points: dict[str, dict[str, str]]) -> Path:
    """A distribution installed as pip would leave it: a `<name>-1.0.dist-info` with its entry points in
    `site`, which the caller puts on `sys.path` (`monkeypatch.syspath_prepend`). The plugin discovery reads
    it through `importlib.metadata` like any installed package."""
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8")
    sections = (
        f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in points.items())
        for group, points in entry_points.items()
    )
    (info / "entry_points.txt").write_text("\n".join(sections), encoding="utf-8")
    return info

"""Pointing the agent at a scripted server: the demo scenario and the settings that reach it.

One builder for everything that talks to `ScriptedServer` through the real SDKs (`--demo`, `-z --demo`,
the tests, screenshots, benchmarks), so a setting every one of them needs (no title call the scenario did
not script, a key the SDK accepts) is added once.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import SecretStr

from agent.config.settings import Settings

if TYPE_CHECKING:
    from scripted.server import ScriptedServer

DEMO_MODEL = "hermes-demo"
DEMO_API_KEY = "demo"  # the SDKs refuse an empty key; the scripted server ignores it


def demo_scenario_path() -> Path:
    """The scenario `hermes-tui --demo` plays (shipped as package data)."""
    return Path(__file__).resolve().parent / "scenarios" / "demo.yaml"


def scripted_settings(
    server: ScriptedServer,
    base: Settings | None = None,
    *,
    api: Literal["openai", "anthropic"] = "openai",
    **overrides: Any,
) -> Settings:
    """`base` (default: fresh `Settings()`) aimed at `server`: its URL for `api`, the demo model and key,
    and no automatic title (the scenario plays its calls in order, and would answer an unscripted title
    request with the next reply). `overrides` set any other field, validated like the config file's.
    """
    values: dict[str, Any] = {
        "provider": "anthropic" if api == "anthropic" else "custom",
        "base_url": server.anthropic_base_url if api == "anthropic" else server.openai_base_url,
        "model": DEMO_MODEL,
        "api_key": SecretStr(DEMO_API_KEY),
        "auto_title": False,
        **overrides,
    }
    settings = base.model_copy() if base is not None else Settings()
    for name, value in values.items():
        setattr(settings, name, value)  # validate_assignment checks each value
    return settings

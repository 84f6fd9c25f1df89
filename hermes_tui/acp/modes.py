"""What an editor's mode selector and model picker show, and what choosing in them does to the session.

Modes are the engine's permission modes. Today the engine has two: `default` (risky commands ask) and
`yolo` (they run; hard-blocked ones stay blocked). `MODES` and `apply_mode` are the one mapping: a new
engine mode is one row and one branch here. The model picker is the config option `model` (category
"model"), the provider's listed models (`GET /models`, cached a day), choosing one is `/model NAME`.
"""

from __future__ import annotations

from dataclasses import dataclass

from acp.schema import (
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

from agent.api import Agent


@dataclass(frozen=True)
class Mode:
    id: str
    name: str
    description: str


MODES = (
    Mode("default", "Default", "Risky commands ask for approval"),
    Mode("yolo", "YOLO", "Risky commands run without asking (hard-blocked ones stay blocked)"),
)
MODEL_OPTION = "model"


def current_mode(session: Agent) -> str:
    return "yolo" if session.yolo else "default"


def mode_state(session: Agent) -> SessionModeState:
    return SessionModeState(
        current_mode_id=current_mode(session),
        available_modes=[SessionMode(id=m.id, name=m.name, description=m.description) for m in MODES],
    )


def apply_mode(session: Agent, mode_id: str) -> None:
    """Put the session in `mode_id`; KeyError for a mode that does not exist."""
    if mode_id not in {m.id for m in MODES}:
        raise KeyError(mode_id)
    session.set_yolo(mode_id == "yolo")


def model_option(current: str, listed: list[str]) -> SessionConfigOptionSelect:
    names = list(dict.fromkeys([current, *listed])) if current else list(dict.fromkeys(listed))
    return SessionConfigOptionSelect(
        id=MODEL_OPTION,
        name="Model",
        description="The model of the next turn (/model)",
        category="model",
        type="select",
        current_value=current,
        options=[SessionConfigSelectOption(value=name, name=name) for name in names],
    )

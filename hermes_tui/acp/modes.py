"""What an editor's mode selector and model picker show, and what choosing in them does to the session.

Modes are the engine's permission modes (`PermissionMode`: default, ask, plan, yolo; what each lets the
agent do is `agent.approval.modes`): the editor lists them all, `session/set_mode` sets one on the session
(stored with it, so `-r`/`session/load` find it again), and any name the engine reads is taken (Claude
Code's `bypassPermissions` too). The model picker is the config option `model` (category "model"), the
provider's listed models (`GET /models`, cached a day); choosing one is `/model NAME`.
"""

from __future__ import annotations

from acp.schema import (
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionMode,
    SessionModeState,
)

from agent.api import Agent, PermissionMode, UnknownMode, parse_mode

MODE_LABELS = {
    PermissionMode.DEFAULT: "Default",
    PermissionMode.ASK: "Ask",
    PermissionMode.PLAN: "Plan",
    PermissionMode.YOLO: "YOLO",
}
MODEL_OPTION = "model"


def current_mode(session: Agent) -> str:
    return session.permission_mode.value


def mode_state(session: Agent) -> SessionModeState:
    return SessionModeState(
        current_mode_id=current_mode(session),
        available_modes=[
            SessionMode(id=mode.value, name=MODE_LABELS[mode], description=mode.describe)
            for mode in PermissionMode
        ],
    )


def apply_mode(session: Agent, mode_id: str) -> None:
    """Put the session in `mode_id` (from its next tool call on); KeyError for a mode that does not exist."""
    try:
        session.permission_mode = parse_mode(mode_id)
    except UnknownMode:
        raise KeyError(mode_id) from None


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

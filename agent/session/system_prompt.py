"""A session's system prompt, from what the session is made of: its settings, the tools its toolsets
offer now, its skills and where its tools run. Built once per session and kept byte for byte (provider
prompt caches keep hitting); `/context` measures it before the first message without opening anything."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.config.settings import Settings
from agent.environments.factory import sandbox_prompt_line
from agent.prompts.sources import session_prompt_parts
from agent.prompts.system import build_system_prompt

if TYPE_CHECKING:
    from agent.environments import Environment
    from agent.skills.library import SkillLibrary
    from agent.toolkit.toolsets import SessionToolsets

__all__ = ["session_system_prompt"]


def session_system_prompt(
    settings: Settings, toolsets: SessionToolsets, skills: SkillLibrary, environment: Environment | None
) -> str:
    """`environment`: the opened one (a turn opens it first), None before: the configured backend's label
    is said then ("" for local, sandboxed or not: that is the `sandbox` line's)."""
    tools = toolsets.active_tools()
    runs_in = settings.terminal.label()
    if environment is not None and not environment.is_local:
        runs_in = environment.label
    return build_system_prompt(
        cwd=settings.cwd,
        runs_in=runs_in,
        tools_cwd=environment.cwd if environment is not None else None,
        sandbox=sandbox_prompt_line(settings),
        tools=[(t.name, t.description) for t in tools],
        model=settings.model,
        **session_prompt_parts(settings, {t.name for t in tools}, skills, toolsets.active_instructions()),
    )

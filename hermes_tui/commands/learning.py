"""`/skills`, skills as `/name` messages in the prompt, and the todo list a resumed session left off with."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_tui.commands.base import CommandContext, SlashCommand

if TYPE_CHECKING:
    from agent.api import Agent
    from widgets.transcript.record import TranscriptRecord

__all__ = ["SKILLS", "refresh_skill_commands", "resumed_todo_records", "skill_commands"]


def skill_commands(agent: Agent | None, reserved: frozenset[str]) -> dict[str, str]:
    """Slash command -> description of every enabled skill (a built-in command's name is never taken)."""
    if agent is None:
        return {}
    try:
        found = agent.skill_commands(reserved)
    except OSError:
        return {}
    return {slug: skill.description or f"Use the {skill.name} skill" for slug, skill in found.items()}


def refresh_skill_commands(ctx: CommandContext) -> None:
    """Skills become `/name` completions in the prompt. The folders are read in a thread (a real Hermes home
    holds a hundred skills or more), then the registry changes on the UI thread."""
    agent = ctx.session.agent
    reserved = ctx.registry.reserved_names()

    def apply(found: dict[str, str]) -> None:
        if ctx.session.agent is agent:
            ctx.registry.set_skills(found)
            ctx.refresh_completions()

    ctx.in_thread(
        lambda: ctx.from_thread(apply, skill_commands(agent, reserved)),
        group="skill-commands",
        exclusive=True,
    )


def resumed_todo_records(agent: Agent) -> list[TranscriptRecord]:
    """A todo panel at the end of a resumed transcript showing the list the session left off with."""
    items = agent.todos()
    if not items:
        return []
    from agent.api import render_todos  # the engine's modules load with the agent, not the screen
    from widgets.transcript.record import TranscriptRecord

    return [
        TranscriptRecord.tool_call(
            "todo",
            summary="the task list this session left off with",
            status="ok",
            result=render_todos(items),
            data={"todos": items},
            call_id="resumed-todos",
        )
    ]


def open_skills(ctx: CommandContext, _arg: str) -> None:
    from hermes_tui.screens.skills import SkillsScreen

    agent = ctx.session.agent

    def closed(changed: Any) -> None:
        if changed:
            ctx.session.update_settings(skills_disabled=ctx.session.agent.disabled_skills())
            refresh_skill_commands(ctx)
            ctx.transcript.add_notice(
                "info",
                "Skills switched: their tools and slash commands follow now; the system prompt's "
                "skills index follows in a new session.",
            )
        ctx.focus_prompt()

    ctx.push_screen(SkillsScreen(agent.skills), closed)


SKILLS = SlashCommand("skills", "Browse, read, enable and disable skills", open_skills)

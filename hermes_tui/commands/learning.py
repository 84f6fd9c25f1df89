"""`/skills`, skills as `/name` messages in the prompt, and the todo list a resumed session left off with."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hermes_tui.commands.base import CommandContext, SlashCommand

if TYPE_CHECKING:
    from agent.api import Agent
    from widgets.transcript.record import TranscriptRecord

__all__ = ["SKILLS", "refresh_skill_commands", "resumed_todo_records", "skill_commands", "skill_or_unknown"]


def skill_commands(agent: Agent | None, reserved: frozenset[str]) -> dict[str, str]:
    """Slash command -> description of every enabled skill (a built-in command's name is never taken)."""
    if agent is None:
        return {}
    try:
        found = agent.skill_commands(reserved)
    except OSError:
        return {}
    return {slug: skill.description or f"Use the {skill.name} skill" for slug, skill in found.items()}


def refresh_skill_commands(ctx: CommandContext, then: Callable[[], None] | None = None) -> None:
    """Skills become `/name` completions in the prompt. The folders are read in a thread (a real Hermes home
    holds a hundred skills or more), then the registry changes on the UI thread and `then` runs. Read again
    whenever skills may have changed while the app runs (after a turn: the agent's `skill_manage`; when
    `/skills` opens or closes; before `/name` is called unknown): a skill added meanwhile is a command, a
    removed one is not."""
    agent = ctx.session.agent
    reserved = ctx.registry.reserved_names()

    def apply(found: dict[str, str]) -> None:
        if ctx.session.agent is agent:
            ctx.registry.set_skills(found)
            ctx.refresh_completions()
        if then is not None:
            then()

    ctx.in_thread(
        lambda: ctx.from_thread(apply, skill_commands(agent, reserved)),
        # A read someone waits for (`then`) is in a group of its own: a later refresh never cancels it.
        group="skill-commands" if then is None else "skill-lookup",
        exclusive=then is None,
    )


def skill_or_unknown(ctx: CommandContext, text: str, typed: str, send: Callable[[str], object]) -> None:
    """`/typed` names no command or known skill: the skills are read again first (one added since the
    last read is sent as a skill), else the line says it is unknown with the closest names."""

    def decide() -> None:
        if typed in ctx.registry.skills:
            send(text)
        else:
            ctx.transcript.add_notice("warn", ctx.registry.unknown(typed))

    refresh_skill_commands(ctx, then=decide)


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

    refresh_skill_commands(ctx)  # what the screen lists (a skill added since) is what `/name` runs

    def closed(changed: Any) -> None:
        refresh_skill_commands(ctx)
        if changed:
            ctx.session.update_settings(skills_disabled=ctx.session.agent.disabled_skills())
            ctx.transcript.add_notice(
                "info",
                "Skills switched: their tools and slash commands follow now; the system prompt's "
                "skills index follows in a new session.",
            )
        ctx.focus_prompt()

    ctx.push_screen(SkillsScreen(agent.skills), closed)


SKILLS = SlashCommand("skills", "Browse, read, enable and disable skills", open_skills)

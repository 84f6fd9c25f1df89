"""The chat screen's `/skills`, `/tools` and `/personality`, skill slash commands and resumed todos.

Kept out of `screens/chat.py` so the chat screen only has thin actions that call these. Everything here runs
on the UI thread and asks the session's agent (`skill_commands`, `disabled_skills`, `todos`), hands its
`skills` and `toolsets` services to their screens, and sets its `ephemeral_prompt`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from textual.app import App

from agent.api import Settings
from hermes_tui import commands
from hermes_tui.session_service import SessionService
from widgets.prompt_input import PromptInput
from widgets.transcript import Transcript, TranscriptRecord

if TYPE_CHECKING:
    from agent.api import Agent


class ChatScreenParts(Protocol):
    """The parts of the chat screen these actions use (the screen imports this module, not the reverse)."""

    session: SessionService
    skill_commands: dict[str, str]
    plugin_commands: dict[str, str]

    @property
    def app(self) -> App[object]: ...

    @property
    def is_mounted(self) -> bool: ...

    @property
    def agent(self) -> Agent: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def transcript(self) -> Transcript: ...

    @property
    def prompt_input(self) -> PromptInput: ...


def skill_commands(agent: Any) -> dict[str, str]:
    """Slash command -> description of every enabled skill (a built-in command's name is never taken)."""
    if agent is None:
        return {}
    try:
        found = agent.skill_commands(commands.reserved_names())
    except OSError:
        return {}
    return {slug: skill.description or f"Use the {skill.name} skill" for slug, skill in found.items()}


def refresh_skill_commands(screen: ChatScreenParts) -> None:
    """Skills become `/name` commands in the prompt's completion. The folders are read in a thread (a real
    Hermes home holds a hundred skills or more), then the completions change on the UI thread."""
    agent = screen.agent

    def scan() -> None:
        found = skill_commands(agent)
        try:
            screen.app.call_from_thread(apply, found)
        except RuntimeError:  # the app is closing
            pass

    def apply(found: dict[str, str]) -> None:
        if screen.agent is agent and screen.is_mounted:
            screen.skill_commands = found
            screen.prompt_input.set_commands(commands.completions(found, screen.plugin_commands))

    screen.app.run_worker(scan, thread=True, group="skill-commands", exclusive=True, exit_on_error=False)


def resumed_todo_records(agent: Any) -> list[TranscriptRecord]:
    """A todo panel at the end of a resumed transcript showing the list the session left off with."""
    items = agent.todos() if agent is not None else []
    if not items:
        return []
    from agent.api import render_todos  # the engine's modules load with the agent, not the screen

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


def open_tools(screen: ChatScreenParts) -> None:
    from hermes_tui.screens.tools import ToolsScreen

    def closed(changed: Any) -> None:
        if changed:
            switched = ", ".join(f"{s.name} {'on' if s.enabled else 'off'}" for s in changed)
            screen.transcript.add_notice(
                "info",
                f"Tools for this session: {switched}, from the next request. The system prompt keeps "
                "the tool list this session started with (prompt caching); a new session lists the "
                "current tools.",
            )
        screen.prompt_input.focus()

    screen.app.push_screen(ToolsScreen(screen.agent.toolsets), closed)


def open_skills(screen: ChatScreenParts) -> None:
    from hermes_tui.screens.skills import SkillsScreen

    def closed(changed: Any) -> None:
        if changed:
            screen.session.update_settings(skills_disabled=screen.agent.disabled_skills())
            refresh_skill_commands(screen)
            screen.transcript.add_notice(
                "info",
                "Skills switched: their tools and slash commands follow now; the system prompt's "
                "skills index follows in a new session.",
            )
        screen.prompt_input.focus()

    screen.app.push_screen(SkillsScreen(screen.agent.skills), closed)


def set_personality(screen: ChatScreenParts, argument: str) -> None:
    """`/personality` opens a picker; `/personality NAME|TEXT` sets the ephemeral prompt until quit; `none`
    clears it."""
    from agent.api import choose_personality as choose
    from agent.api import current_personality as current_name
    from agent.api import personalities

    agent = screen.agent
    table = personalities(screen.settings.personalities)
    if not argument.strip():
        from hermes_tui.screens.personality import PersonalityPicker

        def chosen(name: str | None) -> None:
            if name:
                set_personality(screen, name)
            screen.prompt_input.focus()

        screen.app.push_screen(
            PersonalityPicker(table, active=current_name(agent.ephemeral_prompt, table)), chosen
        )
        return
    choice = choose(argument, table)
    agent.ephemeral_prompt = choice.text
    screen.session.update_settings(ephemeral_system_prompt=choice.text)
    where = "from the next request, for the rest of this run (agent.system_prompt in config.yaml keeps one)"
    if not choice.text:
        screen.transcript.add_notice("info", f"Personality cleared {where}.")
    elif choice.name:
        screen.transcript.add_notice("info", f"Personality {choice.name} {where}.")
    else:
        screen.transcript.add_notice("info", f"Custom personality {where}: {choice.text}")

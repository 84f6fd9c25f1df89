"""`/theme` (the app owns the themes: the chat asks it) and `/personality` (the ephemeral prompt)."""

from __future__ import annotations

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["PERSONALITY", "THEME"]


def pick_theme(ctx: CommandContext, name: str) -> None:
    ctx.request_theme(name.strip())


def set_personality(ctx: CommandContext, argument: str) -> None:
    """`/personality` opens a picker; `/personality NAME|TEXT` sets the ephemeral prompt until quit; `none`
    clears it."""
    from agent.api import choose_personality as choose
    from agent.api import current_personality as current_name
    from agent.api import personalities

    agent = ctx.session.agent
    table = personalities(ctx.session.settings.personalities)
    if not argument.strip():
        from hermes_tui.screens.personality import PersonalityPicker

        def chosen(name: str | None) -> None:
            if name:
                set_personality(ctx, name)
            ctx.focus_prompt()

        ctx.push_screen(PersonalityPicker(table, active=current_name(agent.ephemeral_prompt, table)), chosen)
        return
    choice = choose(argument, table)
    agent.ephemeral_prompt = choice.text
    ctx.session.update_settings(ephemeral_system_prompt=choice.text)
    where = "from the next request, for the rest of this run (agent.system_prompt in config.yaml keeps one)"
    if not choice.text:
        ctx.transcript.add_notice("info", f"Personality cleared {where}.")
    elif choice.name:
        ctx.transcript.add_notice("info", f"Personality {choice.name} {where}.")
    else:
        ctx.transcript.add_notice("info", f"Custom personality {where}: {choice.text}")


THEME = SlashCommand("theme", "Pick a theme (previews live)", pick_theme, takes_argument=True)
PERSONALITY = SlashCommand(
    "personality", "Set a personality: /personality NAME|TEXT|none", set_personality, takes_argument=True
)

"""`/help` (F1) and `/quit`."""

from __future__ import annotations

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["HELP", "QUIT"]


def show_help(ctx: CommandContext, _arg: str) -> None:
    from hermes_tui.screens.help import HelpScreen

    ctx.push_screen(HelpScreen(ctx.registry.help_rows()))


def quit_app(ctx: CommandContext, _arg: str) -> None:
    ctx.quit()  # finalizes a running turn first


HELP = SlashCommand("help", "List keys and commands", show_help, key="f1", aliases=("?",))
QUIT = SlashCommand("quit", "Quit hermes-tui", quit_app, key="ctrl+q", aliases=("exit", "q"))

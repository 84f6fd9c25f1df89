"""`/help` (F1), `/clear` (Ctrl+L) and `/quit`."""

from __future__ import annotations

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["CLEAR", "HELP", "QUIT"]


def show_help(ctx: CommandContext, _arg: str) -> None:
    from hermes_tui.screens.help import HelpScreen

    ctx.push_screen(HelpScreen(ctx.registry.help_rows()))


def clear_screen(ctx: CommandContext, _arg: str) -> None:
    ctx.transcript.clear()


def quit_app(ctx: CommandContext, _arg: str) -> None:
    ctx.quit()  # finalizes a running turn first


HELP = SlashCommand("help", "List keys and commands", show_help, key="f1", aliases=("?",))
CLEAR = SlashCommand("clear", "Clear the screen (the session is kept)", clear_screen, key="ctrl+l")
QUIT = SlashCommand("quit", "Quit hermes-tui", quit_app, key="ctrl+q", aliases=("exit", "q"))

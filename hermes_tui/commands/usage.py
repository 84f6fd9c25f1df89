"""`/usage`: tokens and cost of the last 30 days, ours and Hermes', as a chart."""

from __future__ import annotations

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["USAGE"]


def open_usage(ctx: CommandContext, _arg: str) -> None:
    from hermes_tui.screens.usage import UsageScreen

    ctx.push_screen(UsageScreen(ctx.store), lambda _result: ctx.focus_prompt())


USAGE = SlashCommand(
    "usage", "Tokens and cost of the last 30 days, as a chart", open_usage, aliases=("cost",)
)

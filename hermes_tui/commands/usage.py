"""`/usage`: tokens and cost of the last 30 days, ours and Hermes', as a chart; `/context`: what fills the
window now."""

from __future__ import annotations

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["CONTEXT", "USAGE"]


def open_usage(ctx: CommandContext, _arg: str) -> None:
    from hermes_tui.screens.usage import UsageScreen

    ctx.push_screen(UsageScreen(ctx.store), lambda _result: ctx.focus_prompt())


USAGE = SlashCommand(
    "usage", "Tokens and cost of the last 30 days, as a chart", open_usage, aliases=("cost",)
)


def show_context(ctx: CommandContext, _arg: str) -> None:
    """`/context`: the next request part by part, measured in a thread (it reads the prompt's files and the
    conversation's images), shown as one notice with a bar per part."""
    agent = ctx.session.agent

    def measure() -> None:
        from agent.api import render_context

        try:
            text = render_context(agent.context_report())
        except OSError as exc:
            ctx.from_thread(ctx.transcript.add_notice, "error", f"/context: cannot read the request ({exc})")
            return
        ctx.from_thread(lambda: ctx.transcript.add_notice("info", text, multiline=True))

    ctx.in_thread(measure, group="context", exclusive=True)


CONTEXT = SlashCommand(
    "context", "What fills the context window: the next request by part, as a bar chart", show_context
)

"""`/rewind` (Esc Esc on an empty prompt) and `/undo`: back to just before one of your messages.

`/rewind` lists this session's messages and asks what goes back (conversation, code, both); `/undo` takes
back the last exchange, conversation and code, as Hermes' `/undo` does. `/rollback` stays files only. The
engine does the work (`Agent.rewind`, in a thread: it stops a running turn as Esc does and waits for it);
here the transcript dims what left the model's context and the message goes back in the prompt to edit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hermes_tui.commands.base import CommandContext, SlashCommand
from widgets.status_bar import ContextUse

if TYPE_CHECKING:
    from agent.api import Agent, RewindPoint, RewindReport
    from hermes_tui.screens.rewind import RewindChoice

__all__ = ["REWIND", "UNDO", "rewind_to"]

NOTHING = "Nothing to rewind yet: no message was sent in this session."


def _points(ctx: CommandContext) -> tuple[Agent, list[RewindPoint]] | None:
    agent = ctx.session.built
    points = agent.rewind_points() if agent is not None else []
    if agent is None or not points:
        ctx.transcript.add_notice("info", NOTHING)
        return None
    return agent, points


def rewind(ctx: CommandContext, _arg: str) -> None:
    found = _points(ctx)
    if found is None:
        return
    _agent, points = found
    from hermes_tui.screens.rewind import RewindScreen

    def chosen(choice: RewindChoice | None) -> None:
        if choice is None:
            ctx.focus_prompt()
        else:
            rewind_to(ctx, choice.point, conversation=choice.conversation, code=choice.code)

    ctx.push_screen(RewindScreen(points), chosen)


def undo(ctx: CommandContext, _arg: str) -> None:
    """Hermes' `/undo`: the last exchange leaves the model's context and its files go back."""
    found = _points(ctx)
    if found is not None:
        last = found[1][0]
        rewind_to(ctx, last, conversation=True, code=bool(last.checkpoints))  # no file line when none changed


def rewind_to(ctx: CommandContext, point: RewindPoint, *, conversation: bool, code: bool) -> None:
    """Rewind in a thread (a running turn is stopped first, as Esc stops it, and waited for), then show it:
    the rewound entries dimmed, one line per effect, the message back in the prompt."""
    agent = ctx.session.agent
    controller = ctx.controller
    ordinal = sum(1 for p in agent.rewind_points() if p.index < point.index)  # its place among the live ones
    owns_busy = not controller.busy
    if owns_busy:
        controller.set_busy(True)  # typed meanwhile: queued, as during a turn
    else:
        controller.interrupt_turn()  # Esc's stop: nothing queued starts after it

    def done(report: RewindReport) -> None:
        ctx.drain()  # the stopped turn's last entries first: they are rewound too
        if owns_busy:
            controller.set_busy(False)
        if report.problem:
            ctx.transcript.add_notice("warn", report.problem)
            ctx.focus_prompt()
            return
        if report.conversation:
            ctx.transcript.mark_rewound(ordinal)
        ctx.transcript.add_notice("info" if report.ok else "warn", "\n".join(report.lines()), multiline=True)
        ctx.status.context_use = ContextUse(agent.last_context_tokens, agent.context_window)
        if report.conversation:
            from agent.api import split_attached

            ctx.put_in_prompt(split_attached(report.text)[0])  # as typed: `@` and `!` attachments come again
        ctx.focus_prompt()

    def work() -> None:
        report = agent.rewind(point, conversation=conversation, code=code)
        ctx.from_thread(done, report)

    ctx.in_thread(work, group="rewind")


REWIND = SlashCommand(
    "rewind",
    "Go back to before one of your messages: the conversation, the code or both (Esc Esc)",
    rewind,
)
UNDO = SlashCommand("undo", "Take back the last exchange: the conversation and its file changes", undo)

"""Commands about the turn: `/steer`, `/retry`, `/compress` (`/compact`); `/yolo` is a permission mode
(`hermes_tui/commands/modes.py`)."""

from __future__ import annotations

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["COMPRESS", "RETRY", "STEER"]


def steer(ctx: CommandContext, text: str) -> None:
    ctx.controller.steer(text)


def retry(ctx: CommandContext, _arg: str) -> None:
    """`/retry`: send the last message again (as typed, its attachments expanded again)."""
    typed = [
        m.content
        for m in ctx.session.agent.messages
        if m.role == "user" and not (m.meta or {}).get("synthetic")
    ]
    if not typed:
        ctx.transcript.add_notice("info", "Nothing to retry yet: no message was sent in this session.")
        return
    from agent.api import split_attached

    ctx.controller.submit(split_attached(typed[-1])[0])


def compress(ctx: CommandContext, _arg: str) -> None:
    """`/compress`: summarize the middle of the conversation now (a model call, in the turn's worker)."""
    controller = ctx.controller
    if controller.busy:
        ctx.transcript.add_notice("warn", "A turn is running: compress after it ends.")
        return
    agent = ctx.session.agent
    if not agent.messages:
        ctx.transcript.add_notice("info", "Nothing to compress yet.")
        return
    controller.set_busy(True)

    def after() -> None:
        ctx.drain()
        controller.set_busy(False)
        ctx.focus_prompt()

    def work() -> None:
        try:
            agent.compress_now()
        finally:
            ctx.from_thread(after)

    ctx.in_thread(work, group="agent", exclusive=True)


STEER = SlashCommand(
    "steer", "Redirect the running turn without stopping it: /steer TEXT", steer, takes_argument=True
)
COMPRESS = SlashCommand(
    "compress", "Summarize the middle of the conversation to save context", compress, aliases=("compact",)
)
RETRY = SlashCommand("retry", "Send the last message again", retry)

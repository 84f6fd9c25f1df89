"""`/export [FILE]` (Markdown, or JSON for a .json path) and `/copy` (the last reply to the clipboard)."""

from __future__ import annotations

from pathlib import Path

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["COPY", "EXPORT"]


def export(ctx: CommandContext, arg: str) -> None:
    from hermes_tui.export_flow import ExportFlow

    flow = ExportFlow(
        ctx.app, ctx.store, cwd=Path(ctx.session.settings.cwd), report=ctx.transcript.add_notice
    )
    flow.start(ctx.session.agent.session_id, arg)


def copy_last_reply(ctx: CommandContext, _arg: str) -> None:
    messages = ctx.session.agent.messages
    text = next((m.content for m in reversed(messages) if m.role == "assistant" and m.content), "")
    if not text:
        ctx.transcript.add_notice("warn", "Nothing to copy yet.")
        return
    from hermes_tui.clipboard import copy_text

    ctx.transcript.add_notice("info", copy_text(ctx.app, text))


COPY = SlashCommand("copy", "Copy the last reply to the clipboard", copy_last_reply)
EXPORT = SlashCommand(
    "export", "Export this session as Markdown: /export [FILE]", export, takes_argument=True
)

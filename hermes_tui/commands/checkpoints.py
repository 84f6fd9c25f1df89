"""`/rollback`: restore files from a checkpoint taken before a change (files only: `/rewind` and `/undo`
take the conversation back too)."""

from __future__ import annotations

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["ROLLBACK"]


def rollback(ctx: CommandContext, _arg: str) -> None:
    from hermes_tui.screens.rollback import RollbackScreen

    checkpoints = ctx.session.agent.list_checkpoints()
    if checkpoints is None:
        ctx.transcript.add_notice(
            "info", "No checkpoints yet: one is saved before the first file change of each step."
        )
        return
    if ctx.controller.busy:
        ctx.transcript.add_notice("warn", "A turn is running: press Esc first, then roll back.")
        return

    def restore(checkpoint_id: str | None) -> None:
        report = ctx.session.agent.restore_checkpoint(checkpoint_id) if checkpoint_id else None
        if report is not None:
            lines = [report.summary()]
            if report.git_note:
                lines.append(report.git_note)
            lines += [f"error: {e}" for e in report.errors]
            ctx.transcript.add_notice("error" if report.errors else "info", "\n".join(lines))
        ctx.focus_prompt()

    ctx.push_screen(RollbackScreen(checkpoints), restore)


ROLLBACK = SlashCommand("rollback", "Restore files from a checkpoint taken before a change", rollback)

"""`/cron`: the scheduled jobs (Hermes' cron/jobs.json)."""

from __future__ import annotations

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["CRON"]


def open_cron(ctx: CommandContext, _arg: str) -> None:
    from hermes_tui.screens.cron import CronScreen, JobsFileSource

    source = JobsFileSource(ctx.session.settings.hermes_home)
    ctx.push_screen(CronScreen(source), lambda _result: ctx.focus_prompt())


CRON = SlashCommand("cron", "Scheduled jobs: list, pause, remove (hermes-tui cron run runs them)", open_cron)

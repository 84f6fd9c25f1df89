"""`/ps`: background processes (status, output, kill)."""

from __future__ import annotations

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["PROCESSES"]


def open_processes(ctx: CommandContext, _arg: str) -> None:
    from hermes_tui.screens.processes import ProcessesScreen, RegistrySource

    ctx.push_screen(ProcessesScreen(RegistrySource()), lambda _result: ctx.focus_prompt())


PROCESSES = SlashCommand("ps", "Background processes: status, output, kill", open_processes)

"""The chat's side of `terminal.backend`: a container or an ssh connection is made as soon as the engine
is ready (in a worker thread), so a backend that cannot be used says so at once, in one line, before the
user has typed anything, and no turn runs on the host instead (each turn tries again and says it again)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_tui.commands.base import CommandContext

__all__ = ["open_environment"]


def open_environment(ctx: CommandContext) -> None:
    """Open the session's environment in the background when it is not this machine; its line when not."""
    agent = ctx.session.agent
    label = agent.environment_label
    if not label:
        return  # local: nothing to open, nothing to say

    def work() -> None:
        from agent.api import EnvironmentUnavailable

        try:
            environment = agent.environment
        except EnvironmentUnavailable as exc:
            ctx.from_thread(ctx.transcript.add_notice, "error", str(exc))
            return
        ctx.from_thread(
            ctx.transcript.add_notice, "info", f"Tools run in {label}, working directory {environment.cwd}."
        )

    ctx.transcript.add_notice("info", f"Connecting to {label}…")
    ctx.in_thread(work, group="environment", exclusive=True)

"""`/new`, `/sessions` and opening a stored session (resume, branch, a Hermes session continued)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hermes_tui.commands.base import CommandContext, SlashCommand
from hermes_tui.commands.learning import resumed_todo_records
from hermes_tui.commands.plugins import plugins_loaded

if TYPE_CHECKING:
    from hermes_tui.screens.sessions import SessionsResult

__all__ = ["NEW", "SESSIONS", "open_session"]


def new_session(ctx: CommandContext, _arg: str) -> None:
    if ctx.controller.busy:
        ctx.transcript.add_notice("warn", "A turn is running: press Esc first.")
        return
    ctx.session.new_session()
    plugins_loaded(ctx)
    ctx.transcript.clear()
    ctx.status.set_usage(0, 0)
    ctx.status.set_context(None, None)
    ctx.transcript.add_notice("info", "New session.")


def browse_sessions(ctx: CommandContext, _arg: str) -> None:
    from hermes_tui.screens.sessions import SessionsScreen

    agent = ctx.session.agent

    def closed(result: SessionsResult | None) -> None:
        if result is None:
            ctx.focus_prompt()
        elif ctx.controller.busy:
            ctx.transcript.add_notice("warn", "A turn is running: press Esc first, then resume.")
        else:
            open_session(ctx, result.session_id)

    screen = SessionsScreen(
        ctx.store,
        current_id=agent.session_id or None,
        export_dir=Path(ctx.session.settings.cwd),
        registry=agent.registry,
    )
    ctx.push_screen(screen, closed)


def open_session(ctx: CommandContext, session_id: str) -> None:
    """Replace the current conversation with a stored one (resume or branch)."""
    ctx.transcript.clear()
    from agent.api import StoreError
    from hermes_tui.history import records_from_messages

    try:
        agent = ctx.session.open(session_id)
    except KeyError:
        ctx.transcript.add_notice("error", f"No session {session_id}.")
    except StoreError as exc:  # another process writes to it (one writer per session), or the disk
        ctx.transcript.add_notice("error", exc.user_line())
    else:
        records = records_from_messages(agent.messages, agent.registry)
        ctx.load_history(records + resumed_todo_records(agent))
        if agent.session_id != session_id:  # a Hermes session: it continues in our copy of it
            text = (
                f"Continuing Hermes session {session_id} in a copy, {agent.session_id} "
                f"({len(agent.messages)} messages); Hermes' own history is not changed."
            )
        else:
            text = f"Resumed session {session_id} ({len(agent.messages)} messages)."
        ctx.transcript.add_notice("info", text)
        usage, cost = agent.session_usage, agent.session_cost
        priced = cost.usd if usage.prompt_tokens or cost.usd else None
        ctx.status.set_usage(usage.prompt_tokens, usage.completion_tokens, priced, cost.unknown_calls)
        ctx.status.set_context(agent.last_context_tokens, agent.context_window)
        plugins_loaded(ctx)
    ctx.focus_prompt()


NEW = SlashCommand("new", "Start a new session", new_session, key="ctrl+n", aliases=("reset",))
SESSIONS = SlashCommand(
    "sessions", "Browse, search and resume sessions", browse_sessions, key="ctrl+r", aliases=("resume",)
)

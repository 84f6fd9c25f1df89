"""`/new`, `/sessions` and opening a stored session (resume, branch, a Hermes session continued)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from hermes_tui.commands.base import CommandContext, SlashCommand
from hermes_tui.commands.learning import resumed_todo_records
from hermes_tui.commands.modes import MODE_KEY, show_mode
from hermes_tui.commands.plugins import plugins_loaded
from widgets.status_bar import ContextUse, Usage

if TYPE_CHECKING:
    from hermes_tui.screens.sessions import SessionsResult

__all__ = ["CLEAR", "NEW", "SESSIONS", "STATUS", "TITLE", "open_session"]


def new_session(ctx: CommandContext, _arg: str) -> None:
    """`/new` and `/clear` (Ctrl+L): a fresh conversation, the model sees nothing of the old one (as
    `/clear` does in Claude Code and Hermes); the old one stays stored and resumable, the line says how."""
    if ctx.controller.busy:
        ctx.transcript.add_notice("warn", "A turn is running: press Esc first.")
        return
    previous = ctx.session.agent.session_id if ctx.session.agent.messages else None
    ctx.session.new_session()
    show_mode(ctx.status, ctx.session.agent.permission_mode)
    plugins_loaded(ctx)
    ctx.transcript.clear()
    ctx.status.usage = Usage()
    ctx.status.context_use = ContextUse()
    if previous:
        ctx.transcript.add_notice(
            "info",
            f"New conversation: the model starts fresh. The previous one is kept: Ctrl+R, or "
            f"hermes-tui -r {previous}",
        )
    else:
        ctx.transcript.add_notice("info", "New conversation.")


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
        records = records_from_messages(agent.stored_transcript, agent.registry)  # rewound ones dimmed
        ctx.load_history(records + resumed_todo_records(agent))
        if agent.session_id != session_id:  # a Hermes session: it continues in our copy of it
            text = (
                f"Continuing Hermes session {session_id} in a copy, {agent.session_id} "
                f"({len(agent.messages)} messages); Hermes' own history is not changed."
            )
        else:
            text = f"Resumed session {session_id} ({len(agent.messages)} messages)."
        if rewound := len(agent.stored_transcript) - len(agent.messages):
            plural = "s" if rewound != 1 else ""
            text += f" {rewound} rewound message{plural} shown dimmed: the model does not see them."
        mode = agent.permission_mode
        show_mode(ctx.status, mode)
        if mode.value != "default":
            text += f" Permission mode: {mode.value} ({MODE_KEY} or /mode to change)."
        ctx.transcript.add_notice("info", text)
        usage, cost = agent.session_usage, agent.session_cost
        priced = cost.usd if usage.prompt_tokens or cost.usd else None
        ctx.status.usage = Usage(usage.prompt_tokens, usage.completion_tokens, priced, cost.unknown_calls)
        ctx.status.context_use = ContextUse(agent.last_context_tokens, agent.context_window)
        plugins_loaded(ctx)
    ctx.focus_prompt()


NEW = SlashCommand("new", "Start a new session", new_session, key="ctrl+n", aliases=("reset",))
CLEAR = SlashCommand(
    "clear", "Start a fresh conversation; the old one is kept and resumable", new_session, key="ctrl+l"
)
SESSIONS = SlashCommand(
    "sessions", "Browse, search and resume sessions", browse_sessions, key="ctrl+r", aliases=("resume",)
)


def set_title(ctx: CommandContext, title: str) -> None:
    """`/title NAME` names this session (as the sessions browser and `-r NAME` find it); alone, says it."""
    agent = ctx.session.agent
    if not agent.session_id:
        ctx.transcript.add_notice("info", "This session has no messages yet: send one, then /title NAME.")
        return
    if not title.strip():
        info = ctx.store.get_session(agent.session_id)
        current = info.title if info is not None else ""
        ctx.transcript.add_notice("info", f"Title: {current or '(none yet)'}. /title NAME renames it.")
        return
    saved = ctx.store.set_title(agent.session_id, title.strip())
    ctx.transcript.add_notice("info", f"Session titled “{saved}”: hermes-tui -r '{saved}' resumes it.")


def show_status(ctx: CommandContext, _arg: str) -> None:
    """`/status`: what this chat runs on, in one notice (model, provider, session, folder, context)."""
    agent = ctx.session.agent
    settings = agent.settings
    used = agent.last_context_tokens
    context = f"{used:,} of {agent.context_window:,} tokens" if used else f"window {agent.context_window:,}"
    lines = [
        f"model {settings.model} · provider {settings.provider}"
        + (f" · {settings.base_url}" if settings.base_url else ""),
        f"session {agent.session_id or '(new: saved with its first message)'} · "
        f"{len(agent.messages)} messages · context {context}",
        f"folder {settings.cwd} · permission mode {agent.permission_mode.value}",
    ]
    ctx.transcript.add_notice("info", "\n".join(lines), multiline=True)


TITLE = SlashCommand(
    "title", "Name this session: /title NAME", set_title, takes_argument=True, aliases=("rename",)
)
STATUS = SlashCommand("status", "Model, provider, session, folder and context in one line", show_status)

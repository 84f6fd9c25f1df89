"""`/tools`: toolsets and tools, switched for this session."""

from __future__ import annotations

from typing import Any

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["TOOLS"]


def open_tools(ctx: CommandContext, _arg: str) -> None:
    from hermes_tui.screens.tools import ToolsScreen

    def closed(changed: Any) -> None:
        if changed:
            switched = ", ".join(f"{s.name} {'on' if s.enabled else 'off'}" for s in changed)
            ctx.transcript.add_notice(
                "info",
                f"Tools for this session: {switched}, from the next request. The system prompt keeps "
                "the tool list this session started with (prompt caching); a new session lists the "
                "current tools.",
            )
        ctx.focus_prompt()

    ctx.push_screen(ToolsScreen(ctx.session.agent.toolsets), closed)


TOOLS = SlashCommand("tools", "Toolsets and tools: switch them for this session", open_tools)

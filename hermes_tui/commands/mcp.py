"""`/mcp` opens the MCP servers' screen; `/mcp reload` reconnects them (after editing config.yaml)."""

from __future__ import annotations

from hermes_tui.commands.base import CommandContext, SlashCommand

__all__ = ["MCP"]


def mcp(ctx: CommandContext, argument: str) -> None:
    from hermes_tui.mcp_service import CONFIG_NAME

    service = ctx.mcp
    word = argument.strip().lower()
    if service is None:
        ctx.transcript.add_notice("warn", "MCP servers are not available here.")
    elif word == "reload":
        service.reload()
        ctx.transcript.add_notice(
            "info", f"Reconnecting the MCP servers of {service.hermes_home / CONFIG_NAME}; /mcp shows them."
        )
    elif word:
        ctx.transcript.add_notice("warn", f"Unknown /mcp argument {argument.strip()!r}: try /mcp reload.")
    else:
        from hermes_tui.screens.mcp import McpScreen

        ctx.push_screen(McpScreen(service), lambda _result: ctx.focus_prompt())


MCP = SlashCommand(
    "mcp", "MCP servers, their tools and last calls; /mcp reload reconnects", mcp, takes_argument=True
)

"""Plugins' side of the chat: `/plugins`, `/hooks` (the shell hooks), and Hermes plugins' slash commands
(`ctx.register_command`) registered into the chat's registry, run in a thread (a handler may block or be a
coroutine), their text shown as a notice.

A built-in command or alias keeps its name, as in Hermes: a plugin command that collides is not added, and
`/plugins` says so under that plugin.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hermes_tui.commands.base import CommandContext, SlashCommand

if TYPE_CHECKING:
    from agent.api import PluginManager

__all__ = ["HOOKS", "PLUGINS", "PluginCommand", "plugin_commands", "plugins_loaded"]


@dataclass(frozen=True)
class PluginCommand:
    """A plugin's `/name ARG`: the current session's plugin manager runs it."""

    name: str
    help: str
    aliases: tuple[str, ...] = ()
    key: str = ""
    takes_argument: bool = True
    group: str = "Plugins"

    def run(self, ctx: CommandContext, arg: str) -> None:
        manager = ctx.session.agent.plugins
        name = self.name

        def work() -> None:
            text = manager.run_command(name, arg)
            kind = "error" if text and text.startswith(f"/{name} failed") else "info"
            ctx.from_thread(ctx.transcript.add_notice, kind, text or f"/{name}: done.")

        ctx.in_thread(work, group="plugin-command")


def plugin_commands(manager: PluginManager, reserved: frozenset[str]) -> list[PluginCommand]:
    """The usable plugin commands; colliding ones are refused on their plugin."""
    usable: list[PluginCommand] = []
    for name, command in manager.commands.items():
        if name in reserved:
            manager.refuse_command(name, "a built-in command has that name")
            continue
        usable.append(PluginCommand(name, command.description))
    return usable


def plugins_loaded(ctx: CommandContext) -> None:
    """The current agent's plugins: their slash commands (registry, prompt), their tools' icons."""
    manager = ctx.session.agent.plugins
    ctx.registry.set_plugins(plugin_commands(manager, ctx.registry.reserved_names()))
    ctx.refresh_completions()
    ctx.set_plugin_icons(manager.tool_icons)


def list_plugins(ctx: CommandContext, _arg: str) -> None:
    ctx.transcript.add_notice("info", ctx.session.agent.plugin_listing(), multiline=True)


PLUGINS = SlashCommand("plugins", "List plugins and their load errors", list_plugins)


def list_hooks(ctx: CommandContext, _arg: str) -> None:
    ctx.transcript.add_notice("info", ctx.session.agent.hook_listing(), multiline=True)


HOOKS = SlashCommand("hooks", "List shell hooks, where they come from and whether they may run", list_hooks)

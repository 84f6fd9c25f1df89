"""Hermes plugins' slash commands (`ctx.register_command`) in the chat: completed in the prompt, run in a
thread (a handler may block or be a coroutine), their text shown as a notice.

A built-in command or alias keeps its name, as in Hermes: a plugin command that collides is not added, and
`/plugins` says so under that plugin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from hermes_tui import commands

if TYPE_CHECKING:
    from textual.app import App

    from agent.api import PluginManager

__all__ = ["plugin_commands", "run_plugin_command"]

Report = Callable[[str, str], object]  # (notice kind, text); what it returns is not used


def plugin_commands(manager: PluginManager) -> dict[str, str]:
    """The usable plugin commands (name -> description); colliding ones are refused on their plugin."""
    reserved = commands.reserved_names()
    usable: dict[str, str] = {}
    for name, command in manager.commands.items():
        if name in reserved:
            manager.refuse_command(name, "a built-in command has that name")
            continue
        usable[name] = command.description
    return usable


def run_plugin_command(app: App[object], manager: PluginManager, name: str, arg: str, report: Report) -> None:
    """Run `/name arg` of a plugin in a thread; its answer (or its one-line error) comes back as a notice."""

    def work() -> None:
        text = manager.run_command(name, arg)
        kind = "error" if text and text.startswith(f"/{name} failed") else "info"
        try:
            app.call_from_thread(report, kind, text or f"/{name}: done.")
        except RuntimeError:  # the app is closing
            pass

    app.run_worker(work, thread=True, group="plugin-command", exit_on_error=False)

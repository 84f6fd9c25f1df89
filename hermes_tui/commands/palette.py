"""The command palette (Ctrl+P) lists the chat's commands from its registry, on screens that run them.

The palette finds the registry through `CommandHost`, so this module does not import the chat screen
(which imports the commands).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Protocol, runtime_checkable

from textual.command import DiscoveryHit, Hit, Hits, Provider

from hermes_tui.commands.base import Command
from hermes_tui.commands.registry import CommandRegistry

__all__ = ["CommandHost", "SlashCommandProvider"]


@runtime_checkable
class CommandHost(Protocol):
    """A screen with a command registry that runs its commands (the chat screen)."""

    @property
    def commands(self) -> CommandRegistry: ...

    def run_command(self, command: Command, arg: str = "") -> None: ...


class SlashCommandProvider(Provider):
    """The palette shows the same commands as the prompt's `/` completion."""

    def _host(self) -> CommandHost | None:
        screen = self.screen
        return screen if isinstance(screen, CommandHost) else None

    async def discover(self) -> Hits:
        host = self._host()
        if host is None:
            return
        for command in host.commands.commands():
            yield DiscoveryHit(f"/{command.name}", partial(host.run_command, command, ""), help=command.help)

    async def search(self, query: str) -> Hits:
        host = self._host()
        if host is None:
            return
        matcher = self.matcher(query)
        for command in host.commands.commands():
            score = _rank(matcher.match, query, command)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(f"/{command.name}"),
                    partial(host.run_command, command, ""),
                    help=command.help,
                )


def _rank(match: Callable[[str], float], query: str, command: Command) -> float:
    """The command named as typed first, then names that match, then commands whose help matches: `yolo`
    runs `/yolo`, not `/mode` (whose help lists the yolo mode and scored the same as one text). The
    matcher's scores are unbounded, so each tier sits far above the one below it."""
    if command.name == query.strip().lstrip("/").lower():
        return 1e9
    by_name = match(f"/{command.name}")
    if by_name > 0:
        return 1e6 + by_name
    return match(f"/{command.name} {command.help}")

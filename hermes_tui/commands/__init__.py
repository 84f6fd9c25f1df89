"""The chat's slash commands, one module per family, in one registry.

Each command is an object (`Command`: name, aliases, help, key, argument, `run(ctx, arg)`) run with a
`CommandContext`, never the chat screen. `BUILTIN_COMMANDS` is their order in the prompt's completion,
`/help` and the palette; `new_registry()` is a chat's registry (plugins' commands and skills' names join
it per session). Keys, `/name` and the palette run the same objects.

To add a command: write its function and `SlashCommand` in the family's module (or a new module here),
and list it in `BUILTIN_COMMANDS`. A key for it is its `key` (the chat screen binds every built-in key).
"""

from __future__ import annotations

from hermes_tui.commands.appearance import PERSONALITY, THEME
from hermes_tui.commands.base import Command, CommandContext, SlashCommand
from hermes_tui.commands.basics import HELP, QUIT
from hermes_tui.commands.checkpoints import ROLLBACK
from hermes_tui.commands.config import CONFIG
from hermes_tui.commands.cron import CRON
from hermes_tui.commands.export import COPY, EXPORT
from hermes_tui.commands.image import IMAGE
from hermes_tui.commands.learning import SKILLS
from hermes_tui.commands.mcp import MCP
from hermes_tui.commands.model import MODEL
from hermes_tui.commands.modes import MODE, YOLO
from hermes_tui.commands.palette import SlashCommandProvider
from hermes_tui.commands.plugins import HOOKS, PLUGINS
from hermes_tui.commands.processes import PROCESSES
from hermes_tui.commands.project import INIT
from hermes_tui.commands.reasoning import REASONING
from hermes_tui.commands.registry import CommandRegistry
from hermes_tui.commands.rewind import REWIND, UNDO
from hermes_tui.commands.session import CLEAR, NEW, SESSIONS, STATUS, TITLE
from hermes_tui.commands.tools import TOOLS
from hermes_tui.commands.turn import COMPRESS, RETRY, STEER
from hermes_tui.commands.usage import CONTEXT, USAGE

__all__ = [
    "BUILTIN_COMMANDS",
    "Command",
    "CommandContext",
    "CommandRegistry",
    "SlashCommand",
    "SlashCommandProvider",
    "new_registry",
]

BUILTIN_COMMANDS: tuple[Command, ...] = (
    HELP,
    NEW,
    SESSIONS,
    MODEL,
    REASONING,
    STEER,
    REWIND,
    UNDO,
    ROLLBACK,
    PLUGINS,
    HOOKS,
    USAGE,
    CONTEXT,
    INIT,
    SKILLS,
    TOOLS,
    PROCESSES,
    CRON,
    IMAGE,
    MCP,
    PERSONALITY,
    CONFIG,
    MODE,
    YOLO,
    COMPRESS,
    RETRY,
    TITLE,
    STATUS,
    THEME,
    COPY,
    EXPORT,
    CLEAR,
    QUIT,
)


def new_registry() -> CommandRegistry:
    """A chat's registry: the built-in commands (no plugin or skill yet)."""
    return CommandRegistry(BUILTIN_COMMANDS)

"""One registry of the chat's commands: what `/name` runs, what the prompt completes, what `/help` and
the command palette list, and what the chat's keys run.

It holds the built-in commands, the user's `quick_commands` (config.yaml), the current session's plugin
commands (they change with the agent) and the enabled skills' names (a `/skill-name` is a message to the
agent, not a command: it is completed and listed here, and sent as typed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from hermes_tui.commands.base import Command
from hermes_tui.commands.keys import KEY_GROUPS

__all__ = ["CommandRegistry"]


class CommandRegistry:
    """The built-in commands, then the plugins' (a built-in name or alias is never taken by a plugin)."""

    def __init__(self, builtins: Sequence[Command]) -> None:
        self._builtins = tuple(builtins)
        self._names: dict[str, Command] = {}
        for command in self._builtins:
            for name in (command.name, *command.aliases):
                if name in self._names:
                    raise ValueError(f"two commands are named /{name}")
                self._names[name] = command
        self._plugins: dict[str, Command] = {}
        self._quick: dict[str, Command] = {}
        self._skills: dict[str, str] = {}

    @property
    def builtins(self) -> tuple[Command, ...]:
        return self._builtins

    @property
    def plugins(self) -> tuple[Command, ...]:
        return tuple(self._plugins.values())

    @property
    def skills(self) -> Mapping[str, str]:
        """Enabled skills' slash names -> description."""
        return self._skills

    @property
    def quick(self) -> tuple[Command, ...]:
        """The user's `quick_commands` (config.yaml)."""
        return tuple(self._quick.values())

    def commands(self) -> tuple[Command, ...]:
        """Every command that runs: the built-in ones, the quick commands, then the plugins'."""
        return self._builtins + self.quick + self.plugins

    def reserved_names(self) -> frozenset[str]:
        """Names a skill's or a plugin's command may not take (a built-in command or alias wins)."""
        return frozenset(self._names)

    def set_plugins(self, commands: Iterable[Command]) -> None:
        self._plugins = {c.name: c for c in commands if c.name not in self._names}

    def set_quick(self, commands: Iterable[Command]) -> None:
        """The quick commands (a built-in name is never taken; they come before a plugin's, as in Hermes)."""
        self._quick = {c.name: c for c in commands if c.name not in self._names}

    def set_skills(self, skills: Mapping[str, str]) -> None:
        self._skills = dict(skills)

    def find(self, name: str) -> Command | None:
        """The command `/name` runs (an alias included), or None."""
        name = name.lower()
        return self._names.get(name) or self._quick.get(name) or self._plugins.get(name)

    def with_key(self, key: str) -> Command | None:
        return next((c for c in self._builtins if c.key == key), None)

    def parse(self, text: str) -> tuple[Command | None, str, str]:
        """(command or None, argument, typed name). Only text starting with one `/` is a command."""
        stripped = text.strip()
        if not stripped.startswith("/") or stripped.startswith("//"):
            return None, "", ""
        name, _, arg = stripped[1:].partition(" ")
        name = name.lower()
        command = self.find(name)
        return command, arg.strip(), command.name if command is not None else name

    def unknown(self, typed: str) -> str:
        """The line for `/typed` that names no command: where a Hermes command is here (or that it is not),
        else the closest names (aliases and skills too)."""
        import difflib

        from hermes_tui.commands.hermes_names import HERMES_ELSEWHERE, HERMES_ONLY

        name = typed.lower()
        if name in HERMES_ELSEWHERE:
            return f"Unknown command /{typed}: Hermes' /{name} is {HERMES_ELSEWHERE[name]} here."
        if name in HERMES_ONLY:
            none = f"Hermes' /{name} has no equivalent in hermes-tui"
            return f"Unknown command /{typed}: {none}. Type /help for the list."
        names = [*self._names, *self._quick, *self._plugins, *self._skills]
        close = difflib.get_close_matches(typed.lower(), names, n=3, cutoff=0.6)
        hint = f" Did you mean {', '.join('/' + name for name in close)}?" if close else ""
        return f"Unknown command /{typed}.{hint} Type /help for the list."

    def completions(self) -> list[tuple[str, str]]:
        """The prompt's `/` completions: the built-in commands, then the skills' and plugins' by name."""
        extra = {
            **self._skills,
            **{c.name: c.help for c in self._plugins.values()},
            **{c.name: c.help for c in self._quick.values()},
        }
        return [(f"/{c.name}", c.help) for c in self._builtins] + [
            (f"/{name}", help_line) for name, help_line in sorted(extra.items())
        ]

    def help_rows(self) -> list[tuple[str, str, str]]:
        """(group, key or command, what it does) for `/help`: the keys, the commands, the skills, the
        plugins' commands."""
        rows = [(group, key, text) for group, keys in KEY_GROUPS for key, text in keys]
        for c in self._builtins:
            rows.append((c.group, f"/{c.name}", c.help + (f"  ({c.key})" if c.key else "")))
        rows += [(c.group, f"/{c.name}", c.help) for c in sorted(self._quick.values(), key=lambda c: c.name)]
        rows += [("Skills", f"/{name}", text) for name, text in sorted(self._skills.items())]
        rows += [
            (c.group, f"/{c.name}", c.help) for c in sorted(self._plugins.values(), key=lambda c: c.name)
        ]
        return rows

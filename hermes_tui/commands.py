"""Slash commands: one registry for the prompt's completion, `/help` and the command palette.

A command names an action on the chat screen (`action_<name>`), so keys, slash commands and the palette
all run the same code. The palette finds the screen to run them on through `SlashCommandRunner`, so this
module does not import the screen (which imports it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Protocol, runtime_checkable

from textual.command import DiscoveryHit, Hit, Hits, Provider


@dataclass(frozen=True)
class SlashCommand:
    name: str  # without the slash
    description: str
    action: str  # chat screen action name (without `action_`)
    takes_argument: bool = False
    key: str = ""  # the key that runs it too, shown in /help


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("help", "List keys and commands", "help", key="f1"),
    SlashCommand("new", "Start a new session", "new_session", key="ctrl+n"),
    SlashCommand("sessions", "Browse, search and resume sessions", "sessions", key="ctrl+r"),
    SlashCommand("model", "Switch the model for the next turn: /model NAME", "model", takes_argument=True),
    SlashCommand(
        "steer", "Redirect the running turn without stopping it: /steer TEXT", "steer", takes_argument=True
    ),
    SlashCommand("rollback", "Restore files from a checkpoint taken before a change", "rollback"),
    SlashCommand("plugins", "List plugins and their load errors", "plugins"),
    SlashCommand("usage", "Tokens and cost of the last 30 days, as a chart", "usage"),
    SlashCommand("skills", "Browse, read, enable and disable skills", "skills"),
    SlashCommand("tools", "Toolsets and tools: switch them for this session", "tools"),
    SlashCommand("ps", "Background processes: status, output, kill", "processes"),
    SlashCommand("image", "Attach an image: /image FILE | --paste | clear", "image", takes_argument=True),
    SlashCommand("mcp", "MCP servers, their tools and last calls; /mcp reload reconnects", "mcp", True),
    SlashCommand(
        "personality", "Set a personality: /personality NAME|TEXT|none", "personality", takes_argument=True
    ),
    SlashCommand("config", "Show configuration problems (the defaults used instead)", "config"),
    SlashCommand("yolo", "Toggle approving risky commands without asking", "yolo"),
    SlashCommand("compress", "Summarize the middle of the conversation to save context", "compress"),
    SlashCommand("theme", "Pick a theme (previews live)", "theme", takes_argument=True),
    SlashCommand("copy", "Copy the last reply to the clipboard", "copy"),
    SlashCommand("export", "Export this session as Markdown: /export [FILE]", "export", takes_argument=True),
    SlashCommand("clear", "Clear the screen (the session is kept)", "clear_screen", key="ctrl+l"),
    SlashCommand("quit", "Quit hermes-tui", "quit", key="ctrl+q"),
)

BY_NAME = {c.name: c for c in COMMANDS}
ALIASES = {"exit": "quit", "q": "quit", "resume": "sessions", "reset": "new", "?": "help"}


def parse(text: str) -> tuple[SlashCommand | None, str, str]:
    """(command or None, argument, typed name). Only text starting with one `/` is a command."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None, "", ""
    name, _, arg = stripped[1:].partition(" ")
    name = name.lower()
    name = ALIASES.get(name, name)
    return BY_NAME.get(name), arg.strip(), name


def completions(
    skills: Mapping[str, str] | None = None, plugins: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """The prompt's `/` completions: the commands, then one per enabled skill and per plugin command (slash
    name -> description)."""
    extra = [
        (f"/{name}", description)
        for name, description in sorted({**(skills or {}), **(plugins or {})}.items())
    ]
    return [(f"/{c.name}", c.description) for c in COMMANDS] + extra


def reserved_names() -> frozenset[str]:
    """Names a skill's slash command may not take (a built-in command or alias wins, as in Hermes)."""
    return frozenset(BY_NAME) | frozenset(ALIASES)


KEY_GROUPS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Prompt",
        (
            ("Enter", "send (queued while the agent works)"),
            ("Shift+Enter", "newline (also Ctrl+J, Alt+Enter)"),
            ("Up / Down", "history (Up on an empty prompt: last queued first)"),
            ("Shift+Tab", "to the queue: e edit, x remove, s steer now"),
            ("Tab", "complete a / command"),
            ("Ctrl+O", "expand a [Pasted #N] token into editable text"),
            ("Backspace", "on a paste token: delete it whole (Ctrl+Z undoes)"),
            ("Ctrl+G", "edit the prompt in $EDITOR (pastes in full)"),
            ("Ctrl+U", "clear the line before the cursor"),
        ),
    ),
    (
        "The turn",
        (
            ("Esc", "interrupt the running turn"),
            ("Ctrl+C", "interrupt, else clear the prompt; twice to quit"),
            ("Ctrl+O", "expand/collapse the tool panel under the cursor, else the latest one"),
            ("Ctrl+T", "expand/collapse every tool panel of the last turn"),
            ("PageUp / PageDown", "scroll the transcript (the prompt keeps the focus)"),
            ("Ctrl+Home / Ctrl+End", "jump to the first message / the latest output"),
            (
                "Tab, then Up / Down",
                "walk the transcript's tool calls and reasoning; Enter or Space opens one",
            ),
        ),
    ),
    (
        "Screens",
        (
            ("Ctrl+R", "sessions: browse, search, resume"),
            ("Ctrl+P", "command palette"),
            ("F1", "this help"),
            ("Ctrl+Q", "quit"),
        ),
    ),
)
"""The keys `/help` lists, grouped; the one place they are written down for users."""


def help_rows(
    skills: Mapping[str, str] | None = None, plugins: Mapping[str, str] | None = None
) -> list[tuple[str, str, str]]:
    """(group, key or command, what it does) for the help screen: the keys, the commands, the skills and
    the plugins' commands."""
    rows = [(group, key, text) for group, keys in KEY_GROUPS for key, text in keys]
    for c in COMMANDS:
        rows.append(("Commands", f"/{c.name}", c.description + (f"  ({c.key})" if c.key else "")))
    for name, description in sorted((skills or {}).items()):
        rows.append(("Skills", f"/{name}", description))
    for name, description in sorted((plugins or {}).items()):
        rows.append(("Plugins", f"/{name}", description))
    return rows


@runtime_checkable
class SlashCommandRunner(Protocol):
    """A screen that runs slash commands (the chat screen)."""

    def run_slash(self, command: SlashCommand, arg: str) -> None: ...


class SlashCommandProvider(Provider):
    """The palette shows the same commands as the prompt's `/` completion, on screens that run them."""

    def _screen(self) -> SlashCommandRunner | None:
        screen = self.screen
        return screen if isinstance(screen, SlashCommandRunner) else None

    async def discover(self) -> Hits:
        chat = self._screen()
        if chat is None:
            return
        for command in COMMANDS:
            yield DiscoveryHit(
                f"/{command.name}", partial(chat.run_slash, command, ""), help=command.description
            )

    async def search(self, query: str) -> Hits:
        chat = self._screen()
        if chat is None:
            return
        matcher = self.matcher(query)
        for command in COMMANDS:
            score = matcher.match(f"/{command.name} {command.description}")
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(f"/{command.name}"),
                    partial(chat.run_slash, command, ""),
                    help=command.description,
                )

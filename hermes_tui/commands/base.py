"""What a command is and what it may use.

A command is an object (`Command`): its name, aliases, help line, the key that runs it too, whether it takes
an argument, and `run(ctx, arg)`. It gets a `CommandContext`, never the chat screen: the session service,
the turn's controller, a transcript API, the status bar, notify and push_screen, and a few narrow
operations the screen provides. So a command can be read (and tested) without the screen, and the screen
does not grow with every feature.

Only light imports at run time: `hermes_tui.chat.layout` builds the prompt's completion from the
registry before the first frame; what a command needs loads when it runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from agent.api import SessionStoreProtocol
    from hermes_tui.chat.attachments import Attachments
    from hermes_tui.chat.controller import ChatController
    from hermes_tui.chat.session import SessionService
    from hermes_tui.mcp_service import McpService
    from widgets.status_bar import ContextUse, Usage
    from widgets.transcript.record import TranscriptRecord

__all__ = ["Command", "CommandContext", "RegistryAPI", "SlashCommand", "StatusAPI", "TranscriptAPI"]


@runtime_checkable
class Command(Protocol):
    """One slash command: `/name ARG`, a key, a palette entry and a `/help` row."""

    @property
    def name(self) -> str:
        """Without the slash."""
        ...

    @property
    def aliases(self) -> tuple[str, ...]: ...

    @property
    def help(self) -> str:
        """One line for the completion, the palette and `/help`."""
        ...

    @property
    def key(self) -> str:
        """The key that runs it too (Textual's name, e.g. `ctrl+n`), shown in `/help`; empty: none."""
        ...

    @property
    def takes_argument(self) -> bool: ...

    @property
    def group(self) -> str:
        """Its `/help` group: `Commands` for the built-in ones, `Plugins` for a plugin's."""
        ...

    def run(self, ctx: CommandContext, arg: str) -> None: ...


Handler = Callable[["CommandContext", str], None]


@dataclass(frozen=True)
class SlashCommand:
    """A built-in command: its data and the function that runs it."""

    name: str
    help: str
    handler: Handler
    takes_argument: bool = False
    key: str = ""
    aliases: tuple[str, ...] = ()
    group: str = "Commands"

    def run(self, ctx: CommandContext, arg: str) -> None:
        self.handler(ctx, arg if self.takes_argument else "")


class RegistryAPI(Protocol):
    """What commands change in the chat's registry (`hermes_tui.commands.registry.CommandRegistry`)."""

    @property
    def skills(self) -> Mapping[str, str]: ...
    def set_skills(self, skills: Mapping[str, str]) -> None: ...
    def set_plugins(self, commands: Iterable[Command]) -> None: ...
    def set_quick(self, commands: Iterable[Command]) -> None: ...
    def reserved_names(self) -> frozenset[str]: ...
    def help_rows(self) -> list[tuple[str, str, str]]: ...
    def unknown(self, typed: str) -> str: ...


class TranscriptAPI(Protocol):
    """The parts of the transcript a command writes to."""

    show_reasoning: bool

    def add_notice(
        self, kind: str, text: str, hint: str | None = None, *, multiline: bool = False
    ) -> object: ...
    def clear(self) -> object: ...
    def mark_rewound(self, from_user: int) -> int:
        """Dim the `from_user`-th live user message and everything after it (a rewind)."""
        ...


class StatusAPI(Protocol):
    """The status line's state a command changes (the chat screen's reactives, which the bar is bound to)."""

    model: str
    yolo: bool
    mode: str
    reasoning: str
    where: str  # where the tools run, when not plainly this machine ("" for local without a sandbox)
    usage: Usage
    context_use: ContextUse


class CommandContext(Protocol):
    """What a command may use (the chat screen builds one: `hermes_tui.chat.context`)."""

    @property
    def session(self) -> SessionService: ...
    @property
    def store(self) -> SessionStoreProtocol: ...
    @property
    def controller(self) -> ChatController: ...
    @property
    def registry(self) -> RegistryAPI: ...
    @property
    def transcript(self) -> TranscriptAPI: ...
    @property
    def status(self) -> StatusAPI: ...
    @property
    def attachments(self) -> Attachments: ...
    @property
    def mcp(self) -> McpService | None:
        """The app's MCP servers (None where the app has none)."""
        ...

    def copy_to_clipboard(self, text: str) -> None:
        """The terminal's clipboard (OSC 52)."""
        ...

    def notify(
        self, message: str, *, severity: SeverityLevel = "information", timeout: float | None = None
    ) -> None: ...
    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], None] | None = None) -> None: ...
    def focus_prompt(self) -> None:
        """The keys go back to the prompt (a closed screen hands them back)."""
        ...

    def put_in_prompt(self, text: str) -> None:
        """`text` in the prompt to edit (what it held is replaced)."""
        ...

    def refresh_completions(self) -> None:
        """The registry changed (skills, plugins): the prompt completes what it holds now."""
        ...

    def set_plugin_icons(self, icons: Mapping[str, str]) -> None: ...
    def load_history(self, records: Iterable[TranscriptRecord]) -> None: ...
    def in_thread(self, work: Callable[[], object], *, group: str, exclusive: bool = False) -> None:
        """Run `work` in a thread worker of the chat (what blocks: the disk, the network, the model)."""
        ...

    def from_thread(self, callback: Callable[..., object], *args: object) -> None:
        """From a worker thread: run `callback(*args)` on the UI thread (nothing once the app closes)."""
        ...

    def drain(self) -> None:
        """Show what the agent queued for the transcript now."""
        ...

    def config_problems(self) -> list[str]: ...
    def request_theme(self, name: str) -> None: ...
    def submit(self, text: str) -> None:
        """What Enter does with `text` in the prompt: a slash command runs, anything else is sent."""
        ...

    def quit(self) -> None: ...

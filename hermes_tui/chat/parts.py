"""`ChatParts`: the chat screen's members its helpers use (the view and engine the controller answers
through, the commands' context, the questions' presenter), as one Protocol, so those modules do not import
the screen (which builds them) and the list is written once."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from hermes_tui.commands.base import CommandContext, StatusAPI

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode
    from textual.notifications import SeverityLevel
    from textual.timer import Timer
    from textual.worker import Worker

    from agent.api import SessionStoreProtocol, Settings, TurnResult
    from hermes_tui.chat.attachments import Attachments
    from hermes_tui.chat.controller import ChatController
    from hermes_tui.chat.pipeline import EventPipeline
    from hermes_tui.chat.session import SessionService
    from hermes_tui.chat.shell import ShellRunner
    from hermes_tui.chat.turn_view import TurnView
    from hermes_tui.commands.registry import CommandRegistry
    from hermes_tui.gc_policy import GcPolicy
    from hermes_tui.tool_icons import ToolIcons
    from widgets.prompt.input import PromptInput
    from widgets.transcript.view import Transcript

__all__ = ["ChatParts"]


class ChatParts(StatusAPI, Protocol):
    """The chat screen as its helpers see it (the view, the engine, the commands' context, the questions);
    the status line's state is its own (`StatusAPI`)."""

    FREEZE_QUESTIONS: ClassVar[bool]
    """The questions' countdowns stopped, for snapshots."""
    busy: bool
    turn_worker: Worker[TurnResult] | None
    session: SessionService
    shell: ShellRunner
    store: SessionStoreProtocol
    tool_icons: ToolIcons

    @property
    def app(self) -> App[Any]: ...
    @property
    def is_mounted(self) -> bool: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def controller(self) -> ChatController: ...
    @property
    def commands(self) -> CommandRegistry: ...
    @property
    def pipeline(self) -> EventPipeline: ...
    @property
    def transcript(self) -> Transcript: ...
    @property
    def prompt_input(self) -> PromptInput: ...
    @property
    def attachments(self) -> Attachments: ...
    @property
    def turn_view(self) -> TurnView: ...
    @property
    def gc_policy(self) -> GcPolicy: ...
    @property
    def command_context(self) -> CommandContext:
        """What the commands run with (a key that opens one, Esc Esc's `/rewind`, runs it so too)."""
        ...

    def show_tool_icons(self, icons: ToolIcons) -> None: ...
    def request_theme(self, name: str) -> None: ...
    def submit(self, text: str) -> None: ...
    def query_one(self, selector: str) -> DOMNode: ...
    def notify(
        self, message: str, *, severity: SeverityLevel = "information", timeout: float | None = None
    ) -> None: ...
    def set_timer(
        self, delay: float, callback: Callable[[], object], *, name: str | None = None
    ) -> Timer: ...
    def set_interval(
        self, interval: float, callback: Callable[[], object], *, name: str | None = None
    ) -> Timer: ...
    def run_worker(
        self,
        work: Callable[[], Any],
        name: str | None = ...,
        group: str = ...,
        description: str = ...,
        exit_on_error: bool = ...,
        start: bool = ...,
        exclusive: bool = ...,
        thread: bool = ...,
    ) -> Worker[Any]: ...
    def call_later(self, callback: Callable[..., Any], *args: Any) -> bool: ...

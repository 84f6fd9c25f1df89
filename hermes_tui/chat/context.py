"""The `CommandContext` the chat screen gives its commands: the session, the controller, the transcript,
the status bar, notify, push_screen and a few narrow operations, never the screen itself."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from hermes_tui.chat.parts import ChatParts
from hermes_tui.commands.base import StatusAPI
from hermes_tui.gc_policy import GcPolicy
from widgets.support import timing

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen

    from agent.api import SessionStoreProtocol
    from hermes_tui.chat.attachments import Attachments
    from hermes_tui.chat.controller import ChatController
    from hermes_tui.chat.session import SessionService
    from hermes_tui.commands.registry import CommandRegistry
    from hermes_tui.mcp_service import McpService
    from widgets.transcript.record import TranscriptRecord
    from widgets.transcript.view import Transcript

__all__ = ["ScreenCommandContext"]


class ScreenCommandContext:
    """`CommandContext` over the chat screen's parts."""

    def __init__(self, screen: ChatParts) -> None:
        self._screen = screen

    @property
    def session(self) -> SessionService:
        return self._screen.session

    @property
    def store(self) -> SessionStoreProtocol:
        return self._screen.store

    @property
    def controller(self) -> ChatController:
        return self._screen.controller

    @property
    def registry(self) -> CommandRegistry:
        return self._screen.commands

    @property
    def transcript(self) -> Transcript:
        return self._screen.transcript

    @property
    def status(self) -> StatusAPI:
        return self._screen

    @property
    def attachments(self) -> Attachments:
        return self._screen.attachments

    @property
    def mcp(self) -> McpService | None:
        from hermes_tui.mcp_service import McpService

        service = getattr(self._screen.app, "mcp", None)
        return service if isinstance(service, McpService) else None

    def copy_to_clipboard(self, text: str) -> None:
        self._screen.app.copy_to_clipboard(text)

    def notify(
        self, message: str, *, severity: SeverityLevel = "information", timeout: float | None = None
    ) -> None:
        self._screen.notify(message, severity=severity, timeout=timeout)

    def push_screen(self, screen: Screen[Any], callback: Callable[[Any], None] | None = None) -> None:
        self._screen.app.push_screen(screen, callback)

    def focus_prompt(self) -> None:
        self._screen.prompt_input.focus()

    def put_in_prompt(self, text: str) -> None:
        self._screen.prompt_input.set_text(text)

    def refresh_completions(self) -> None:
        if self._screen.is_mounted:
            self._screen.prompt_input.set_commands(self._screen.commands.completions())

    def set_plugin_icons(self, icons: Mapping[str, str]) -> None:
        self._screen.show_tool_icons(replace(self._screen.tool_icons, plugins=dict(icons)))

    def load_history(self, records: Iterable[TranscriptRecord]) -> None:
        """Thousands of entries are made at once: no collector pass among them (they are alive, not
        garbage), one at rest a moment after."""
        screen = self._screen
        screen.gc_policy.pause(GcPolicy.HISTORY)
        screen.transcript.load_history(records)
        screen.gc_policy.resume(
            lambda collect: screen.set_timer(timing.GC_HISTORY_AT_REST, collect, name="history-at-rest"),
            GcPolicy.HISTORY,
        )

    def in_thread(self, work: Callable[[], object], *, group: str, exclusive: bool = False) -> None:
        self._screen.run_worker(work, thread=True, group=group, exclusive=exclusive, exit_on_error=False)

    def from_thread(self, callback: Callable[..., object], *args: object) -> None:
        try:
            self._screen.app.call_from_thread(callback, *args)
        except RuntimeError:  # the app is closing
            pass

    def drain(self) -> None:
        self._screen.pipeline.drain()

    def config_problems(self) -> list[str]:
        return [str(problem) for problem in getattr(self._screen.app, "problems", [])]

    def request_theme(self, name: str) -> None:
        self._screen.request_theme(name)

    def submit(self, text: str) -> None:
        self._screen.submit(text)

    def quit(self) -> None:
        self._screen.call_later(self._screen.app.action_quit)

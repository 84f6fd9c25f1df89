"""The chat's layout (transcript above, queue, attachments, prompt and status bar docked below), and the
screen that shows it while the configuration is still being read.

`ChatLayout` is the one place the layout is defined: `ChatScreen` fills it with the real transcript and the
engine; `StartingScreen` fills it with an empty area, so the first frame of a fast start
(`hermes_tui.app.FastStart`) is the chat as it will look, drawn before pydantic, the store and the agent are
imported. Only light modules here: this is imported before the first frame.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.reactive import reactive
from textual.screen import Screen

from hermes_tui.commands import new_registry
from hermes_tui.startup_snapshot import StartupSnapshot
from widgets.attachment_bar import AttachmentBar
from widgets.prompt.input import PromptBar, PromptInput
from widgets.queued_messages import QueuedMessages
from widgets.status_bar import ContextUse, StatusBar, Usage


class ChatLayout(Screen[None]):
    """The layout, and the state the status bar shows: reactives the bar is bound to (`data_bind`), set by
    whoever knows (the controller's busy through the view, the turn's usage, the commands' model, permission
    mode (YOLO is its yolo) and reasoning level, the queue's hint)."""

    busy: reactive[bool] = reactive(False)
    model: reactive[str] = reactive("")
    yolo: reactive[bool] = reactive(False)
    mode: reactive[str] = reactive("default")
    reasoning: reactive[str] = reactive("")
    hint: reactive[str] = reactive("")
    where: reactive[str] = reactive("")
    context_use: reactive[ContextUse] = reactive(ContextUse())
    usage: reactive[Usage] = reactive(Usage())

    DEFAULT_CSS = """
    ChatLayout {
        layout: vertical;
        background: $background;
    }
    ChatLayout #transcript {
        height: 1fr;
    }
    ChatLayout #bottom {
        height: auto;
        dock: bottom;
    }
    """

    def compose_bottom(self, *, prompt_symbol: str, model: str, clock: Callable[[], float]) -> ComposeResult:
        self.set_reactive(ChatLayout.model, model)
        with Vertical(id="bottom"):
            yield QueuedMessages(id="queued")
            yield AttachmentBar(id="attachments")
            yield PromptBar(commands=new_registry().completions(), prompt_symbol=prompt_symbol, id="prompt")
            yield StatusBar(model, clock=clock, id="status").data_bind(
                ChatLayout.busy,
                ChatLayout.model,
                ChatLayout.yolo,
                ChatLayout.mode,
                ChatLayout.reasoning,
                ChatLayout.hint,
                ChatLayout.where,
                ChatLayout.context_use,
                ChatLayout.usage,
            )


class StartingScreen(ChatLayout):
    """The chat before its configuration is read: the prompt has focus, and what is typed waits in the
    app's key order (`HermesApp`) for the chat screen that replaces this one a moment later."""

    def __init__(self, snapshot: StartupSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot

    def compose(self) -> ComposeResult:
        yield Vertical(id="transcript")
        yield from self.compose_bottom(
            prompt_symbol=self.snapshot.prompt_symbol, model=self.snapshot.model, clock=time.monotonic
        )

    def on_mount(self) -> None:
        self.query_one(PromptInput).focus()

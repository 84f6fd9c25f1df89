"""The chat screen: transcript, question cards, queue, prompt and status bar, wired to the agent.

Data flows one way: keys -> this screen -> the agent (calls, in a thread worker); the agent -> the bridge ->
this screen -> the turn view -> widgets (events). The worker thread never touches a widget.

This module composes and forwards. The turn's lifecycle (busy, the queue, steering, interrupts, the end of
a turn, questions held while the user types) is `hermes_tui.chat.controller.ChatController`, which answers
through `hermes_tui.chat.view`; the slash commands are objects in `hermes_tui.commands`, run with a
`hermes_tui.chat.context.ScreenCommandContext` (keys, `/name` and the palette run the same objects); events
become widgets in `hermes_tui.chat.turn_view`, brought over by `hermes_tui.chat.pipeline`; the agent's
lifecycle (new, resume, model switch) is `hermes_tui.chat.session`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.worker import Worker, WorkerState

from agent.api import Settings, TurnFinished
from hermes_tui import textual_compat
from hermes_tui.chat.appearance import apply_display_settings, apply_flavour
from hermes_tui.chat.attachments import Attachments
from hermes_tui.chat.bridge import ApprovalAsked, ClarifyAsked, EventsReady, UIBridge
from hermes_tui.chat.context import ScreenCommandContext
from hermes_tui.chat.controller import ChatController
from hermes_tui.chat.environment import open_environment
from hermes_tui.chat.layout import ChatLayout
from hermes_tui.chat.pipeline import EventPipeline
from hermes_tui.chat.plan_offer import PlanOffer
from hermes_tui.chat.questions import QuestionPresenter
from hermes_tui.chat.session import SessionService
from hermes_tui.chat.shell import ShellRunner
from hermes_tui.chat.turn_view import TurnView
from hermes_tui.chat.view import DEMO_CUE, ScreenEngine, ScreenView, redirect_typing, welcome_line
from hermes_tui.commands import Command, CommandRegistry, new_registry
from hermes_tui.commands.image import paste_image
from hermes_tui.commands.learning import refresh_skill_commands, skill_or_unknown
from hermes_tui.commands.modes import cycle_mode, show_mode
from hermes_tui.commands.plugins import plugins_loaded
from hermes_tui.commands.quick import quick_commands_loaded
from hermes_tui.commands.session import open_session
from hermes_tui.crash_log import raise_if_asked
from hermes_tui.editor import edit_prompt
from hermes_tui.file_completion import FileCompletion
from hermes_tui.first_frame import after_first_frame
from hermes_tui.gc_policy import GcPolicy, policy_of
from hermes_tui.prompt_history import load_prompt_history
from hermes_tui.tool_icons import ToolIcons
from themes.apply import ThemeFlavourChanged
from themes.model import ThemeSpec
from widgets.attachment_bar import AttachmentBar
from widgets.cards.plan import PlanCard
from widgets.clarify_prompt import ClarifyPrompt
from widgets.prompt.input import PromptBar, PromptInput
from widgets.queued_messages import QueuedMessages
from widgets.status_bar import StatusBar
from widgets.support import timing
from widgets.transcript.view import Transcript

if TYPE_CHECKING:
    from agent.api import Agent, SessionStoreProtocol, TurnResult

QUIT_WAIT_S = timing.QUIT_WAIT
APP_KEYS = frozenset({"ctrl+q"})  # bound by the app (a priority binding), not by this screen


class ChatScreen(ChatLayout):
    AUTO_FOCUS = "#prompt-input"
    """The prompt has the focus when the chat is shown. Textual's default focuses the first focusable widget
    (the transcript) and `on_mount`'s focus then moved it: two restyles of the transcript and its 74
    component styles, a third of a start's styling CPU. (Not on `ChatLayout`: on the starting screen it
    made the launch to a ready prompt 0.27 -> 1.05 s, `benchmarks/startup.py`.)"""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "ctrl_c", "Interrupt / clear / quit", show=False, priority=True),
        # The commands' keys (`Command.key`) run the same objects as their `/name` (`action_command`).
        Binding("ctrl+r", "command('sessions')", "Sessions", show=False),
        Binding("ctrl+n", "command('new')", "New session", show=False),
        Binding("ctrl+l", "command('clear')", "Clear", show=False),
        Binding("f1", "command('help')", "Help", show=False),
        Binding("end", "scroll_latest", "Latest", show=False),
        Binding("ctrl+g", "edit_prompt", "Edit in $EDITOR", show=False),
        Binding("ctrl+o", "toggle_panel", "Expand/collapse a tool panel", show=False),
        Binding("ctrl+t", "toggle_turn_panels", "Expand/collapse the turn's panels", show=False),
        # Claude Code's mode key, wherever the focus is on the chat (it used to move the focus back, to the
        # queue: that is Alt+Up now).
        Binding("shift+tab", "cycle_mode", "Permission mode", show=False, priority=True),
        Binding("alt+up", "focus_queue", "Queued messages", show=False),
    ]

    # Injectable for deterministic snapshots: the status bar's clock and frozen question countdowns.
    STATUS_CLOCK: ClassVar[Callable[[], float]] = time.monotonic
    FREEZE_QUESTIONS: ClassVar[bool] = False

    class PromptReady(Message):
        """The prompt has focus (posted once, from `on_mount`): keys typed before it can be delivered."""

    class ThemeRequested(Message):
        """`/theme [NAME]`: the app owns the themes, so the screen asks it (empty name: the picker)."""

        def __init__(self, theme: str) -> None:
            super().__init__()
            self.theme = theme

    class FilesListed(Message):
        """The working tree's listing for `@` completion is ready (posted from the listing thread)."""

    def __init__(
        self,
        settings: Settings,
        *,
        store: SessionStoreProtocol,
        resume_id: str | None = None,
        flavour: ThemeSpec | None = None,
        first_message: str | None = None,
        images: Sequence[str] = (),
        demo: bool = False,
    ) -> None:
        super().__init__()
        textual_compat.install()  # the fixes for the transcript's widgets, imported with this screen
        self._demo = demo
        self._first_message = first_message
        self._first_images = tuple(images)  # `--image FILE`: attached before the first message
        self.store = store
        self.resume_id = resume_id
        self.bridge = UIBridge(self)
        self.session = SessionService(settings, ui=self.bridge, store=store)
        self._flavour = flavour
        self.turn_worker: Worker[TurnResult] | None = None
        self._turn_view: TurnView | None = None
        self._pipeline: EventPipeline | None = None
        self._file_paths = FileCompletion(lambda: Path(self.settings.cwd), self._files_listed)
        self.shell = ShellRunner(
            self.bridge, cwd=lambda: Path(self.settings.cwd), hermes_home=settings.hermes_home
        )
        self._attachments: Attachments | None = None
        self._controller: ChatController | None = None
        self.commands: CommandRegistry = new_registry()  # built-ins; the session's plugins and skills join
        self.command_context = ScreenCommandContext(self)
        self.tool_icons = ToolIcons()
        self.questions = QuestionPresenter(self)
        self.plan_offer = PlanOffer(self, self.command_context)

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Transcript(id="transcript")
        symbol = self._flavour.prompt_symbol if self._flavour is not None else "❯"
        yield from self.compose_bottom(
            prompt_symbol=symbol, model=self.settings.model, clock=type(self).STATUS_CLOCK
        )

    @property
    def settings(self) -> Settings:
        return self.session.settings

    @property
    def agent(self) -> Agent:
        return self.session.agent

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    @property
    def status_bar(self) -> StatusBar:
        return self.query_one(StatusBar)

    @property
    def prompt_input(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def controller(self) -> ChatController:
        """The turn's lifecycle; made on first use (its queue is a widget of this screen)."""
        if self._controller is None:
            queue = self.query_one(QueuedMessages)
            self._controller = ChatController(ScreenView(self), ScreenEngine(self), queue, self.gc_policy)
        return self._controller

    @property
    def attachments(self) -> Attachments:
        """The images that go with the next message (badges above the prompt)."""
        if self._attachments is None:
            bar = self.query_one(AttachmentBar)
            self._attachments = Attachments(
                bar, self.settings.hermes_home, Path(self.settings.cwd), self.transcript.add_notice
            )
        return self._attachments

    @property
    def gc_policy(self) -> GcPolicy:
        """The app's collector policy: paused for each turn and history load, one collection at rest."""
        return policy_of(self.app)

    @property
    def pipeline(self) -> EventPipeline:
        """The agent's events from the bridge to the widgets (`hermes_tui.chat.pipeline`)."""
        if self._pipeline is None:
            self._pipeline = EventPipeline(
                self.bridge,
                self.transcript.pacer,
                lambda: self.turn_view,
                busy=lambda: self.busy,
                report=self.log.error,
            )
        return self._pipeline

    @property
    def turn_view(self) -> TurnView:
        if self._turn_view is None:
            self._turn_view = TurnView(self.transcript, self, on_turn_finished=self._turn_finished)
        return self._turn_view

    def on_mount(self) -> None:
        self.pipeline.start()
        if self._flavour is not None:
            self._apply_flavour(self._flavour)
        apply_display_settings(self.settings, self, self.transcript)
        if self.resume_id:
            # Before anything builds an agent: it builds the resumed one.
            open_session(self.command_context, self.resume_id)
            self._engine_ready()
        else:
            self._welcome()
            # The engine (agent, tools, plugins, skills) is not needed to show the prompt: build it right
            # after the first frame. Keys typed meanwhile wait in Textual's queue, in order.
            after_first_frame(self, self._engine_ready)
        if self.store.read_only:  # browsing and search work; sending says why not
            self.transcript.add_notice("warn", self.store.read_only)
        self.prompt_input.file_source = self._file_paths
        self.prompt_input.prompt_history = load_prompt_history(self.settings)
        self.prompt_input.paste_handler = self._take_paste
        self.prompt_input.queue_source = self.query_one(QueuedMessages).take_last
        self.prompt_input.focus()
        first, self._first_message = self._first_message, None  # sent once its images (--image) are attached
        self.post_message(self.PromptReady())  # reaches the app after the focus it just asked for
        send = (lambda: self.call_after_refresh(self.submit, first)) if first else None
        self.attachments.add((Path(name) for name in self._first_images), then=send)
        self._first_images = ()

    def _engine_ready(self) -> None:
        show_mode(self.command_context.status, self.agent.permission_mode)
        plugins_loaded(self.command_context)
        refresh_skill_commands(self.command_context)
        quick_commands_loaded(self.command_context, self.settings)
        open_environment(self.command_context)  # terminal.backend's container or connection, in a worker

    def _files_listed(self) -> None:
        self.post_message(self.FilesListed())  # from the listing thread: post_message is thread-safe

    def on_chat_screen_files_listed(self, message: FilesListed) -> None:
        self.prompt_input.refresh_completions()

    def _welcome(self) -> None:
        self.transcript.add_notice("info", welcome_line(self.settings.model, str(self.settings.cwd)))
        if self._demo:
            self.transcript.add_notice("info", DEMO_CUE)

    def on_unmount(self) -> None:
        self.bridge.close()
        self.session.interrupt()
        self.session.stop_background()

    def on_theme_flavour_changed(self, message: ThemeFlavourChanged) -> None:
        self._flavour = message.spec
        self._apply_flavour(message.spec)

    def _apply_flavour(self, spec: ThemeSpec) -> None:
        """A theme's Hermes flavour: spinner faces and verbs, the prompt symbol, tool icons."""
        self.show_tool_icons(apply_flavour(spec, self.transcript, self.query_one(PromptBar), self.tool_icons))

    def show_tool_icons(self, icons: ToolIcons) -> None:
        """The icon table (the theme's and the session's plugins') for the panels shown and to come."""
        self.tool_icons = icons
        self.transcript.set_tool_icons(icons.table())

    def request_theme(self, name: str) -> None:
        self.post_message(self.ThemeRequested(name))

    # ------------------------------------------------------------------ input and commands
    @on(PromptInput.Submitted)
    def _on_submitted(self, message: PromptInput.Submitted) -> None:
        self.submit(message.text)

    def submit(self, text: str) -> None:
        """What Enter does with the prompt's text: a slash command, else a message (the controller's)."""
        if not text.strip():
            return
        raise_if_asked(text)  # the crash test's hidden hook (`hermes_tui.crash_log.DEBUG_RAISE`)
        if self.attachments.add_pasted(text):
            return  # a typed or dropped image path: attached, not sent
        command, arg, typed = self.commands.parse(text)
        if command is not None:
            self.run_command(command, arg)
        elif typed and not text.strip().startswith("/ ") and typed not in self.commands.skills:
            skill_or_unknown(self.command_context, text, typed, self.controller.submit)
        else:
            self.plan_offer.withdraw()  # answered by writing: plan mode stays
            self.controller.submit(text)

    def run_command(self, command: Command, arg: str = "") -> None:
        """Run a command (from `/name`, the palette or a key) with this chat's context."""
        command.run(self.command_context, arg)

    def action_command(self, name: str, arg: str = "") -> None:
        """A key bound to a command (`command('new')`) runs the same object as `/new`."""
        if (command := self.commands.find(name)) is not None:
            self.run_command(command, arg)

    def on_paste(self, event: events.Paste) -> None:
        """A paste made with the focus outside the prompt (the transcript, a tool entry, the status bar)
        goes to the prompt, as typing does (`redirect_typing`): what the user pastes is never lost."""
        event.stop()
        self.prompt_input.paste(event.text)

    def _take_paste(self, text: str) -> bool:
        """The prompt's `paste_handler`: an image path dropped on the terminal is attached, an empty paste
        looks for an image on the clipboard; True when taken (not inserted as text)."""
        if not text.strip():
            paste_image(self.command_context)  # an empty paste: the clipboard may hold an image
            return True
        return self.attachments.add_pasted(text)

    @on(AttachmentBar.RemoveRequested)
    def _on_remove_attachment(self, message: AttachmentBar.RemoveRequested) -> None:
        self.attachments.remove(message.index)
        self.prompt_input.focus()

    @on(QueuedMessages.EditRequested)
    def _on_edit_queued(self, message: QueuedMessages.EditRequested) -> None:
        self.prompt_input.set_text(message.text)
        self.prompt_input.focus()

    @on(QueuedMessages.Changed)
    def _on_queue_changed(self, message: QueuedMessages.Changed) -> None:
        self.hint = message.queued_messages.hint()

    @on(QueuedMessages.SteerRequested)
    def _on_steer_queued(self, message: QueuedMessages.SteerRequested) -> None:
        self.controller.steer(message.text)

    @on(PromptInput.EmptyEnter)
    def _on_empty_enter(self, message: PromptInput.EmptyEnter) -> None:
        self.controller.empty_enter()

    # ------------------------------------------------------------------ the turn's events
    def on_events_ready(self, message: EventsReady) -> None:
        self.pipeline.woken()

    def _turn_finished(self, event: TurnFinished) -> None:
        self.controller.turn_finished(event.exit_reason, event.pending_steer)
        self.plan_offer.turn_finished(event)
        refresh_skill_commands(self.command_context)  # the turn may have made or removed one

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self.turn_worker and event.state == WorkerState.ERROR:
            self.controller.turn_failed(event.worker.error)

    def on_clarify_asked(self, message: ClarifyAsked) -> None:
        self.pipeline.drain()
        self.questions.clarify(message)

    @on(ClarifyPrompt.Answered)
    def _on_clarify_answered(self, message: ClarifyPrompt.Answered) -> None:
        self.controller.close_clarify(message.answer)

    def on_approval_asked(self, message: ApprovalAsked) -> None:
        self.pipeline.drain()
        self.questions.approval(message)

    async def finish_turn(self, timeout: float = QUIT_WAIT_S) -> None:
        """Before quitting mid-turn: interrupt it and wait (a few seconds at most) for the loop to finalize
        it, so the reply is kept as interrupted and the session says so; a clean quit must never look like
        a crash (a partial reply, a session still "active")."""
        worker = self.turn_worker
        if worker is None or worker.is_finished:
            return
        self.controller.stop_for_quit()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(worker.wait(), timeout)

    # ------------------------------------------------------------------ keys
    def action_interrupt(self) -> None:
        """Escape: back to the prompt from anywhere in the chat, and stop what runs (or skip the question)."""
        if self.app.focused is not self.prompt_input and self.app.screen is self:
            self.prompt_input.focus()
        self.controller.interrupt()

    def action_ctrl_c(self) -> None:
        if self.app.screen is self:
            self.controller.ctrl_c()

    def on_key(self, event: events.Key) -> None:
        redirect_typing(event, self.app.focused, self.prompt_input, self.transcript, self.active_bindings)

    @on(PromptInput.ScrollTranscript)
    def _scroll_transcript(self, message: PromptInput.ScrollTranscript) -> None:
        """PageUp/PageDown and Ctrl+Home/Ctrl+End scroll the transcript while the prompt has the focus."""
        self.transcript.go(message.where)

    def action_toggle_panel(self) -> None:
        """Ctrl+O: the tool panel in focus, else the latest one (not bound by the prompt, so it yields
        to a prompt binding of the same key, e.g. one for a paste under the cursor)."""
        self.transcript.toggle_panel()

    def action_toggle_turn_panels(self) -> None:
        """Ctrl+T: expand every tool panel of the last turn, or collapse them all if all are open."""
        self.transcript.toggle_last_turn_panels()

    def on_plan_card_chosen(self, message: PlanCard.Chosen) -> None:
        self.plan_offer.chosen(message)

    def action_cycle_mode(self) -> None:
        """Shift+Tab: the next permission mode (`hermes_tui.commands.modes.cycle_mode`)."""
        cycle_mode(self.command_context)

    def action_focus_queue(self) -> None:
        """Alt+Up: to the queued messages (e edit, x remove, s steer now; Tab back), when there are any."""
        queue = self.query_one(QueuedMessages)
        if queue.items:
            queue.focus()

    def action_scroll_latest(self) -> None:
        self.transcript.scroll_to_latest()

    def action_edit_prompt(self) -> None:
        """Ctrl+G: edit the prompt in $VISUAL/$EDITOR; the app is suspended meanwhile."""
        edit_prompt(self.app, self.prompt_input)

"""The chat screen: transcript, question cards, queue, prompt and status bar, wired to the agent.

Data flows one way: keys -> this screen -> the agent (calls, in a thread worker); the agent -> the bridge ->
this screen -> the turn view -> widgets (events). The worker thread never touches a widget.

What lives elsewhere: events become widgets in `hermes_tui.turn_view`, the agent's lifecycle (new, resume,
model switch) is `hermes_tui.session_service`, the bell and desktop notifications `hermes_tui.notifications`,
`/export` `hermes_tui.export_flow`. This module composes them and keeps the turn's lifecycle (busy, the
queue, steering) and the slash commands, each a `ChatScreen.action_*` (keys, `/command` and the palette
run the same code).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.worker import Worker, WorkerState

from agent.config import Settings
from agent.events import TurnFinished
from agent.file_tree import FileIndex
from agent.mentions import badge_line, expand_mentions, with_attached
from agent.model_catalog import ModelCatalog, closest_models, load_catalog
from agent.path_match import rank_paths
from agent.ui import ApprovalAnswer, ApprovalDecision
from hermes_tui import commands, learning_actions, textual_compat
from hermes_tui.attachments import Attachments
from hermes_tui.bridge import ApprovalAsked, ClarifyAsked, EventsReady, UIBridge
from hermes_tui.event_pipeline import EventPipeline
from hermes_tui.export_flow import ExportFlow
from hermes_tui.first_frame import after_first_frame
from hermes_tui.gc_policy import GcPolicy, policy_of
from hermes_tui.history import records_from_messages
from hermes_tui.notifications import request_attention
from hermes_tui.plugin_commands import plugin_commands, run_plugin_command
from hermes_tui.screens.chat_layout import ChatLayout
from hermes_tui.session_service import SessionService
from hermes_tui.shell_mode import ShellRun, ShellRunner, shell_command
from hermes_tui.turn_view import TurnView
from themes.apply import ThemeFlavourChanged
from themes.model import ThemeSpec
from widgets import timing
from widgets.approval_dialog import ApprovalDialog
from widgets.assistant_message import AssistantMessage
from widgets.attachment_bar import AttachmentBar
from widgets.clarify_prompt import ClarifyPrompt
from widgets.prompt_input import PromptBar, PromptInput
from widgets.queued_messages import QueuedMessages
from widgets.status_bar import StatusBar
from widgets.tool_panel import ToolPanel
from widgets.transcript import Transcript

if TYPE_CHECKING:
    from agent.images import ImageRef
    from agent.loop import Agent, TurnResult
    from agent.store import SessionStoreProtocol
    from hermes_tui.screens.sessions import SessionsResult

_DEFAULT_TOOL_ICONS = dict(ToolPanel.ICONS)
DOUBLE_CTRL_C = timing.DOUBLE_CTRL_C
QUIT_WAIT_S = timing.QUIT_WAIT


class ChatScreen(ChatLayout):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "ctrl_c", "Interrupt / clear / quit", show=False, priority=True),
        Binding("ctrl+r", "sessions", "Sessions", show=False),
        Binding("ctrl+n", "new_session", "New session", show=False),
        Binding("ctrl+l", "clear_screen", "Clear", show=False),
        Binding("f1", "help", "Help", show=False),
        Binding("end", "scroll_latest", "Latest", show=False),
        Binding("ctrl+g", "edit_prompt", "Edit in $EDITOR", show=False),
        Binding("ctrl+o", "toggle_panel", "Expand/collapse a tool panel", show=False),
        Binding("ctrl+t", "toggle_turn_panels", "Expand/collapse the turn's panels", show=False),
    ]

    # Injectable for deterministic snapshots: the status bar's clock and frozen question countdowns.
    STATUS_CLOCK: ClassVar[Callable[[], float]] = time.monotonic
    FREEZE_QUESTIONS: ClassVar[bool] = False
    TYPING_PAUSE: ClassVar[float] = timing.TYPING_PAUSE

    class PromptReady(Message):
        """The prompt has focus (posted once, from `on_mount`): keys typed before it can be delivered."""

    class ThemeRequested(Message):
        """`/theme [NAME]`: the app owns the themes, so the screen asks it (empty name: the picker)."""

        def __init__(self, theme: str) -> None:
            super().__init__()
            self.theme = theme

    def __init__(
        self,
        settings: Settings,
        *,
        store: SessionStoreProtocol,
        resume_id: str | None = None,
        flavour: ThemeSpec | None = None,
        first_message: str | None = None,
        images: Sequence[str] = (),
    ) -> None:
        super().__init__()
        textual_compat.install()  # the fixes for the transcript's widgets, imported with this screen
        self._first_message = first_message
        self._first_images = tuple(images)  # `--image FILE`: attached before the first message
        self.store = store
        self.resume_id = resume_id
        self.bridge = UIBridge(self)
        self.session = SessionService(settings, ui=self.bridge, store=store)
        self.busy = False
        self._flavour = flavour
        self._worker: Worker[TurnResult] | None = None
        self._turn_view: TurnView | None = None
        self._pipeline: EventPipeline | None = None
        self._last_ctrl_c = 0.0
        self._clarify: ClarifyPrompt | None = None
        self._clarify_future: concurrent.futures.Future[str | None] | None = None
        self._interrupting = False
        self._file_index: FileIndex | None = None
        self.shell = ShellRunner(
            self.bridge, cwd=lambda: Path(self.settings.cwd), hermes_home=settings.hermes_home
        )
        self.skill_commands: dict[str, str] = {}  # enabled skills' slash commands -> description
        self._attachments: Attachments | None = None
        self.plugin_commands: dict[str, str] = {}  # Hermes plugins' slash commands -> description

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
        """The agent's events from the bridge to the widgets (`hermes_tui.event_pipeline`)."""
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
            self._turn_view = TurnView(self.transcript, self.status_bar, on_turn_finished=self._turn_finished)
        return self._turn_view

    def on_mount(self) -> None:
        self.pipeline.start()
        if self._flavour is not None:
            self._apply_flavour(self._flavour)
        self.status_bar.set_yolo(self.settings.yolo)
        if self.resume_id:
            self.open_session(self.resume_id)  # before anything builds an agent: it builds the resumed one
            self._engine_ready()
        else:
            self._welcome()
            # The engine (agent, tools, plugins, skills) is not needed to show the prompt: build it right
            # after the first frame. Keys typed meanwhile wait in Textual's queue, in order.
            after_first_frame(self, self._engine_ready)
        if self.store.read_only:  # browsing and search work; sending says why not
            self.transcript.add_notice("warn", self.store.read_only)
        self.transcript.expand_diffs = self.settings.expand_diffs
        self.prompt_input.file_source = self._file_paths
        self.prompt_input.paste_handler = self._on_paste
        self.prompt_input.queue_source = self.query_one(QueuedMessages).take_last
        self.prompt_input.focus()
        if self._first_images:
            self.attachments.add(Path(name) for name in self._first_images)
            self._first_images = ()
        self.post_message(self.PromptReady())  # reaches the app after the focus it just asked for
        if self._first_message:
            self.call_after_refresh(self.submit, self._first_message)
            self._first_message = None

    def _engine_ready(self) -> None:
        self.status_bar.set_yolo(self.agent.yolo)
        self._plugins_loaded()
        learning_actions.refresh_skill_commands(self)

    class FilesListed(Message):
        """The working tree's listing for `@` completion is ready (posted from the listing thread)."""

    def _file_paths(self, query: str) -> list[str]:
        """`@` completion: the working tree's paths best first (listed in the background, then cached)."""
        if self._file_index is None or self._file_index.root != Path(self.settings.cwd):
            self._file_index = FileIndex(Path(self.settings.cwd), on_ready=self._files_listed)
        return rank_paths(query, self._file_index.paths())

    def _files_listed(self) -> None:
        self.post_message(self.FilesListed())  # from the listing thread: post_message is thread-safe

    def on_chat_screen_files_listed(self, message: FilesListed) -> None:
        self.prompt_input.refresh_completions()

    def _welcome(self) -> None:
        """One calm line so an empty screen still says where you are and how to get help."""
        cwd = str(self.settings.cwd)
        home = str(Path.home())
        if cwd == home or cwd.startswith(home + "/"):
            cwd = "~" + cwd[len(home) :]
        self.transcript.add_notice(
            "info",
            f"{self.settings.model} · {cwd} · / for commands · Ctrl+R sessions · F1 help · Esc interrupts",
        )

    def on_unmount(self) -> None:
        self.bridge.close()
        self.session.interrupt()
        self.session.stop_background()

    def on_theme_flavour_changed(self, message: ThemeFlavourChanged) -> None:
        self._flavour = message.spec
        self._apply_flavour(message.spec)

    def _apply_flavour(self, spec: ThemeSpec) -> None:
        """A theme's Hermes flavour: spinner faces and verbs, the prompt symbol, tool icons."""
        spinner = self.transcript.spinner
        if spec.spinner.faces:
            spinner.faces = tuple(spec.spinner.faces)
        if spec.spinner.verbs:
            spinner.verbs = tuple(spec.spinner.verbs)
        if spec.prompt_symbol:
            self.query_one(PromptBar).prompt_symbol = spec.prompt_symbol
        # Icons are a class-level table: rebuild it from the defaults so themes never accumulate.
        ToolPanel.ICONS = {**_DEFAULT_TOOL_ICONS, **spec.tool_icons}

    # ------------------------------------------------------------------ input
    @on(PromptInput.Submitted)
    def _on_submitted(self, message: PromptInput.Submitted) -> None:
        self.submit(message.text)

    def submit(self, text: str) -> None:
        """What Enter does with the prompt's text: a slash command, a queued message, or a new turn."""
        if not text.strip():
            return
        if self.attachments.add_pasted(text):
            return  # a typed or dropped image path: attached, not sent
        command, arg, typed = commands.parse(text)
        if command is not None:
            self.run_slash(command, arg)
            return
        if typed in self.plugin_commands and not text.strip().startswith("/ "):
            run_plugin_command(self.app, self.agent.plugins, typed, arg, self.transcript.add_notice)
            return
        if typed and not text.strip().startswith("/ ") and typed not in self.skill_commands:
            self.transcript.add_notice("warn", f"Unknown command /{typed}. Type /help for the list.")
            return
        if self.store.read_only:
            self.transcript.add_notice("error", f"Not sent: {self.store.read_only}")
            return
        if self.busy and len(self.attachments):
            self.prompt_input.set_text(text)
            self.transcript.add_notice("warn", "A turn is running: send the message and its images after it.")
            return
        if self.busy:
            self.query_one(QueuedMessages).add(text)
            return
        if (shell := shell_command(self.prompt_input.pastes.expand(text))) is not None:
            self.run_shell(shell, text)
            return
        self.send(text, self.attachments.take())

    def run_shell(self, command: str, typed: str) -> None:
        """`!command`: run it in the user's shell now; its output goes with the next message."""
        self.transcript.add_user(typed)
        self._set_busy(True)
        self.turn_view.start_turn()

        def done(run: ShellRun) -> None:
            try:
                self.app.call_from_thread(self._shell_done, run)
            except RuntimeError:  # the app is closing
                pass

        self.shell.start(command, done)

    def _shell_done(self, run: ShellRun) -> None:
        self._drain()
        self.transcript.add_notice("info", "Its output goes with your next message.")
        self._end_turn()

    @on(QueuedMessages.EditRequested)
    def _on_edit_queued(self, message: QueuedMessages.EditRequested) -> None:
        self.prompt_input.set_text(message.text)
        self.prompt_input.focus()

    @on(QueuedMessages.Changed)
    def _on_queue_changed(self, message: QueuedMessages.Changed) -> None:
        self.status_bar.set_hint(message.queued_messages.hint())

    @on(QueuedMessages.SteerRequested)
    def _on_steer_queued(self, message: QueuedMessages.SteerRequested) -> None:
        self.action_steer(message.text)

    def run_slash(self, command: commands.SlashCommand, arg: str) -> None:
        """Run a slash command's action (`action_<name>`, with the argument when it takes one)."""
        handler = getattr(self, f"action_{command.action}", None)
        if handler is None:
            self.transcript.add_notice("warn", f"/{command.name} is not available yet.")
            return
        if command.takes_argument:
            handler(arg)
        else:
            handler()

    # ------------------------------------------------------------------ the turn
    def send(self, text: str, images: tuple[ImageRef, ...] = ()) -> None:
        """Start a turn. The app persists nothing itself: the agent does. What `!` commands printed since
        the last message and what `@` mentions name are attached to it (the model and the store get them;
        the transcript shows what was typed and a badge line); `images` go with it as image parts. Paste
        tokens (`[Pasted #1: 214 lines]`, also in queued messages) become the full pastes here."""
        text = self.prompt_input.pastes.expand(text)
        self.transcript.add_user(text, [ref.label() for ref in images])
        context = self.shell.take_context()
        labels = [label for label, _ in context]
        blocks = [block for _, block in context]
        if "@" in text:
            expansion = expand_mentions(text, Path(self.settings.cwd))
            attached = [a for a in expansion.attachments if a.block]
            blocks += [a.block for a in attached]
            labels += [a.label for a in attached]
            for problem in expansion.problems:
                self.transcript.add_notice("warn", problem)
        if labels:
            self.transcript.add_notice("info", badge_line(labels))
        wire_text = with_attached(text, blocks)
        self.transcript.scroll_to_latest()
        self._set_busy(True)
        self.turn_view.start_turn()
        self._worker = self._run_turn(wire_text, images)

    @work(thread=True, exclusive=True, group="agent", exit_on_error=False)
    def _run_turn(self, text: str, images: tuple[ImageRef, ...]) -> TurnResult:
        return self.agent.run_conversation(text, images)

    # ------------------------------------------------------------------ attachments
    def action_image(self, arg: str = "") -> None:
        """`/image FILE...` attaches images to the next message; `--paste` the clipboard's; `clear` all."""
        arg = arg.strip()
        if arg == "clear":
            self.attachments.clear()
        elif arg in ("--paste", "paste"):
            self._paste_image()
        elif arg:
            self.attachments.add_typed(arg)
        else:
            attached = ", ".join(ref.name for ref in self.attachments.refs) or "none"
            self.transcript.add_notice(
                "info",
                f"Attached: {attached}. /image FILE attaches one (or paste its path), /image --paste "
                "the clipboard's, /image clear removes them; click a badge to remove it.",
            )

    def _on_paste(self, text: str) -> bool:
        if not text.strip():
            self._paste_image()  # an empty paste: the terminal had no text, the clipboard may hold an image
            return True
        return self.attachments.add_pasted(text)

    @work(thread=True, group="clipboard", exit_on_error=False)
    def _paste_image(self) -> None:
        from hermes_tui.clipboard import paste_image

        data, why = paste_image()
        self.app.call_from_thread(self._pasted_image, data, why)

    def _pasted_image(self, data: bytes | None, why: str) -> None:
        if data is None:
            self.transcript.add_notice("warn", f"No image pasted: {why}.")
        else:
            self.attachments.add([(data, "clipboard.png")])

    @on(AttachmentBar.RemoveRequested)
    def _on_remove_attachment(self, message: AttachmentBar.RemoveRequested) -> None:
        self.attachments.remove(message.index)
        self.prompt_input.focus()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is not self._worker or event.state != WorkerState.ERROR:
            return
        # A bug in the loop (never a provider error: those end the turn normally). No traceback on screen.
        self._drain()
        error = event.worker.error
        self._end_turn()
        self.transcript.add_notice(
            "error", f"Internal error: {type(error).__name__}: {error}. The session is saved; try again."
        )

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.status_bar.set_busy(busy)
        if busy:
            self.gc_policy.pause(GcPolicy.TURN)
            self._wake_drain()
        else:
            self.transcript.hide_spinner()
            self.gc_policy.resume(self._when_drawn, GcPolicy.TURN)

    def _when_drawn(self, callback: Callable[[], None]) -> None:
        """Run `callback` a moment after every reply's text is drawn (a burst's reply is still drawn in
        slices after its turn has ended). Not right after the frame: a collection holds the GIL, and the
        writer thread still had the last frame to send (last byte -> screen went from 0.05 to 0.4 s)."""
        if all(reply.is_drained for reply in self.transcript.entries_of(AssistantMessage)):
            self.set_timer(timing.GC_AFTER_DRAWN, callback, name="after-drawn")
        else:
            self.set_timer(timing.GC_DRAWN_POLL, lambda: self._when_drawn(callback), name="when-drawn")

    def on_events_ready(self, message: EventsReady) -> None:
        self.pipeline.woken()

    def _wake_drain(self) -> None:
        self.pipeline.wake()

    def _drain(self) -> None:
        self.pipeline.drain()

    def _turn_finished(self, event: TurnFinished) -> None:
        self._attention(
            "The turn has ended." if event.exit_reason == "completed" else f"Turn ended: {event.exit_reason}"
        )
        self._end_turn(event.pending_steer, stopped=event.exit_reason == "interrupted")

    def _end_turn(self, pending_steer: str | None = None, *, stopped: bool = False) -> None:
        interrupted = self._interrupting or stopped
        self._interrupting = False
        self._close_clarify(None)
        self._set_busy(False)
        if interrupted:
            self._hold_queue(pending_steer)
            return
        if pending_steer:
            # The turn ended before a safe point: the steer becomes the next message.
            self.transcript.add_notice(
                "info", "The turn ended before your steer could be delivered: sending it now."
            )
            self.send(pending_steer)
            return
        queued = self.query_one(QueuedMessages).pop_next()
        if queued is not None:
            self.submit(queued)
        elif self.app.screen is self:
            self.prompt_input.focus()

    def _hold_queue(self, pending_steer: str | None) -> None:
        """Esc means stop: after an interrupt nothing starts by itself. An undelivered steer joins the
        queue (first), and the queue waits for Enter on an empty prompt."""
        queue = self.query_one(QueuedMessages)
        if pending_steer:
            queue.add(pending_steer, first=True)
        if queue.items:
            count = len(queue.items)
            self.transcript.add_notice(
                "info",
                f"{count} queued message{'s' if count != 1 else ''} kept: Enter on an empty prompt sends "
                "the next.",
            )
        if self.app.screen is self:
            self.prompt_input.focus()

    @on(PromptInput.EmptyEnter)
    def _on_empty_enter(self, message: PromptInput.EmptyEnter) -> None:
        if self.busy:
            return
        queued = self.query_one(QueuedMessages).pop_next()
        if queued is not None:
            self.send(queued)

    def _attention(self, why: str) -> None:
        request_attention(self.app, self.settings.notify, why)

    # ------------------------------------------------------------------ questions
    def on_clarify_asked(self, message: ClarifyAsked) -> None:
        self._drain()
        self._close_clarify(None)
        card = ClarifyPrompt(message.request, frozen=self.FREEZE_QUESTIONS)
        self._clarify = card
        self._clarify_future = message.reply
        self._attention("Hermes is asking you a question.")

        def show() -> None:
            if self._clarify is card:  # not answered (interrupted, turn ended) while it waited
                self.query_one("#bottom").mount(card, before=self.query_one(QueuedMessages))

        self._when_typing_pauses(show, "Hermes has a question: it opens when you stop typing.")

    @on(ClarifyPrompt.Answered)
    def _on_clarify_answered(self, message: ClarifyPrompt.Answered) -> None:
        self._close_clarify(message.answer)

    def _close_clarify(self, answer: str | None) -> None:
        future, card = self._clarify_future, self._clarify
        self._clarify_future = None
        self._clarify = None
        if future is not None and not future.done():
            future.set_result(answer)
        if card is not None and card.is_attached:  # attached: mounted, or its mount still queued
            card.remove()
            if self.app.screen is self:
                self.prompt_input.focus()

    def on_approval_asked(self, message: ApprovalAsked) -> None:
        self._drain()

        dialog = ApprovalDialog(message.request, frozen=self.FREEZE_QUESTIONS)

        def decided(decision: ApprovalDecision | ApprovalAnswer | None) -> None:
            if dialog.interrupted:
                self.session.interrupt()  # before the denial reaches the loop
            if not message.reply.done():
                message.reply.set_result(decision or ApprovalDecision.DENY)
            if dialog.interrupted:
                self.interrupt_turn()

        if message.reply.done():
            return
        if self.settings.notify == "desktop":
            self._attention("A command is waiting for your approval.")  # the dialog itself rings the bell

        def show() -> None:
            if not message.reply.done():
                self.app.push_screen(dialog, decided)

        self._when_typing_pauses(show, "A command needs your approval: it opens when you stop typing.")

    def _when_typing_pauses(self, show: Callable[[], None], notice: str) -> None:
        """Questions never steal typing: one that arrives while the user types (a key in the last
        `TYPING_PAUSE` seconds) is announced (bell, notice) and shown once the keyboard has been quiet."""
        key_order = getattr(self.app, "key_order", None)
        if key_order is None or not key_order.typed_within(self.TYPING_PAUSE):
            show()
            return
        self.app.bell()
        self.notify(notice, timeout=3)

        def poll() -> None:
            if not key_order.typed_within(self.TYPING_PAUSE):
                timer.stop()
                show()

        timer = self.set_interval(timing.TYPING_POLL, poll, name="question-waits-for-a-pause")

    # ------------------------------------------------------------------ keys
    def action_interrupt(self) -> None:
        """Escape: back to the prompt from anywhere in the chat, and stop what runs (or skip the question)."""
        if self.app.focused is not self.prompt_input and self.app.screen is self:
            self.prompt_input.focus()
        if self._clarify is not None:
            self._close_clarify(None)
            return
        if self.shell.stop():
            self._interrupting = True  # a stop like any other: the queue waits
            return
        if self.busy:
            self.session.interrupt()
            if not self._interrupting:
                self._interrupting = True
                self.transcript.hide_spinner()

    def action_ctrl_c(self) -> None:
        if self.app.screen is not self:
            return
        if self.busy:
            self.interrupt_turn()
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < DOUBLE_CTRL_C:
            self.app.exit(0)
            return
        self._last_ctrl_c = now
        if self.prompt_input.text:
            self.prompt_input.clear()
        self.notify("Press Ctrl+C again to quit", timeout=DOUBLE_CTRL_C)

    def on_key(self, event: events.Key) -> None:
        """Typing never goes nowhere: a character that reached the screen unhandled (the focus is on a
        tool panel, the transcript...) goes to the prompt, which takes the focus back."""
        prompt = self.prompt_input
        focused = self.app.focused
        if not event.is_printable or event.character is None or focused is prompt:
            return
        if focused is not None and self.transcript not in focused.ancestors_with_self:
            return  # a question card's choices, the queue's keys: theirs
        event.stop()
        prompt.focus()
        prompt.insert(event.character)

    def interrupt_turn(self) -> None:
        """Ctrl+C while a turn runs: stop it, whatever it waits for. A pending question is answered
        "interrupted" (the flag is set first, so the loop cannot go on to the next tool meanwhile)."""
        self.session.interrupt()
        self.shell.stop()
        if self._clarify is not None:
            self._close_clarify(None)
        if not self._interrupting:
            self._interrupting = True
            self.transcript.hide_spinner()

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

    def action_scroll_latest(self) -> None:
        self.transcript.scroll_to_latest()

    def action_edit_prompt(self) -> None:
        """Ctrl+G: edit the prompt in $VISUAL/$EDITOR; the app is suspended meanwhile."""
        from textual.app import SuspendNotSupported

        from hermes_tui.editor import edit_text

        current = self.prompt_input.full_text  # the editor sees every paste in full
        try:
            with self.app.suspend():
                edited = edit_text(current)
        except SuspendNotSupported:
            self.notify("This terminal cannot hand over to an editor.", severity="warning")
            return
        if edited is None:
            self.notify(
                "No editor ran (set $EDITOR), or it failed: the prompt is unchanged.", severity="warning"
            )
            return
        self.prompt_input.set_text(self.prompt_input.pastes.collapse(edited))
        self.prompt_input.focus()

    # ------------------------------------------------------------------ commands: the running turn
    def action_steer(self, text: str = "") -> None:
        text = text.strip()
        if not text:
            self.transcript.add_notice(
                "info",
                "Usage: /steer TEXT (while a turn runs; it reaches the model after the current tools).",
            )
            return
        if not self.busy:
            self.send(text)
            return
        self.agent.steer(self.prompt_input.pastes.expand(text))
        self.transcript.add_notice("info", f"Steer queued for the running turn: {text}")

    def action_compress(self) -> None:
        """`/compress`: summarize the middle of the conversation now (a model call, in the worker)."""
        if self.busy:
            self.transcript.add_notice("warn", "A turn is running: compress after it ends.")
            return
        if not self.agent.messages:
            self.transcript.add_notice("info", "Nothing to compress yet.")
            return
        self._set_busy(True)
        self._compress_worker()

    @work(thread=True, exclusive=True, group="agent", exit_on_error=False)
    def _compress_worker(self) -> None:
        try:
            self.agent.compress_now()
        finally:
            self.app.call_from_thread(self._after_compress)

    def _after_compress(self) -> None:
        self._drain()
        self._set_busy(False)
        self.prompt_input.focus()

    def action_yolo(self) -> None:
        on = not self.agent.yolo
        self.agent.set_yolo(on)
        self.status_bar.set_yolo(on)
        if on:
            self.transcript.add_notice(
                "warn", "YOLO on: risky commands run without asking (hard-blocked ones stay blocked)."
            )
        else:
            self.transcript.add_notice("info", "YOLO off: risky commands ask for approval again.")

    def action_model(self, name: str = "") -> None:
        """`/model`: a picker of the provider's models; `/model NAME` switches, refusing a name the provider
        does not list (with the closest ones). When the list cannot be read, any name is taken."""
        name = name.strip()
        if self.busy:
            self.transcript.add_notice(
                "warn", "The model switches for the next turn: wait for this one to end."
            )
            return
        if not name:
            from hermes_tui.screens.model_picker import ModelPicker

            settings = self.settings
            picker = ModelPicker(settings.model, lambda: load_catalog(settings))
            self.app.push_screen(picker, lambda chosen: self.action_model(chosen) if chosen else None)
            return
        self._check_model(name)

    @work(thread=True, exclusive=True, group="model-check", exit_on_error=False)
    def _check_model(self, name: str) -> None:
        catalog = load_catalog(self.settings)
        self.app.call_from_thread(self._model_checked, name, catalog)

    def _model_checked(self, name: str, catalog: ModelCatalog) -> None:
        if not catalog.has(name):
            close = closest_models(name, catalog.models)
            hint = f" Closest: {', '.join(close)}." if close else ""
            self.transcript.add_notice(
                "warn", f"The provider has no model {name!r}.{hint} /model lists them all."
            )
            return
        if self.busy:
            self.transcript.add_notice("warn", "A turn started: switch the model when it ends.")
            return
        self.session.switch_model(name)
        self.status_bar.set_model(name)
        unchecked = "" if catalog.known else f" (not checked: {catalog.problem})"
        self.transcript.add_notice("info", f"Model switched to {name} for the next turn.{unchecked}")

    # ------------------------------------------------------------------ commands: sessions
    def action_new_session(self) -> None:
        if self.busy:
            self.transcript.add_notice("warn", "A turn is running: press Esc first.")
            return
        self.session.new_session()
        self._plugins_loaded()
        self.transcript.clear()
        self.status_bar.set_usage(0, 0)
        self.status_bar.set_context(None, None)
        self.transcript.add_notice("info", "New session.")

    def action_sessions(self) -> None:
        from hermes_tui.screens.sessions import SessionsScreen

        self.app.push_screen(
            SessionsScreen(
                self.store,
                current_id=self.agent.session_id or None,
                export_dir=Path(self.settings.cwd),
                registry=self.agent.registry,
            ),
            self._on_sessions_closed,
        )

    def _on_sessions_closed(self, result: SessionsResult | None) -> None:
        if result is None:
            self.prompt_input.focus()
            return
        if self.busy:
            self.transcript.add_notice("warn", "A turn is running: press Esc first, then resume.")
            return
        self.open_session(result.session_id)

    def open_session(self, session_id: str) -> None:
        """Replace the current conversation with a stored one (resume or branch)."""
        self.transcript.clear()
        from agent.store.errors import StoreError

        try:
            agent = self.session.open(session_id)
        except KeyError:
            self.transcript.add_notice("error", f"No session {session_id}.")
        except StoreError as exc:  # another process writes to it (one writer per session), or the disk
            self.transcript.add_notice("error", exc.user_line())
        else:
            records = records_from_messages(agent.messages, agent.registry)
            # Thousands of entries are made at once: no collector pass among them (they are alive, not
            # garbage), one at rest a moment after.
            self.gc_policy.pause(GcPolicy.HISTORY)
            self.transcript.load_history(records + learning_actions.resumed_todo_records(agent))
            self.gc_policy.resume(
                lambda collect: self.set_timer(timing.GC_HISTORY_AT_REST, collect, name="history-at-rest"),
                GcPolicy.HISTORY,
            )
            if agent.session_id != session_id:  # a Hermes session: it continues in our copy of it
                text = (
                    f"Continuing Hermes session {session_id} in a copy, {agent.session_id} "
                    f"({len(agent.messages)} messages); Hermes' own history is not changed."
                )
            else:
                text = f"Resumed session {session_id} ({len(agent.messages)} messages)."
            self.transcript.add_notice("info", text)
            usage, cost = agent.session_usage, agent.session_cost
            priced = cost.usd if usage.prompt_tokens or cost.usd else None
            self.status_bar.set_usage(
                usage.prompt_tokens, usage.completion_tokens, priced, cost.unknown_calls
            )
            self.status_bar.set_context(agent.last_context_tokens, agent.settings.effective_context_window)
            self._plugins_loaded()
        self.prompt_input.focus()

    def action_export(self, arg: str = "") -> None:
        """`/export [FILE]`: Markdown (or JSON for a .json path) of this session."""
        flow = ExportFlow(
            self.app, self.store, cwd=Path(self.settings.cwd), report=self.transcript.add_notice
        )
        flow.start(self.agent.session_id, arg)

    def action_copy(self) -> None:
        text = next(
            (m.content for m in reversed(self.agent.messages) if m.role == "assistant" and m.content), ""
        )
        if not text:
            self.transcript.add_notice("warn", "Nothing to copy yet.")
            return
        from hermes_tui.clipboard import copy_text

        self.transcript.add_notice("info", copy_text(self.app, text))

    # ------------------------------------------------------------------ commands: files, plugins, the app
    def action_rollback(self) -> None:
        from hermes_tui.screens.rollback import RollbackScreen

        manager = self.agent.checkpoints
        if manager is None:
            self.transcript.add_notice(
                "info", "No checkpoints yet: one is saved before the first file change of each step."
            )
            return
        if self.busy:
            self.transcript.add_notice("warn", "A turn is running: press Esc first, then roll back.")
            return
        self.app.push_screen(RollbackScreen(manager.list()), self._restore_checkpoint)

    def _restore_checkpoint(self, checkpoint_id: str | None) -> None:
        manager = self.agent.checkpoints
        if not checkpoint_id or manager is None:
            self.prompt_input.focus()
            return
        report = manager.restore(checkpoint_id)
        lines = [report.summary()]
        if report.git_note:
            lines.append(report.git_note)
        lines += [f"error: {e}" for e in report.errors]
        self.transcript.add_notice("error" if report.errors else "info", "\n".join(lines))
        self.prompt_input.focus()

    def _plugins_loaded(self) -> None:
        """The current agent's plugins: their slash commands in the prompt, their tools' icons."""
        manager = self.agent.plugins
        self.plugin_commands = plugin_commands(manager)
        self.prompt_input.set_commands(commands.completions(self.skill_commands, self.plugin_commands))
        ToolPanel.ICONS = {**manager.tool_icons, **ToolPanel.ICONS}  # a theme's icon wins over a plugin's

    def action_usage(self) -> None:
        """`/usage`: tokens and cost of the last 30 days, ours and Hermes'."""
        from hermes_tui.screens.usage import UsageScreen

        self.app.push_screen(UsageScreen(self.store), self._refocus)

    def action_plugins(self) -> None:
        from agent.plugins import format_plugin_list

        manager = self.agent.plugins
        listing = format_plugin_list(manager.plugins, plugin_dir=manager.plugin_dir)
        self.transcript.add_notice("info", listing, multiline=True)

    def action_mcp(self, argument: str = "") -> None:
        from hermes_tui.mcp_service import mcp_command

        mcp_command(self, argument)

    def action_skills(self) -> None:
        learning_actions.open_skills(self)

    def action_tools(self) -> None:
        learning_actions.open_tools(self)

    def action_processes(self) -> None:
        from hermes_tui.screens.processes import ProcessesScreen, RegistrySource

        self.app.push_screen(ProcessesScreen(RegistrySource()), self._refocus)

    def _refocus(self, _result: object = None) -> None:
        """A closed screen hands the keys back to the prompt."""
        self.prompt_input.focus()

    def action_personality(self, argument: str = "") -> None:
        learning_actions.set_personality(self, argument)

    def action_theme(self, name: str = "") -> None:
        self.post_message(self.ThemeRequested(name.strip()))

    def action_config(self) -> None:
        problems = getattr(self.app, "problems", [])
        if not problems:
            self.transcript.add_notice(
                "info", "No configuration problems (`hermes-tui config` shows every value)."
            )
            return
        lines = [f"{len(problems)} configuration problem(s); the defaults are used instead:"]
        lines += [f"  {problem}" for problem in problems]
        lines.append("`hermes-tui config` shows every value and where it came from.")
        self.transcript.add_notice("warn", "\n".join(lines), multiline=True)

    def action_help(self) -> None:
        from hermes_tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(commands.help_rows(self.skill_commands, self.plugin_commands)))

    def action_clear_screen(self) -> None:
        self.transcript.clear()

    def action_quit(self) -> None:
        self.call_later(self.app.action_quit)  # finalizes a running turn first

    async def finish_turn(self, timeout: float = QUIT_WAIT_S) -> None:
        """Before quitting mid-turn: interrupt it and wait (a few seconds at most) for the loop to finalize
        it, so the reply is kept as interrupted and the session says so; a clean quit must never look like
        a crash (a partial reply, a session still "active")."""
        worker = self._worker
        if worker is None or worker.is_finished:
            return
        self.session.interrupt()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(worker.wait(), timeout)

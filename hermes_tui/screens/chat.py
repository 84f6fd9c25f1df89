"""The chat screen: transcript, question cards, queue, prompt and status bar, and the agent worker.

Data flows one way: keys -> this screen -> the agent (calls); the agent -> the bridge -> this screen ->
widgets (events). The agent runs in a thread worker; this screen never lets that thread touch a widget.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from agent.config import Settings
from agent.events import (
    AgentEvent,
    ApiCallStarted,
    AssistantMessageDone,
    FirstDelta,
    ReasoningDelta,
    StatusNotice,
    SteerDelivered,
    StreamDiscarded,
    TextDelta,
    TodoUpdated,
    ToolCallStarted,
    ToolFinished,
    ToolOutput,
    ToolStarted,
    TurnFinished,
    UsageUpdated,
)
from agent.ui import ApprovalDecision
from hermes_tui import commands, learning_actions
from hermes_tui.bridge import ApprovalAsked, ClarifyAsked, EventsReady, UIBridge
from hermes_tui.history import records_from_messages
from widgets.approval_dialog import ApprovalDialog
from widgets.assistant_message import AssistantMessage
from widgets.clarify_prompt import ClarifyPrompt
from widgets.prompt_input import PromptBar, PromptInput
from widgets.queued_messages import QueuedMessages
from widgets.reasoning import ReasoningBlock
from widgets.status_bar import StatusBar
from widgets.tool_panel import ToolPanel
from widgets.transcript import Transcript

DRAIN_HZ = 15
_DEFAULT_TOOL_ICONS = dict(ToolPanel.ICONS)
DOUBLE_CTRL_C = 2.0


class ChatScreen(Screen[None]):
    DEFAULT_CSS = """
    ChatScreen {
        layout: vertical;
        background: $background;
    }
    ChatScreen #transcript {
        height: 1fr;
    }
    ChatScreen #bottom {
        height: auto;
        dock: bottom;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "ctrl_c", "Interrupt / clear / quit", show=False, priority=True),
        Binding("ctrl+r", "sessions", "Sessions", show=False),
        Binding("ctrl+n", "new_session", "New session", show=False),
        Binding("ctrl+l", "clear_screen", "Clear", show=False),
        Binding("f1", "help", "Help", show=False),
        Binding("end", "scroll_latest", "Latest", show=False),
        Binding("ctrl+g", "edit_prompt", "Edit in $EDITOR", show=False),
    ]

    # Injectable for deterministic snapshots: the status bar's clock and frozen question countdowns.
    STATUS_CLOCK: ClassVar[Any] = time.monotonic
    FREEZE_QUESTIONS: ClassVar[bool] = False

    def __init__(self, settings: Settings, *, store: Any, resume_id: str | None = None) -> None:
        super().__init__()
        self.settings = settings
        self.store = store
        self.resume_id = resume_id
        self.bridge = UIBridge(self)
        self.agent: Any = None
        self.busy = False
        self._worker: Worker[Any] | None = None
        self._assistant: AssistantMessage | None = None
        self._reasoning: ReasoningBlock | None = None
        self._panels_by_index: dict[int, ToolPanel] = {}
        self._panels: dict[str, ToolPanel] = {}
        self._drain_timer: Timer | None = None
        self._last_ctrl_c = 0.0
        self._clarify: ClarifyPrompt | None = None
        self._clarify_future: Any = None
        self._interrupting = False
        self._turn_started = 0.0
        self.skill_commands: dict[str, str] = {}  # enabled skills' slash commands -> description

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Transcript(id="transcript")
        from textual.containers import Vertical

        with Vertical(id="bottom"):
            yield QueuedMessages(id="queued")
            spec = getattr(self.app, "theme_spec", None)
            symbol = spec.prompt_symbol if spec is not None and spec.prompt_symbol else "❯"
            yield PromptBar(commands=commands.completions(), prompt_symbol=symbol, id="prompt")
            yield StatusBar(self.settings.model, clock=type(self).STATUS_CLOCK, id="status")

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    @property
    def status_bar(self) -> StatusBar:
        return self.query_one(StatusBar)

    @property
    def prompt_input(self) -> PromptInput:
        return self.query_one(PromptInput)

    def on_mount(self) -> None:
        from agent.loop import Agent

        self.agent = Agent(self.settings, ui=self.bridge, store=self.store)
        learning_actions.refresh_skill_commands(self)
        self.status_bar.set_yolo(self.settings.yolo)
        self._drain_timer = self.set_interval(1 / DRAIN_HZ, self._drain)
        spec = getattr(self.app, "theme_spec", None)
        if spec is not None:
            self._apply_flavour(spec)
        if self.resume_id:
            self._resume(self.resume_id)
        else:
            self._welcome()
        self.prompt_input.focus()

    def _welcome(self) -> None:
        """One calm line so an empty screen still says where you are and how to get help."""
        from pathlib import Path

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
        if self.agent is not None:
            self.agent.interrupt()

    def _resume(self, session_id: str) -> None:
        try:
            self.agent.resume(session_id)
        except KeyError:
            self.transcript.add_notice("error", f"No session {session_id}.")
            return
        records = records_from_messages(self.agent.messages, self.agent.registry)
        records += learning_actions.resumed_todo_records(self.agent)
        self.transcript.load_history(records)
        self.transcript.add_notice(
            "info", f"Resumed session {session_id} ({len(self.agent.messages)} messages)."
        )
        usage = self.agent.session_usage
        self.status_bar.set_usage(usage.prompt_tokens, usage.completion_tokens)

    def on_theme_flavour_changed(self, message: Any) -> None:
        self._apply_flavour(message.spec)

    def _apply_flavour(self, spec: Any) -> None:
        """A theme's Hermes flavour: spinner faces and verbs, the prompt symbol, tool icons."""
        spinner = self.transcript.spinner
        if spec.spinner.faces:
            spinner.faces = tuple(spec.spinner.faces)
        if spec.spinner.verbs:
            spinner.verbs = tuple(spec.spinner.verbs)
        if spec.prompt_symbol:
            self.query_one(PromptBar).prompt_symbol = spec.prompt_symbol
        # Icons are a class-level table: rebuild it from the defaults so themes never accumulate.
        ToolPanel.ICONS = {**_DEFAULT_TOOL_ICONS, **(spec.tool_icons or {})}

    # ------------------------------------------------------------------ input
    @on(PromptInput.Submitted)
    def _on_submitted(self, message: PromptInput.Submitted) -> None:
        text = message.text
        if not text.strip():
            return
        command, arg, typed = commands.parse(text)
        if command is not None:
            self.run_slash(command, arg)
            return
        if typed and not text.strip().startswith("/ ") and typed not in self.skill_commands:
            self.transcript.add_notice("warn", f"Unknown command /{typed}. Type /help for the list.")
            return
        if self.busy:
            self.query_one(QueuedMessages).add(text)
            return
        self.send(text)

    @on(QueuedMessages.EditRequested)
    def _on_edit_queued(self, message: QueuedMessages.EditRequested) -> None:
        self.prompt_input.set_text(message.text)
        self.prompt_input.focus()

    @on(QueuedMessages.SteerRequested)
    def _on_steer_queued(self, message: QueuedMessages.SteerRequested) -> None:
        self.action_steer(message.text)

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
        self.agent.steer(text)
        self.transcript.add_notice("info", f"Steer queued for the running turn: {text}")

    def send(self, text: str) -> None:
        """Start a turn. The app persists nothing itself: the agent does."""
        self.transcript.add_user(text)
        self.transcript.scroll_to_latest()
        self._set_busy(True)
        self._turn_started = time.monotonic()
        self._panels_by_index.clear()
        self._worker = self._run_turn(text)

    @work(thread=True, exclusive=True, group="agent", exit_on_error=False)
    def _run_turn(self, text: str) -> Any:
        return self.agent.run_conversation(text)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is not self._worker:
            return
        if event.state == WorkerState.ERROR:
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
        if not busy:
            self.transcript.hide_spinner()

    # ------------------------------------------------------------------ events
    def on_events_ready(self, message: EventsReady) -> None:
        self._drain()

    def _drain(self) -> None:
        for event in self.bridge.drain():
            try:
                self._apply(event)
            except Exception as exc:
                self.log.error(f"failed to display {type(event).__name__}: {exc!r}")

    def _apply(self, event: AgentEvent) -> None:
        transcript = self.transcript
        if isinstance(event, TextDelta):
            if self._reasoning is not None:
                self._reasoning.finish()
                self._reasoning = None
            if self._assistant is None:
                self._assistant = transcript.start_assistant()
            self._assistant.append(event.text)
        elif isinstance(event, ReasoningDelta):
            if self._reasoning is None:
                self._reasoning = transcript.start_reasoning()
            self._reasoning.append(event.text)
        elif isinstance(event, ApiCallStarted):
            self._panels_by_index.clear()
            transcript.show_spinner()
        elif isinstance(event, FirstDelta):
            transcript.hide_spinner()
        elif isinstance(event, ToolCallStarted):
            self._finish_stream_widgets()
            panel = transcript.add_tool_panel(
                event.call_id or f"pending-{event.index}", event.name, event.index
            )
            self._panels_by_index[event.index] = panel
            if event.call_id:
                self._panels[event.call_id] = panel
        elif isinstance(event, AssistantMessageDone):
            self._finish_stream_widgets()
            for index, (call_id, name, _args) in enumerate(event.tool_calls):
                panel = self._panels_by_index.get(index)
                if panel is None:
                    panel = transcript.add_tool_panel(call_id, name, index)
                    self._panels_by_index[index] = panel
                panel.set_call_id(call_id)
                self._panels[call_id] = panel
        elif isinstance(event, StreamDiscarded):
            self._discard_stream_widgets()
        elif isinstance(event, ToolStarted):
            panel = self._panels.get(event.call_id)
            if panel is None:
                panel = transcript.add_tool_panel(event.call_id, event.name, event.index)
                self._panels[event.call_id] = panel
            panel.set_started(event.arguments, event.summary)
        elif isinstance(event, ToolOutput):
            panel = self._panels.get(event.call_id)
            if panel is not None:
                panel.append_output(event.chunk)
        elif isinstance(event, ToolFinished):
            panel = self._panels.get(event.call_id)
            if panel is not None:
                panel.set_finished(event.status, event.duration, event.result, event.data)
        elif isinstance(event, TodoUpdated):
            pass  # the todo tool's panel shows the list from its result data
        elif isinstance(event, StatusNotice):
            transcript.add_notice(event.kind, event.text)
        elif isinstance(event, UsageUpdated):
            self.status_bar.set_context(event.context_tokens, event.context_window)
            self.status_bar.set_usage(event.session.prompt_tokens, event.session.completion_tokens)
        elif isinstance(event, SteerDelivered):
            transcript.add_notice("info", f"Steer delivered to the model: {event.text}")
        elif isinstance(event, TurnFinished):
            self._on_turn_finished(event)

    def _finish_stream_widgets(self) -> None:
        if self._reasoning is not None:
            self._reasoning.finish()
            self._reasoning = None
        if self._assistant is not None:
            self._assistant.finish()
            self._assistant = None

    def _discard_stream_widgets(self) -> None:
        for widget in (self._assistant, self._reasoning):
            if widget is not None:
                widget.remove()
        self._assistant = None
        self._reasoning = None

    def _on_turn_finished(self, event: TurnFinished) -> None:
        self._finish_stream_widgets()
        for panel in list(self._panels.values()):
            if not panel.is_finished:
                panel.set_finished("cancelled", None, "")
        self._panels.clear()
        self._panels_by_index.clear()
        if event.exit_reason == "interrupted":
            self.transcript.add_notice(
                "warn", "Interrupted. The partial reply and every finished tool result are kept."
            )
        elif event.exit_reason == "budget_exhausted":
            self.transcript.add_notice(
                "warn", "The turn used its whole iteration budget; above is the model's summary."
            )
        elif event.exit_reason.startswith("error") and event.error:
            self.transcript.add_notice("error", event.error)
        self._attention(
            "The turn has ended." if event.exit_reason == "completed" else f"Turn ended: {event.exit_reason}"
        )
        self._end_turn(event.pending_steer)

    def _end_turn(self, pending_steer: str | None = None) -> None:
        self._interrupting = False
        self._close_clarify(None)
        self._set_busy(False)
        if pending_steer:
            # The turn ended before a safe point: the steer becomes the next message.
            self.transcript.add_notice(
                "info", "The turn ended before your steer could be delivered: sending it now."
            )
            self.send(pending_steer)
            return
        queued = self.query_one(QueuedMessages).pop_next()
        if queued is not None:
            self.send(queued)
        elif self.app.screen is self:
            self.prompt_input.focus()

    # ------------------------------------------------------------------ questions
    def on_clarify_asked(self, message: ClarifyAsked) -> None:
        self._drain()
        self._close_clarify(None)
        card = ClarifyPrompt(message.request, frozen=self.FREEZE_QUESTIONS)
        self._clarify = card
        self._clarify_future = message.reply
        self.query_one("#bottom").mount(card, before=self.query_one(QueuedMessages))
        self._attention("Hermes is asking you a question.")

    @on(ClarifyPrompt.Answered)
    def _on_clarify_answered(self, message: ClarifyPrompt.Answered) -> None:
        self._close_clarify(message.answer)

    def _close_clarify(self, answer: str | None) -> None:
        future, card = self._clarify_future, self._clarify
        self._clarify_future = None
        self._clarify = None
        if future is not None and not future.done():
            future.set_result(answer)
        if card is not None and card.is_mounted:
            card.remove()
            if self.app.screen is self:
                self.prompt_input.focus()

    def on_approval_asked(self, message: ApprovalAsked) -> None:
        self._drain()

        def decided(decision: ApprovalDecision | None) -> None:
            if not message.reply.done():
                message.reply.set_result(decision or ApprovalDecision.DENY)

        if message.reply.done():
            return
        if self.settings.notify == "desktop":
            self._attention("A command is waiting for your approval.")  # the dialog itself rings the bell
        self.app.push_screen(ApprovalDialog(message.request, frozen=self.FREEZE_QUESTIONS), decided)

    # ------------------------------------------------------------------ actions
    def action_interrupt(self) -> None:
        if self._clarify is not None:
            self._close_clarify(None)
            return
        if self.busy and self.agent is not None:
            self.agent.interrupt()
            if not self._interrupting:
                self._interrupting = True
                self.transcript.hide_spinner()

    def action_ctrl_c(self) -> None:
        if self.app.screen is not self:
            return
        if self.busy:
            self.action_interrupt()
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < DOUBLE_CTRL_C:
            self.app.exit(0)
            return
        self._last_ctrl_c = now
        if self.prompt_input.text:
            self.prompt_input.clear()
        self.notify("Press Ctrl+C again to quit", timeout=DOUBLE_CTRL_C)

    def action_scroll_latest(self) -> None:
        self.transcript.scroll_to_latest()

    def run_slash(self, command: commands.SlashCommand, arg: str) -> None:
        handler = getattr(self, f"action_{command.action}", None)
        if handler is None:
            self.transcript.add_notice("warn", f"/{command.name} is not available yet.")
            return
        if command.takes_argument:
            handler(arg)
        else:
            handler()

    def action_theme(self, name: str = "") -> None:
        self.app.pick_theme(name.strip())  # type: ignore[attr-defined]

    def action_compress(self) -> None:
        """`/compress`: summarize the middle of the conversation now (a model call, in the worker)."""
        if self.busy:
            self.transcript.add_notice("warn", "A turn is running: compress after it ends.")
            return
        if self.agent is None or not self.agent.messages:
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

    def action_plugins(self) -> None:
        from agent.plugins import format_plugin_list

        manager = self.agent.plugins
        self.transcript.add_notice("info", format_plugin_list(manager.plugins, plugin_dir=manager.plugin_dir))

    def action_skills(self) -> None:
        learning_actions.open_skills(self)

    def action_tools(self) -> None:
        learning_actions.open_tools(self)

    def action_personality(self, argument: str = "") -> None:
        learning_actions.set_personality(self, argument)

    def action_rollback(self) -> None:
        from hermes_tui.screens.rollback import RollbackScreen

        manager = self.agent.checkpoints if self.agent is not None else None
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
        if not checkpoint_id:
            self.prompt_input.focus()
            return
        report = self.agent.checkpoints.restore(checkpoint_id)
        kind = "error" if report.errors else "info"
        lines = [report.summary()]
        if report.git_note:
            lines.append(report.git_note)
        lines += [f"error: {e}" for e in report.errors]
        self.transcript.add_notice(kind, "\n".join(lines))
        self.prompt_input.focus()

    def action_help(self) -> None:
        self.transcript.add_notice("info", commands.help_text())

    def action_quit(self) -> None:
        self.app.exit(0)

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
        name = name.strip()
        if not name:
            self.transcript.add_notice("info", f"Model: {self.settings.model}. Switch with /model NAME.")
            return
        if self.busy:
            self.transcript.add_notice(
                "warn", "The model switches for the next turn: wait for this one to end."
            )
            return
        self.settings = self.settings.model_copy(update={"model": name})
        self.agent.settings = self.settings
        self.agent.close()
        self.agent._transport = None
        self.status_bar.set_model(name)
        self.transcript.add_notice("info", f"Model switched to {name} for the next turn.")

    def action_new_session(self) -> None:
        if self.busy:
            self.transcript.add_notice("warn", "A turn is running: press Esc first.")
            return
        from agent.loop import Agent

        self.agent.close()
        self.agent = Agent(self.settings, ui=self.bridge, store=self.store)
        self.transcript.clear()
        self.status_bar.set_usage(0, 0)
        self.status_bar.set_context(None, None)
        self.transcript.add_notice("info", "New session.")

    def action_clear_screen(self) -> None:
        self.transcript.clear()

    def action_copy(self) -> None:
        text = ""
        for message in reversed(self.agent.messages if self.agent else []):
            if message.role == "assistant" and message.content:
                text = message.content
                break
        if not text:
            self.transcript.add_notice("warn", "Nothing to copy yet.")
            return
        from hermes_tui.clipboard import copy_text

        self.transcript.add_notice("info", copy_text(self.app, text))

    def action_edit_prompt(self) -> None:
        """Ctrl+G: edit the prompt in $VISUAL/$EDITOR; the app is suspended meanwhile."""
        from textual.app import SuspendNotSupported

        from hermes_tui.editor import edit_text

        current = self.prompt_input.text
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
        self.prompt_input.set_text(edited)
        self.prompt_input.focus()

    def _attention(self, why: str) -> None:
        """Ring (or notify the desktop) when something needs the user while the terminal is unfocused."""
        mode = self.settings.notify
        if mode == "off" or self.app.app_focus:
            return
        if mode == "desktop":
            import shutil
            import subprocess

            if shutil.which("notify-send"):
                try:
                    subprocess.Popen(
                        ["notify-send", "hermes-tui", why],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                    )
                    return
                except OSError:
                    pass
        self.app.bell()

    def action_sessions(self) -> None:
        from pathlib import Path

        from hermes_tui.screens.sessions import SessionsScreen

        current = self.agent.session_id if self.agent is not None else None
        self.app.push_screen(
            SessionsScreen(
                self.store,
                current_id=current or None,
                export_dir=Path(self.settings.cwd),
                registry=self.agent.registry if self.agent is not None else None,
            ),
            self._on_sessions_closed,
        )

    def _on_sessions_closed(self, result: Any) -> None:
        if result is None:
            self.prompt_input.focus()
            return
        if self.busy:
            self.transcript.add_notice("warn", "A turn is running: press Esc first, then resume.")
            return
        self.open_session(result.session_id)

    def open_session(self, session_id: str) -> None:
        """Replace the current conversation with a stored one (resume or branch)."""
        from agent.loop import Agent

        if self.agent is not None:
            self.agent.close()
        self.agent = Agent(self.settings, ui=self.bridge, store=self.store)
        self.transcript.clear()
        self._resume(session_id)
        self.prompt_input.focus()

    def action_export(self, arg: str = "") -> None:
        """`/export [FILE]`: Markdown (or JSON for a .json path) of this session."""
        from pathlib import Path

        from hermes_tui.export import default_export_path, format_for_path
        from hermes_tui.screens.sessions import ExportPathModal

        session_id = self.agent.session_id if self.agent is not None else ""
        if not session_id:
            self.transcript.add_notice("warn", "Nothing to export yet: send a message first.")
            return
        if arg.strip():
            path = Path(arg.strip()).expanduser()
            path = path if path.is_absolute() else Path(self.settings.cwd) / path
            self._write_export(session_id, path, format_for_path(path))
            return
        info = self.store.get_session(session_id)

        def chosen(answer: Any) -> None:
            if answer:
                self._write_export(session_id, *answer)

        self.app.push_screen(
            ExportPathModal(f"./{default_export_path(info).name}", base_dir=Path(self.settings.cwd)), chosen
        )

    @work(thread=True, group="export", exit_on_error=False)
    def _write_export(self, session_id: str, path: Any, fmt: str) -> None:
        from hermes_tui.export import write_export

        try:
            written = write_export(self.store, session_id, path, fmt)
        except (OSError, ValueError, KeyError) as exc:
            self.app.call_from_thread(self.transcript.add_notice, "error", f"Export failed: {exc}")
            return
        self.app.call_from_thread(self.transcript.add_notice, "info", f"Exported this session to {written}")

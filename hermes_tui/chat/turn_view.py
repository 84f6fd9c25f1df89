"""The turn view: agent events become transcript widgets and status-bar numbers, one handler per event type.

It owns the widgets of the turn in progress (the streaming reply and reasoning, tool panels by call id and,
until the call id is known, by stream index) and nothing else: the chat screen drains the bridge on the UI
thread and hands each event to `show`. Events that need no picture (`TurnStarted`, `TodoUpdated`: the todo
tool's panel shows the list from its result) fall through to the base handler.

The end of a turn is the screen's business too (the queue, the focus, the bell), so `TurnFinished` is shown
here and then handed to `on_turn_finished`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import singledispatchmethod
from typing import TYPE_CHECKING

from agent.api import (
    AgentEvent,
    ApiCallStarted,
    AssistantMessageDone,
    ChildEvent,
    ChildFinished,
    ChildStarted,
    FirstDelta,
    ReasoningDelta,
    StatusNotice,
    SteerDelivered,
    StreamDiscarded,
    StreamResumed,
    StreamStalled,
    TextDelta,
    ToolCallStarted,
    ToolFinished,
    ToolOutput,
    ToolProgress,
    ToolStarted,
    TurnFinished,
    UsageUpdated,
)
from widgets.status_bar import ContextUse, Usage
from widgets.transcript.entries.reasoning import ReasoningEntry
from widgets.transcript.entries.reply import ReplyEntry
from widgets.transcript.entries.subagents import SubagentList
from widgets.transcript.entries.tool_call import ToolCallEntry
from widgets.transcript.view import Transcript

if TYPE_CHECKING:
    from hermes_tui.commands.base import StatusAPI

__all__ = ["TurnView"]

END_NOTICES = {
    "interrupted": ("warn", "Interrupted. The partial reply and every finished tool result are kept."),
    "budget_exhausted": ("warn", "The turn used its whole iteration budget; above is the model's summary."),
}


class TurnView:
    """Shows one chat's agent events in its transcript and status bar (UI thread only)."""

    def __init__(
        self,
        transcript: Transcript,
        status: StatusAPI,
        *,
        on_turn_finished: Callable[[TurnFinished], None],
    ) -> None:
        self.transcript = transcript
        self.status = status
        self._on_turn_finished = on_turn_finished
        self._assistant: ReplyEntry | None = None
        self._reasoning: ReasoningEntry | None = None
        self._panels_by_index: dict[int, ToolCallEntry] = {}
        self._panels: dict[str, ToolCallEntry] = {}
        self._stall_spinner = False  # the spinner came back only to say the stream went quiet

    def start_turn(self) -> None:
        """A new turn starts: stream indexes of the last one mean nothing any more."""
        self._panels_by_index.clear()

    # --------------------------------------------------------------------------------------------- dispatch

    @singledispatchmethod
    def show(self, event: AgentEvent) -> None:
        """Events without a picture of their own."""

    @show.register
    def _text(self, event: TextDelta) -> None:
        if self._reasoning is not None:
            self._reasoning.finish()
            self._reasoning = None
        if self._assistant is None:
            self._assistant = self.transcript.start_assistant()
        self._assistant.append(event.text)

    @show.register
    def _reasoning_text(self, event: ReasoningDelta) -> None:
        if not self.transcript.show_reasoning:
            return
        if self._reasoning is None:
            self._reasoning = self.transcript.start_reasoning()
        self._reasoning.append(event.text)

    @show.register
    def _api_call(self, event: ApiCallStarted) -> None:
        self._panels_by_index.clear()
        self._stall_spinner = False
        self.transcript.show_spinner()

    @show.register
    def _first_delta(self, event: FirstDelta) -> None:
        self._stall_spinner = False
        self.transcript.hide_spinner()

    @show.register
    def _stalled(self, event: StreamStalled) -> None:
        """Nothing arrived for a while: the spinner says so (and comes back if the reply was streaming)."""
        spinner = self.transcript.spinner
        if not spinner.is_running:
            self.transcript.show_spinner()
            self._stall_spinner = True
        spinner.set_stalled(event.seconds)

    @show.register
    def _resumed(self, event: StreamResumed) -> None:
        self.transcript.spinner.set_stalled(None)
        if self._stall_spinner:
            self._stall_spinner = False
            self.transcript.hide_spinner()

    @show.register
    def _tool_call(self, event: ToolCallStarted) -> None:
        """The model started streaming a call: its panel appears before its arguments are complete."""
        self._finish_stream_widgets()
        panel = self.transcript.add_tool_panel(
            event.call_id or f"pending-{event.index}", event.name, event.index
        )
        self._panels_by_index[event.index] = panel
        if event.call_id:
            self._panels[event.call_id] = panel

    @show.register
    def _message_done(self, event: AssistantMessageDone) -> None:
        """Every call of the reply now has its id (some APIs send it only at the end)."""
        self._finish_stream_widgets()
        for index, (call_id, name, _args) in enumerate(event.tool_calls):
            panel = self._panels_by_index.get(index)
            if panel is None:
                panel = self.transcript.add_tool_panel(call_id, name, index)
                self._panels_by_index[index] = panel
            panel.set_call_id(call_id)
            self._panels[call_id] = panel

    @show.register
    def _discarded(self, event: StreamDiscarded) -> None:
        """A retry follows: what the failed attempt streamed is withdrawn."""
        for widget in (self._assistant, self._reasoning):
            if widget is not None:
                widget.remove()
        self._assistant = None
        self._reasoning = None

    @show.register
    def _tool_started(self, event: ToolStarted) -> None:
        panel = self._panels.get(event.call_id)
        if panel is None:
            panel = self.transcript.add_tool_panel(event.call_id, event.name, event.index)
            self._panels[event.call_id] = panel
        panel.set_started(event.arguments, event.summary)

    @show.register
    def _tool_output(self, event: ToolOutput) -> None:
        panel = self._panels.get(event.call_id)
        if panel is not None:
            panel.append_output(event.chunk)

    @show.register
    def _tool_progress(self, event: ToolProgress) -> None:
        panel = self._panels.get(event.call_id)
        if panel is not None:
            panel.set_progress(event.progress, event.total, event.message)

    @show.register
    def _tool_finished(self, event: ToolFinished) -> None:
        panel = self._panels.get(event.call_id)
        if panel is not None:
            panel.set_finished(event.status, event.duration, event.result, event.data)

    @show.register
    def _child_started(self, event: ChildStarted) -> None:
        if (children := self._subagents(event.call_id)) is not None:
            children.child_started(event)

    @show.register
    def _child_event(self, event: ChildEvent) -> None:
        if (children := self._subagents(event.call_id)) is not None:
            children.child_event(event.child, event.event)

    @show.register
    def _child_finished(self, event: ChildFinished) -> None:
        if (children := self._subagents(event.call_id)) is not None:
            children.child_finished(event)

    @show.register
    def _notice(self, event: StatusNotice) -> None:
        self.transcript.add_notice(event.kind, event.text)

    @show.register
    def _usage(self, event: UsageUpdated) -> None:
        self.status.context_use = ContextUse(event.context_tokens, event.context_window)
        self.status.usage = Usage(
            event.session.prompt_tokens,
            event.session.completion_tokens,
            event.session_cost,
            event.session_unknown_calls,
        )

    @show.register
    def _steer(self, event: SteerDelivered) -> None:
        self.transcript.add_notice("info", f"Steer delivered to the model: {event.text}")

    @show.register
    def _turn_finished(self, event: TurnFinished) -> None:
        """Close what is still open (a cancelled tool stays visibly cancelled), say why the turn ended."""
        self._finish_stream_widgets()
        for panel in list(self._panels.values()):
            if not panel.is_finished:
                panel.set_finished("cancelled", None, "")
            if isinstance(panel.nested, SubagentList):
                panel.nested.cancel_running()
        self._panels.clear()
        self._panels_by_index.clear()
        if self._stall_spinner:
            self._stall_spinner = False
            self.transcript.hide_spinner()
        if event.marker:
            self.transcript.add_notice("warn", event.marker)  # right under the reply it is about
        if event.error:
            self.transcript.add_notice("error", event.error)
        elif event.exit_reason in END_NOTICES:
            self.transcript.add_notice(*END_NOTICES[event.exit_reason])
        if event.rewritten:  # Hermes' transform_llm_output: the answer differs from what streamed
            self.transcript.add_notice("info", "A plugin rewrote the answer:")
            rewritten = self.transcript.start_assistant()
            rewritten.append(event.final_text)
            rewritten.finish()
        self._on_turn_finished(event)

    # --------------------------------------------------------------------------------------------- helpers

    def _subagents(self, call_id: str) -> SubagentList | None:
        """The subagent list nested in the `delegate_task` panel of `call_id` (made on first use)."""
        panel = self._panels.get(call_id)
        if panel is None:
            return None
        nested = panel.nested or panel.nest(SubagentList())
        return nested if isinstance(nested, SubagentList) else None

    def _finish_stream_widgets(self) -> None:
        if self._reasoning is not None:
            self._reasoning.finish()
            self._reasoning = None
        if self._assistant is not None:
            self._assistant.finish()
            self._assistant = None

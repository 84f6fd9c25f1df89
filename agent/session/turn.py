"""One turn of a session, meant to run in a worker thread.

A turn loops model call -> tools -> model call until the model stops, the user interrupts, the iteration
budget runs out (then one last tool-less call asks for a summary) or an error cannot be recovered (the
model call's recovery table, `agent.session.recovery`, decided to give up). Its six phases are its
methods, in order: `_enter`, `_system_prompt`, `_plugin_hooks` (the user's message, and what plugins add
to its wire form), `_pre_compression` (after the hooks: the request they shaped is what gets measured),
`_loop` and `_after`. Each reply goes through the ordered handlers of `_outcome`: empty, cut tool call,
refused, unfinished, tool calls, continuation, else the turn is complete.

Everything the user should see is an event through `AgentUI`; everything that completes is persisted at
once, so a crash at any moment leaves a consistent, resumable session.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from agent.core import exit_reasons
from agent.core.errors import ClassifiedError, InterruptedByUser
from agent.core.events import StatusNotice, SteerDelivered, StreamDiscarded, TurnFinished, TurnStarted
from agent.core.messages import API_CONTENT, Message, Usage, strip_surrogates
from agent.core.permission_mode import PLAN_NOTE, PermissionMode, plan_exit_note
from agent.images.routing import sees_images
from agent.session import reply_outcomes
from agent.session.call_sink import CallSink
from agent.session.host import TurnHost
from agent.session.model_call import CallFailed, CallInterrupted, ModelCall
from agent.session.reply_writer import ReplyWriter
from agent.session.tool_batch import run_tool_batch
from agent.skills.invoke import skill_invocation
from agent.transports.base import ModelResponse
from agent.transports.factory import make_transport
from agent.usage.pricing import CallCost

if TYPE_CHECKING:
    from agent.images.store import ImageRef

__all__ = ["BUDGET_PROMPT", "CONTINUE_PROMPT", "MAX_CONTINUATIONS", "STEER_MARKER", "Turn", "TurnResult"]

CONTINUE_PROMPT = (
    "[System: Your previous response was truncated by the output length limit. Continue exactly where you "
    "left off. Do not restart or repeat prior text. Finish the answer directly.]"
)
BUDGET_PROMPT = (
    "You've reached the maximum number of tool-calling iterations allowed. Please provide a final response "
    "summarizing what you've found and accomplished so far, without calling any more tools."
)
MAX_CONTINUATIONS = 3
STEER_MARKER = "\n\n[The user sent this while you were working; take it into account: {text}]"


@dataclass
class TurnResult:
    exit_reason: str
    final_text: str
    usage: Usage
    api_calls: int
    session_id: str
    error: ClassifiedError | None = None
    pending_steer: str | None = None

    @property
    def completed(self) -> bool:
        return self.exit_reason == "completed"


class _Next(enum.Enum):
    NOT_MINE = "not mine"  # the next handler decides
    AGAIN = "again"  # the loop goes on: another request


@dataclass
class _Reply:
    """A reply that arrived, what streamed it, what it cost, and (once kept) its message."""

    response: ModelResponse
    sink: CallSink
    cost: CallCost
    message: Message | None = None

    @property
    def finish_reason(self) -> str:
        return self.response.finish_reason or "stop"

    @property
    def truncated(self) -> bool:
        """Text cut at the output limit (a cut tool call is another outcome)."""
        return self.finish_reason == "length" and bool(self.response.text) and not self.response.tool_calls


class Turn:
    """One turn's state; `run` once. The session's lock keeps turns of one session apart."""

    def __init__(self, session: TurnHost, user_message: str, images: Sequence[ImageRef] = ()) -> None:
        self.session = session
        self.text = strip_surrogates(user_message)
        self.images = images
        self.writer = ReplyWriter(session)
        self.usage = Usage()
        self.api_calls = 0
        self.continuations = 0
        self.parts: list[str] = []  # text of `length`-truncated replies joined with the final one
        self.started = time.monotonic()
        self.user_index = -1  # the turn's user message in `session.messages`
        self.empty_replies = 0
        self.cut_calls = 0  # replies in a row whose tool calls were cut at the output limit
        self.unknown_strikes = 0  # replies in a row that called only tools not offered
        self.refusals = 0  # safety-filter refusals (each fallback gets one try)
        self.output_cap: int | None = None  # a larger output cap for the retry of a cut tool call
        self.carried: CallSink | None = None  # an empty reply's sink: its partial row serves the next try
        self._threshold_checked = False  # the first request was measured by `_pre_compression`
        self._first_tools: list[dict[str, Any]] | None = None  # the tools it measured, for that request

    def run(self) -> TurnResult:
        self._enter()
        self._system_prompt()
        self._plugin_hooks()
        self._pre_compression()
        return self._loop()

    # ----------------------------------------------------------------- the phases

    def _enter(self) -> None:
        """Per-turn state back to a turn's start: budget, compressions, the primary provider."""
        self.session.begin_turn()

    def _system_prompt(self) -> None:
        """Built once per session (byte-stable for prompt caching), with the session's row and services."""
        self.session.ensure_session(self.text)

    def _plugin_hooks(self) -> None:
        """The user's message is stored; plugin context (and a skill's text, reminders) goes into its wire
        form, never the system prompt. The message keeps what was typed (search shows that); what is sent
        is its `api_content` sidecar, in this turn and every later one."""
        session, text = self.session, self.text
        first_turn = not any(m.role == "user" for m in session.messages)
        meta = {"images": [ref.to_meta() for ref in self.images]} if self.images else {}
        session.append(Message(role="user", content=text, meta=meta))
        session.set_status("active")
        plugin_context = ""
        plugins = session.plugins
        plugins.begin_turn(session.session_id, text, session.route.model)
        if plugins.has_hooks("pre_llm_call"):
            history = list(session.messages)
            plugin_context = plugins.pre_llm_call(
                session.session_id, text, history, first_turn, session.route.model
            )
        if session.hooks.active:
            hook_context = session.hooks.prompt_submitted(session.session_id, text, session.route.model)
            plugin_context = "\n\n".join(p for p in (plugin_context, hook_context) if p)
        context = self._wire_additions(plugin_context)
        # After Esc the model has its partial reply (or nothing) and would take it as finished: it is told,
        # as Claude Code tells it, before what the user says next.
        note = exit_reasons.INTERRUPTED_NOTE if session.last_exit in exit_reasons.INTERRUPTED_NAMES else ""
        self.user_index = len(session.messages) - 1
        if context or note:
            self._keep_api_content(session.messages[-1], "\n\n".join(p for p in (note, text, context) if p))
        session.ui.on_event(TurnStarted(session_id=session.session_id, user_message=text))
        if self.images and not sees_images(session.settings) and "vision_analyze" not in self._offered():
            notice = (
                "This model cannot see images and no vision model is set (auxiliary.vision.model): it gets "
                "only the image's path."
            )
            session.ui.on_event(StatusNotice(kind="warn", text=notice))

    def _pre_compression(self) -> None:
        """Compress before the first request when the conversation is over the threshold (each later
        request is measured by its model call)."""
        self._first_tools = self.session.toolsets.schemas()
        self.session.compressor.maybe(self._first_tools)
        self._threshold_checked = True

    def _loop(self) -> TurnResult:
        session = self.session
        while True:
            if session.interrupt_event.is_set():
                return self._after("interrupted", self._joined())
            if not session.budget.consume():
                return self._budget_summary()
            # per request: /tools and dynamic toolsets apply at once
            tools = self._first_tools if self._first_tools is not None else session.toolsets.schemas()
            self._first_tools = None
            self.api_calls += 1
            try:
                response, sink, cost = self._call(tools, self.api_calls, self.carried)
            except CallInterrupted as exc:
                self.writer.partial(exc.row, exc.partial)
                return self._after("interrupted", self._joined(exc.partial.text))
            except InterruptedByUser:
                return self._after("interrupted", self._joined())
            except CallFailed as exc:
                marker = exit_reasons.reply_marker(exc.classified.exit_reason) if exc.kept else None
                return self._after(exc.classified.exit_reason, self._joined(exc.kept), exc.classified, marker)
            self.carried = None
            outcome = self._outcome(_Reply(response, sink, cost))
            if isinstance(outcome, TurnResult):
                return outcome

    def _after(
        self, reason: str, final: str, error: ClassifiedError | None = None, marker: str | None = None
    ) -> TurnResult:
        """The turn ends: its status, duration and exit stored, the title asked for, plugins told."""
        session = self.session
        session.wire_nudge = []
        session.last_exit = reason
        session.set_status(exit_reasons.session_status(reason))
        if session.store is not None:
            try:
                # Tokens, calls and cost were counted call by call (`record_call`).
                session.store.add_usage(session.session_id, duration_s=time.monotonic() - self.started)
            except Exception:
                pass
        line = error.user_line() if error else None
        self._record_exit(reason, line)
        if reason == exit_reasons.COMPLETED and self._is_first_turn():
            self._title_in_background(final)
        streamed = final
        plugins = session.plugins
        if reason == "completed" and final and plugins.has_hooks("on_turn_end"):
            final = plugins.transform_output(final, session_id=session.session_id, model=session.route.model)
        leftover = session.take_steer() or None
        session.ui.on_event(
            TurnFinished(
                exit_reason=reason,
                final_text=final,
                usage=self.usage.copy(),
                error=line,
                pending_steer=leftover,
                marker=marker,
                rewritten=final != streamed,
            )
        )
        result = TurnResult(reason, final, self.usage, self.api_calls, session.session_id, error, leftover)
        session.nudges.at_turn_end(
            session.messages[self.user_index :], skills_offered="skill_manage" in self._offered()
        )
        if plugins.has_hooks("on_turn_end"):
            plugins.turn_finished(
                result,
                completed=reason == "completed",
                interrupted=reason == "interrupted",
                history=session.messages,
            )
        if session.hooks.has_hooks("on_session_end") or session.hooks.has_hooks("post_llm_call"):
            session.hooks.turn_ended(
                session.session_id,
                completed=reason == "completed",
                interrupted=reason == "interrupted",
                final=final,
                model=session.route.model,
            )
        if session.trajectory is not None:
            session.trajectory.flush()
        return result

    # ----------------------------------------------------------------- one reply's outcome

    def _outcome(self, reply: _Reply) -> TurnResult | _Next:
        """The first handler that claims the reply says whether the loop goes on or the turn ends."""
        handlers: tuple[Callable[[_Reply], TurnResult | _Next], ...] = (
            self._empty,
            self._cut_tool_call,
            self._refused,
            self._unfinished,
            self._tool_calls,
            self._continuation,
        )
        for handle in handlers:
            outcome = handle(reply)
            if outcome is not _Next.NOT_MINE:
                return outcome
        return self._after("completed", self._joined(reply.response.text))

    def _empty(self, reply: _Reply) -> TurnResult | _Next:
        """An empty reply is asked again once with Hermes' nudge, then each fallback provider gets a try."""
        if not reply_outcomes.is_empty(reply.response):
            self.session.wire_nudge = []
            return _Next.NOT_MINE
        self.empty_replies += 1
        self.carried = self._ask_again_after_empty(reply.sink)
        if self.carried is not None:
            self.writer.call(reply.response, reply.cost, None)  # the empty reply's tokens count too
            return _Next.AGAIN
        self.writer.empty(reply.sink, reply.response, reply.cost)
        error = reply_outcomes.empty_response_error(fell_back=self.empty_replies > 2)
        return self._after(exit_reasons.EMPTY_RESPONSE, self._joined(), error)

    def _cut_tool_call(self, reply: _Reply) -> TurnResult | _Next:
        """A tool call cut at the output limit: asked again with a larger cap, a few times."""
        response = reply.response
        if not (response.tool_calls and reply.finish_reason == "length"):
            self.cut_calls = 0
            self.output_cap = None
            return _Next.NOT_MINE
        self.cut_calls += 1
        if self.cut_calls <= reply_outcomes.CUT_TOOL_CALL_RETRIES:
            self.carried = self._ask_again_after_cut_call(reply)
            return _Next.AGAIN
        self.writer.cut(reply.sink, replace(response, tool_calls=[]), reply.cost)
        error = reply_outcomes.cut_tool_call_error(self.cut_calls - 1)
        marker = exit_reasons.reply_marker(exit_reasons.TRUNCATED) if response.text else None
        return self._after(exit_reasons.TRUNCATED, self._joined(response.text), error, marker)

    def _refused(self, reply: _Reply) -> TurnResult | _Next:
        """A safety filter's refusal: the next fallback provider tries, else the turn ends saying so."""
        if reply.finish_reason != "content_filter":
            return _Next.NOT_MINE
        self.refusals += 1
        error = reply_outcomes.content_filter_error(fell_back=self.refusals > 1)
        if self.session.activate_fallback(error):
            self.writer.call(reply.response, reply.cost, None)
            if reply.sink.shown:
                self.session.ui.on_event(StreamDiscarded(reason="content_filter"))
            reply.sink.reset()
            self.carried = reply.sink
            return _Next.AGAIN
        self.writer.response(reply.response, reply.sink, reply.cost)
        return self._after(error.exit_reason, self._joined(reply.response.text), error)

    def _unfinished(self, reply: _Reply) -> TurnResult | _Next:
        """Every other reply is kept; one whose thinking used the whole output, or cut with no continuation
        left (or the context full), ends the turn marked."""
        response = reply.response
        incomplete = None
        if reply_outcomes.is_thinking_exhausted(response):
            incomplete = exit_reasons.THINKING_EXHAUSTED
        elif reply.truncated and (self.continuations >= MAX_CONTINUATIONS or self._filled_context()):
            incomplete = exit_reasons.TRUNCATED
        reply.message = self.writer.response(response, reply.sink, reply.cost, incomplete=incomplete)
        if incomplete == exit_reasons.THINKING_EXHAUSTED:
            return self._after(incomplete, self._joined(), reply_outcomes.thinking_exhausted_error())
        if incomplete == exit_reasons.TRUNCATED:
            session = self.session
            error = (
                reply_outcomes.context_full_error(session.last_context_tokens, session.context_window)
                if self._filled_context()
                else reply_outcomes.truncated_error(self.continuations)
            )
            marker = exit_reasons.reply_marker(incomplete)
            return self._after(incomplete, self._joined(response.text), error, marker)
        return _Next.NOT_MINE

    def _tool_calls(self, reply: _Reply) -> TurnResult | _Next:
        """The reply's tool calls run (each unknown one gets its error: none is unanswered)."""
        if not reply.response.tool_calls or reply.message is None:
            return _Next.NOT_MINE
        session, calls = self.session, reply.message.tool_calls
        offered = self._offered()
        unknown = [c.name for c in calls if c.name not in offered]
        self.unknown_strikes = self.unknown_strikes + 1 if len(unknown) == len(calls) else 0
        run_tool_batch(session, calls)
        self._deliver_steer()
        text = reply.response.text
        if session.interrupt_event.is_set():
            return self._after("interrupted", self._joined(text))
        strikes = self.unknown_strikes
        if strikes >= reply_outcomes.UNKNOWN_TOOL_STRIKES:
            error = reply_outcomes.unknown_tools_error(unknown, strikes)
            return self._after(error.exit_reason, self._joined(text), error)
        if strikes:
            notice = (
                f"The model called a tool it does not have ({', '.join(unknown)}): it was told which tools "
                f"it has (try {strikes} of {reply_outcomes.UNKNOWN_TOOL_STRIKES})."
            )
            session.ui.on_event(StatusNotice(kind="warn", text=notice))
        return _Next.AGAIN

    def _continuation(self, reply: _Reply) -> TurnResult | _Next:
        """A reply cut at the output limit: the model is asked to continue (its text joins the next)."""
        if not reply.truncated:
            return _Next.NOT_MINE
        self.continuations += 1
        self.parts.append(reply.response.text)
        notice = "Reply cut at the output limit: asking the model to continue"
        self.session.ui.on_event(StatusNotice(kind="info", text=notice))
        self.session.append(Message(role="user", content=CONTINUE_PROMPT, meta={"synthetic": "continuation"}))
        return _Next.AGAIN

    # ----------------------------------------------------------------- helpers

    def _call(
        self, tools: list[dict[str, Any]], iteration: int, sink: CallSink | None = None
    ) -> tuple[ModelResponse, CallSink, CallCost]:
        precompress, self._threshold_checked = not self._threshold_checked, False
        call = ModelCall(
            self.session,
            tools,
            iteration=iteration,
            turn_usage=self.usage,
            output_cap=self.output_cap,
            sink=sink,
        )
        return call.run(precompress=precompress)

    def _joined(self, last: str = "") -> str:
        return "".join(self.parts) + last

    def _offered(self) -> set[str]:
        return set(self.session.toolsets.active_names())

    def _filled_context(self) -> bool:
        """The last reply ended where the context window does (prompt and reply fill it)."""
        return reply_outcomes.fills_context(self.session.last_context_tokens, self.session.context_window)

    def _ask_again_after_empty(self, sink: CallSink) -> CallSink | None:
        """Asked again once with Hermes' nudge, then on each fallback provider. What it showed (reasoning)
        is withdrawn; the sink (its row) serves the next attempt. None: give up."""
        session = self.session
        if self.empty_replies == 1:
            after_tools = bool(session.messages) and session.messages[-1].role == "tool"
            session.wire_nudge = reply_outcomes.nudge_messages(after_tools)
            notice = "The model returned an empty reply: asking again."
            session.ui.on_event(StatusNotice(kind="retry", text=notice))
        elif not session.activate_fallback(reply_outcomes.EMPTY_AGAIN):
            return None
        if sink.shown:
            session.ui.on_event(StreamDiscarded(reason=exit_reasons.EMPTY_RESPONSE))
        sink.reset()
        return sink

    def _ask_again_after_cut_call(self, reply: _Reply) -> CallSink:
        """A tool call cut at the output limit is never run (its arguments are incomplete) nor kept: the
        same request goes again with a larger output cap (Hermes'). The sink serves the next attempt."""
        session, sink, retry = self.session, reply.sink, self.cut_calls
        self.writer.call(reply.response, reply.cost, None)  # its tokens count
        self.output_cap = reply_outcomes.cut_tool_call_cap(session.settings.max_output_tokens, retry)
        names = ", ".join(dict.fromkeys(c.name for c in reply.response.tool_calls))
        notice = (
            f"The model's {names} call was cut at the output limit and was not run: asking again with "
            f"room for {self.output_cap} tokens ({retry} of {reply_outcomes.CUT_TOOL_CALL_RETRIES})."
        )
        session.ui.on_event(StatusNotice(kind="retry", text=notice))
        if sink.shown:
            session.ui.on_event(StreamDiscarded(reason=exit_reasons.TRUNCATED))
        sink.reset()
        return sink

    def _budget_summary(self) -> TurnResult:
        """The budget is spent: the model is asked (without tools) to summarize, twice if its first answer
        has no text. It is never a blank success: a tool call it makes anyway is dropped (never run, never
        left unanswered), and with no text at all Hermes' sentence says so."""
        session = self.session
        limit = session.budget.max_total
        notice = f"Iteration budget exhausted ({self.api_calls}/{limit}): asking the model to summarize"
        session.ui.on_event(StatusNotice(kind="warn", text=notice))
        session.append(Message(role="user", content=BUDGET_PROMPT, meta={"synthetic": "budget"}))
        for attempt in (1, 2):
            try:
                response, sink, cost = self._call([], self.api_calls + attempt)
            except CallInterrupted as exc:
                self.writer.partial(exc.row, exc.partial)
                return self._after("interrupted", exc.partial.text)
            except InterruptedByUser:
                return self._after("interrupted", "")
            except CallFailed as exc:
                return self._after("budget_exhausted", exc.kept, exc.classified)
            summary = replace(response, tool_calls=[])
            if summary.text.strip():
                self.writer.response(summary, sink, cost)
                return self._after("budget_exhausted", summary.text)
            self.writer.empty(sink, summary, cost)
            if attempt == 1:
                notice = "The model gave no summary (no text): asking once more."
                session.ui.on_event(StatusNotice(kind="retry", text=notice))
        text = reply_outcomes.BUDGET_NO_SUMMARY.format(limit=limit)
        session.append(Message(role="assistant", content=text, meta={"synthetic": "budget"}))
        session.ui.on_event(StatusNotice(kind="warn", text=text))
        return self._after("budget_exhausted", text)

    def _record_exit(self, reason: str, line: str | None) -> None:
        """Why the turn ended, in Hermes' words, with the line the user was shown (`hermes-tui sessions`)."""
        session = self.session
        if session.store is None:
            return
        index = self.user_index
        user = session.messages[index] if 0 <= index < len(session.messages) else None
        try:
            session.store.record_turn(
                session.session_id,
                exit_reason=exit_reasons.stored_name(reason),
                user_message_id=user.id if user is not None else None,
                api_calls=self.api_calls,
                detail=line,
            )
        except Exception:
            pass

    def _is_first_turn(self) -> bool:
        if self.session.title_settled:
            return False
        messages = self.session.messages
        return sum(1 for m in messages if m.role == "user" and not m.meta.get("synthetic")) == 1

    def _title_in_background(self, first_reply: str) -> None:
        session = self.session
        if session.store is None or not session.settings.auto_title or not first_reply.strip():
            return
        from agent.session.titles import retitle_in_background

        settings = session.route.keyed_settings()
        retitle_in_background(
            session.store, session.session_id, lambda: make_transport(settings), self.text, first_reply
        )

    def _wire_additions(self, plugin_context: str) -> str:
        """This turn's wire-only additions to its user message: a `/skill-name` skill, plugin context, the
        plan-mode note, and the memory / skill reminders. Never in `content`: the transcript keeps what the
        user typed (the sidecar keeps what was sent, so the prompt's cache stays warm)."""
        offered = self._offered()
        parts = [
            skill_invocation(self.text, self.session.skills),
            plugin_context,
            self._mode_note(),
            *self.session.nudges.at_turn_start(
                memory_offered="memory" in offered, skills_offered="skill_manage" in offered
            ),
        ]
        return "\n\n".join(p for p in parts if p)

    def _mode_note(self) -> str:
        """Plan mode's note on each plan-mode message; the first message after plan mode says it is over
        (the earlier notes are still in the conversation, sent byte for byte)."""
        session = self.session
        mode = session.permission_mode
        if mode is PermissionMode.PLAN:
            return PLAN_NOTE
        previous = next((m for m in reversed(session.messages[:-1]) if m.role == "user"), None)
        if previous is not None and PLAN_NOTE in str(previous.meta.get(API_CONTENT, "")):
            return plan_exit_note(mode)
        return ""

    def _keep_api_content(self, message: Message, wire_text: str) -> None:
        """The turn's user message is sent as `wire_text` in this turn and every later one (resumed
        too): the sidecar is stored with it."""
        message.meta = {**message.meta, API_CONTENT: wire_text}
        store = self.session.store
        if store is not None and message.id is not None:
            store.update_message(message)

    def _deliver_steer(self) -> None:
        """A pending steer is appended to the last tool result (the transcript ends on one after a batch),
        never sent as a new user message."""
        session = self.session
        if not session.messages or session.messages[-1].role != "tool":
            return
        text = session.take_steer()
        if not text:
            return
        last = session.messages[-1]
        last.content += STEER_MARKER.format(text=text)
        last.meta = {**last.meta, "steer": text}
        if session.store is not None and last.id is not None:
            session.store.update_message(last)
        session.ui.on_event(SteerDelivered(text))

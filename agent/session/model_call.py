"""One model call of a turn: the request, its stream, its recovery when it fails, and what it cost.

A failure is classified and handed to the recovery table (`agent.session.recovery`); this object is the
table's `RecoveryHost`. The call ends with a response, `CallInterrupted` (Esc mid-stream: the partial
reply to keep), `InterruptedByUser` (Esc during a backoff) or `CallFailed` (recovery gave up).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agent.core.errors import ClassifiedError, EmptyStreamError, InterruptedByUser, classify
from agent.core.events import ApiCallStarted, StatusNotice, StreamDiscarded, UsageUpdated
from agent.core.messages import Message, Usage
from agent.prompts.system import context_sections
from agent.session import reply_outcomes, request_parts
from agent.session.call_sink import CallSink
from agent.session.compression import estimate_tokens
from agent.session.host import TurnHost
from agent.session.key_pool import KeyTurn
from agent.session.recovery import Failure, Verdict, recover
from agent.session.reply_writer import ReplyWriter
from agent.store.errors import StoreError
from agent.transports.base import ModelRequest, ModelResponse, PartialInterrupt, approx_tokens
from agent.usage.pricing import CallCost, call_cost

__all__ = ["CallFailed", "CallInterrupted", "ModelCall"]


class CallInterrupted(InterruptedByUser):
    """Interrupted mid-stream: the partial reply and its checkpointed row (if any) to finalize."""

    def __init__(self, partial: ModelResponse, row: Message | None):
        super().__init__("interrupted by user")
        self.partial = partial
        self.row = row


class CallFailed(Exception):
    """A model call failed for good; `kept` is the text of the reply it had streamed (kept, marked)."""

    def __init__(self, classified: ClassifiedError, kept: str = ""):
        super().__init__(classified.message)
        self.classified = classified
        self.kept = kept


class ModelCall:
    def __init__(
        self,
        session: TurnHost,
        tools: list[dict[str, Any]],
        *,
        iteration: int,
        turn_usage: Usage,
        output_cap: int | None = None,
        sink: CallSink | None = None,
    ) -> None:
        """`output_cap`: a larger cap for the retry of a cut tool call; `sink`: the previous attempt's (an
        empty or cut reply asked again reuses its partial row)."""
        self.session = session
        self.tools = tools
        self.iteration = iteration
        self.turn_usage = turn_usage
        self.output_cap = output_cap
        self.sink = sink or CallSink(session.ui, session.store, session.session_id)

    def run(self, *, precompress: bool = True) -> tuple[ModelResponse, CallSink, CallCost]:
        """The call, retried as recovery decides. `precompress`: check the compression threshold first
        (the turn's first request was checked by the turn's pre-compression phase)."""
        session = self.session
        if precompress:
            session.compressor.maybe(self.tools)
        session.route.begin_call()
        retries = 0
        while True:
            request = self._request()
            self._note_small_window(request)
            session.ui.on_event(
                ApiCallStarted(
                    iteration=self.iteration,
                    model=session.route.model,
                    max_iterations=session.budget.max_total,
                )
            )
            try:
                response = session.route.transport.stream(request, self.sink, session.interrupt_event)
            except PartialInterrupt as exc:
                raise CallInterrupted(exc.partial, self.sink.message) from None
            except StoreError as exc:  # the store's, never the provider's: not classified, not retried
                exc.unsaved_reply = bool(self.sink.text or self.sink.reasoning)
                raise
            except Exception as exc:
                failure = Failure(self._classify(exc, request), retries, session.settings.max_retries)
                verdict = recover(self, failure)
                if verdict is Verdict.GIVE_UP:
                    error = self._name_fixed_parts(failure.error, request)
                    raise CallFailed(error, ReplyWriter(session).failed(self.sink, error)) from exc
                if verdict is Verdict.STOPPED:
                    raise InterruptedByUser() from None
                if verdict is Verdict.RETRY_FRESH:
                    retries = 0
                elif verdict is Verdict.RETRY_COUNTED:
                    retries += 1
                continue
            return response, self.sink, self._account(request, response)

    def _request(self) -> ModelRequest:
        session = self.session
        return ModelRequest(
            messages=session.wire_messages(),
            tools=self.tools,
            max_tokens=self.output_cap or session.settings.max_output_tokens,
            reasoning=session.route.active_settings.reasoning_for(session.route.model),
        )

    def _request_parts(self, request: ModelRequest) -> request_parts.RequestParts:
        chars = sum(len(section) for section in context_sections(self.session.settings.cwd))
        return request_parts.RequestParts.of(request.messages, request.tools, chars)

    def _note_small_window(self, request: ModelRequest) -> None:
        """Once per model: a local model whose window is known and small is told how much of it the tools
        and the system prompt take (`request_parts.window_note`)."""
        session = self.session
        window = session.settings.context_window
        if session.window_noted or not window or session.route.on_fallback:
            return
        if not session.route.endpoint().is_local:
            return
        session.window_noted = True
        if (note := request_parts.window_note(self._request_parts(request), window)) is not None:
            session.ui.on_event(StatusNotice(kind="info", text=note))

    def _name_fixed_parts(self, error: ClassifiedError, request: ModelRequest) -> ClassifiedError:
        """An overflow recovery could not fix: when the tools and the system prompt are what does not fit,
        the line names them, their sizes and the fix (`request_parts.fixed_parts_overflow`)."""
        if error.reason != "context_overflow":
            return error
        window = self.session.settings.effective_context_window
        line = request_parts.fixed_parts_overflow(self._request_parts(request), window)
        return error if line is None else replace(error, hint=line)

    def _classify(self, exc: Exception, request: ModelRequest) -> ClassifiedError:
        """The failure in the loop's terms; an empty stream that was really an overflow says so."""
        session, route = self.session, self.session.route
        active = route.active_settings
        classified = classify(
            exc,
            provider=active.provider,
            model=route.model,
            base_url=active.base_url or "",
            key_var=route.fallback_key_var(),
            key_source=active.api_key_source,
        )
        if classified.reason == "context_overflow":
            self._learn_stated_window(exc, request)
        if isinstance(exc, EmptyStreamError):
            used = max(estimate_tokens(request.messages, request.tools), session.last_context_tokens)
            overflow = reply_outcomes.empty_stream_overflow(used, session.settings.effective_context_window)
            if overflow is not None:
                classified = overflow
            elif not session.settings.context_window and route.endpoint().is_local:
                classified = reply_outcomes.empty_stream_unknown_window(classified, used)
        return classified

    def _account(self, request: ModelRequest, response: ModelResponse) -> CallCost:
        """The call's tokens and cost into the turn's and the session's totals, and onto the meter."""
        session, route = self.session, self.session.route
        if session.trajectory is not None:
            names = [t["function"]["name"] for t in self.tools]
            session.trajectory.record_call(self.iteration, route.model, request.messages, names, response)
        if response.usage is not None:
            self.turn_usage.add(response.usage)
            session.session_usage.add(response.usage)
            session.last_context_tokens = response.usage.prompt_tokens + response.usage.completion_tokens
        else:
            session.last_context_tokens = approx_tokens(request.messages)
        cost = call_cost(response.usage, model=route.model, provider=route.provider, base_url=route.base_url)
        session.session_cost.add(cost)
        self._meter(
            response.usage or Usage(), session.last_context_tokens, cost.usd, session.session_cost.usd
        )
        return cost

    def _learn_stated_window(self, exc: BaseException, request: ModelRequest) -> None:
        """The window an overflow error states, when the configuration gives none (`WindowLearner`): the
        meter (told at once, with the refused request's size) and the compression that follows aim at it.
        Not while a fallback answers: the window is the primary's."""
        session = self.session
        stated = None if session.route.on_fallback else session.window.stated(session.settings, exc)
        if not stated:
            return
        session.settings = session.window.use(session.settings, stated)
        refused = estimate_tokens(request.messages, request.tools)
        priced = session.session_cost.usd or None  # no call priced yet: no "$0" for a local model
        self._meter(Usage(), max(refused, session.last_context_tokens), None, priced)

    def _meter(
        self, call: Usage, context_tokens: int, cost: float | None, session_cost: float | None
    ) -> None:
        """The context meter and the session's totals, told to the UI."""
        session = self.session
        session.ui.on_event(
            UsageUpdated(
                call=call,
                session=session.session_usage.copy(),
                context_tokens=context_tokens,
                context_window=session.settings.effective_context_window,
                cost=cost,
                session_cost=session_cost,
                session_unknown_calls=session.session_cost.unknown_calls,
            )
        )

    # ----------------------------------------------------------------- the recovery table's host

    def notice(self, text: str) -> None:
        self.session.ui.on_event(StatusNotice(kind="retry", text=text))

    def discard(self, error: ClassifiedError) -> None:
        if self.sink.shown:
            self.session.ui.on_event(StreamDiscarded(reason=error.reason))
            self.sink.reset()

    def next_key(self, error: ClassifiedError, retry_left: bool) -> KeyTurn | None:
        route = self.session.route
        if route.key_pool is None or route.on_fallback:
            return None
        return route.key_pool.after_failure(error, retry_left=retry_left)

    def use_key(self, key: str) -> None:
        self.session.route.use_key(key)

    def images_shrunk(self) -> bool:
        return self.session.images_shrunk

    def shrink_images(self) -> None:
        self.session.images_shrunk = True

    def may_compress(self) -> bool:
        return self.session.compressor.may_run

    def compress(self, reason: str) -> bool:
        return self.session.compressor.run(reason)

    def fall_back(self, error: ClassifiedError) -> bool:
        return self.session.activate_fallback(error)

    def wait(self, delay: float) -> bool:
        return self.session.backoff_wait(delay)

    def keep_failed(self, error: ClassifiedError) -> None:
        ReplyWriter(self.session).failed(self.sink, error)

"""How a turn writes its replies into the session (and the store): finished, interrupted, failed, empty or
cut, and each model call's tokens and cost.

Nothing the user saw is lost: a reply that never finished keeps its text, marked (`meta["incomplete"]`, the
exit reason); a partial row the stream checkpointed is finished in place, never written twice.
"""

from __future__ import annotations

from agent.core import exit_reasons
from agent.core.errors import ClassifiedError
from agent.core.events import AssistantMessageDone
from agent.core.messages import REASONING_DETAILS, Message, strip_surrogates
from agent.session.call_sink import CallSink
from agent.session.host import TurnHost
from agent.transports.base import ModelResponse
from agent.usage.pricing import CallCost

__all__ = ["ReplyWriter"]


class ReplyWriter:
    def __init__(self, session: TurnHost) -> None:
        self.session = session

    def _finish_row(self, row: Message | None, message: Message) -> None:
        """A new message is appended; a partial row the stream started is updated where it is."""
        session = self.session
        if row is None:
            session.append(message)
            return
        session.messages.append(message)
        if session.store is not None:
            session.store.update_message(message)

    def response(
        self, response: ModelResponse, sink: CallSink, cost: CallCost, *, incomplete: str | None = None
    ) -> Message:
        """A reply that arrived (whole, or `incomplete`: why not): kept, its call counted, shown as done."""
        message = sink.message or Message(role="assistant")
        message.content = strip_surrogates(response.text)
        message.reasoning = response.reasoning or None
        message.tool_calls = list(response.tool_calls)
        message.finish_reason = response.finish_reason
        message.usage = response.usage
        message.partial = False
        if incomplete:
            message.meta = {**message.meta, "incomplete": incomplete}
        if response.reasoning_details:
            message.meta = {**message.meta, REASONING_DETAILS: response.reasoning_details}
        self._finish_row(sink.message, message)
        self.call(response, cost, message.id)
        self.session.ui.on_event(
            AssistantMessageDone(
                text=message.content,
                reasoning=message.reasoning,
                tool_calls=tuple((c.id, c.name, c.arguments) for c in message.tool_calls),
                finish_reason=message.finish_reason,
                usage=response.usage,
            )
        )
        return message

    def call(self, response: ModelResponse, cost: CallCost, message_id: int | None) -> None:
        """One model call's tokens and cost in the store's `usage` table (and the session's totals)."""
        session = self.session
        if session.store is not None:
            route = session.route
            session.store.record_call(
                session.session_id,
                usage=response.usage,
                model=route.model,
                provider=route.provider or session.settings.api_mode,
                cost_usd=cost.usd,
                cost_source=cost.source,
                message_id=message_id,
            )

    def partial(self, row: Message | None, partial: ModelResponse, incomplete: str | None = None) -> None:
        """A reply's text that never finished: interrupted, or (`incomplete`: why) failed. Its unfinished
        tool calls are dropped: they never ran."""
        if not partial.text and not partial.reasoning and row is None:
            return
        message = row or Message(role="assistant")
        message.content = strip_surrogates(partial.text)
        message.reasoning = partial.reasoning or None
        message.tool_calls = []
        message.finish_reason = "incomplete" if incomplete else "interrupted"
        if incomplete:
            message.meta = {**message.meta, "incomplete": incomplete}
        message.partial = False
        self._finish_row(row, message)

    def failed(self, sink: CallSink, error: ClassifiedError) -> str:
        """A call that failed for good keeps whatever it streamed, marked incomplete. Returns the text."""
        text, reasoning = "".join(sink.text), "".join(sink.reasoning)
        store = self.session.store
        if text or reasoning:
            self.partial(sink.message, ModelResponse(text=text, reasoning=reasoning), error.exit_reason)
        elif store is not None and sink.message is not None and sink.message.id is not None:
            sink.message.partial = False
            sink.message.finish_reason = "error"
            store.update_message(sink.message)
        return text

    def cut(self, sink: CallSink, response: ModelResponse, cost: CallCost) -> None:
        """The last cut tool call: its text (if any) is kept, marked truncated; the call itself is not."""
        if response.text or sink.message is not None:
            self.response(response, sink, cost, incomplete=exit_reasons.TRUNCATED)
        else:
            self.call(response, cost, None)

    def empty(self, sink: CallSink, response: ModelResponse, cost: CallCost) -> None:
        """The last empty reply: a row it started (reasoning) is kept and says it was empty."""
        if sink.message is not None:
            self.response(response, sink, cost, incomplete=exit_reasons.EMPTY_RESPONSE)
        else:
            self.call(response, cost, None)

"""Chat-completions over the official `openai` SDK: OpenAI, OpenRouter, and local compatible servers.

The SDK is imported on first use (it costs ~0.5 s), never at module import, so the UI paints first.
"""

from __future__ import annotations

import threading
from typing import Any

from agent.errors import EmptyStreamError
from agent.messages import ToolCall, Usage
from agent.transports.base import ModelRequest, ModelResponse, SDKClientHolder, StreamSink, pump


class _ToolSlot:
    __slots__ = ("arguments", "id", "name", "started")

    def __init__(self) -> None:
        self.id = ""
        self.name = ""
        self.arguments: list[str] = []
        self.started = False


def _field(obj: Any, name: str) -> Any:
    """Read a field the SDK may keep as an attribute or only in `model_extra` (provider extensions)."""
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(name)
    return value


def _detail(obj: Any, name: str) -> int:
    value = obj.get(name) if isinstance(obj, dict) else _field(obj, name)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def usage_from_openai(raw: Any) -> Usage | None:
    if raw is None:
        return None
    usage = Usage(
        prompt_tokens=int(getattr(raw, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(raw, "completion_tokens", 0) or 0),
    )
    details = _field(raw, "prompt_tokens_details")
    if details is not None:
        usage.cache_read_tokens = int(_detail(details, "cached_tokens"))
        usage.cache_write_tokens = int(_detail(details, "cache_write_tokens"))  # OpenRouter
    cost = _field(raw, "cost")  # OpenRouter, when asked with `usage: {include: true}`
    if isinstance(cost, (int, float)) and not isinstance(cost, bool):
        usage.reported_cost = float(cost)
    cdetails = getattr(raw, "completion_tokens_details", None)
    if cdetails is not None:
        usage.reasoning_tokens = int(getattr(cdetails, "reasoning_tokens", 0) or 0)
    return usage


class ChatAccumulator:
    """Folds chat-completion chunks into one response, firing sink callbacks as deltas arrive."""

    def __init__(self, sink: StreamSink) -> None:
        self.sink = sink
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.slots: dict[int, _ToolSlot] = {}
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self.chunks = 0

    def handle(self, chunk: Any) -> None:
        self.chunks += 1
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            self.usage = usage_from_openai(usage)
        for choice in getattr(chunk, "choices", None) or []:
            delta = getattr(choice, "delta", None)
            if delta is not None:
                reasoning = _field(delta, "reasoning_content") or _field(delta, "reasoning")
                if isinstance(reasoning, str) and reasoning:
                    self.reasoning.append(reasoning)
                    self.sink.on_reasoning(reasoning)
                content = getattr(delta, "content", None)
                if content:
                    self.text.append(content)
                    self.sink.on_text(content)
                for tc in getattr(delta, "tool_calls", None) or []:
                    self._tool_delta(tc)
            if getattr(choice, "finish_reason", None):
                self.finish_reason = choice.finish_reason

    def _tool_delta(self, tc: Any) -> None:
        index = getattr(tc, "index", None)
        if index is None:
            index = len(self.slots)
        slot = self.slots.get(index)
        if slot is None:
            slot = self.slots[index] = _ToolSlot()
        if getattr(tc, "id", None):
            slot.id = str(tc.id)
        fn = getattr(tc, "function", None)
        if fn is not None:
            if getattr(fn, "name", None):
                slot.name = fn.name  # assigned, not concatenated: some servers resend the name
            if getattr(fn, "arguments", None):
                slot.arguments.append(fn.arguments)
        if slot.name and not slot.started:
            slot.started = True
            self.sink.on_tool_start(index, slot.id, slot.name)

    def response(self) -> ModelResponse:
        calls = []
        for i, index in enumerate(sorted(self.slots)):
            slot = self.slots[index]
            if not slot.name:
                continue
            calls.append(
                ToolCall(id=slot.id or f"call_{i}", name=slot.name, arguments="".join(slot.arguments) or "{}")
            )
        finish = self.finish_reason
        if calls and finish in (None, "stop"):
            finish = "tool_calls"
        return ModelResponse(
            text="".join(self.text),
            reasoning="".join(self.reasoning),
            tool_calls=calls,
            finish_reason=finish,
            usage=self.usage,
        )


class OpenAIChatTransport(SDKClientHolder):
    name = "openai_chat"

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None,
        api_key: str | None,
        stale_timeout: float = 180.0,
        connect_timeout: float = 30.0,
        extra_headers: dict[str, str] | None = None,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self._api_key = api_key
        self.stale_timeout = stale_timeout
        self.connect_timeout = connect_timeout
        self.extra_headers = extra_headers or {}
        self.extra_body = extra_body or {}
        SDKClientHolder.__init__(self)

    def _create_client(self) -> Any:
        import openai

        return openai.OpenAI(
            base_url=self.base_url,
            api_key=self._api_key or "not-needed",
            max_retries=0,  # the loop retries, with interruptible backoff and user-visible notices
            timeout=openai.Timeout(
                connect=self.connect_timeout,
                read=self.stale_timeout + 5,
                write=60.0,
                pool=self.connect_timeout,
            ),
            default_headers=self.extra_headers or None,
        )

    def build_kwargs(self, request: ModelRequest) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": request.messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            kwargs["tools"] = request.tools
        if request.max_tokens:
            kwargs["max_tokens"] = request.max_tokens
        if self.extra_body:
            kwargs["extra_body"] = self.extra_body
        return kwargs

    def stream(self, request: ModelRequest, sink: StreamSink, interrupt: threading.Event) -> ModelResponse:
        client = self._get_client()
        acc = ChatAccumulator(sink)
        kwargs = self.build_kwargs(request)
        completed: dict[str, Any] = {}

        def open_stream() -> Any:
            return client.chat.completions.create(**kwargs)

        def iterate(stream: Any) -> Any:
            # A server that ignores stream=True returns a finished completion: use it as is.
            if hasattr(stream, "choices"):
                completed["response"] = stream
                return iter(())
            return iter(stream)

        pump(
            open_stream,
            iterate,
            acc.handle,
            acc.response,
            interrupt=interrupt,
            stale_timeout=self.stale_timeout,
            on_idle=getattr(sink, "on_idle", None),
        )
        if "response" in completed:
            return _from_completion(completed["response"], sink)
        if acc.chunks == 0:
            raise EmptyStreamError("the stream ended without a single chunk")
        return acc.response()


def _from_completion(resp: Any, sink: StreamSink) -> ModelResponse:
    choice = resp.choices[0] if resp.choices else None
    msg = getattr(choice, "message", None)
    text = getattr(msg, "content", None) or ""
    reasoning = (
        (_field(msg, "reasoning_content") or _field(msg, "reasoning") or "") if msg is not None else ""
    )
    calls = [
        ToolCall(id=str(tc.id), name=tc.function.name, arguments=tc.function.arguments or "{}")
        for tc in (getattr(msg, "tool_calls", None) or [])
    ]
    if reasoning:
        sink.on_reasoning(reasoning)
    for i, call in enumerate(calls):
        sink.on_tool_start(i, call.id, call.name)
    if text:
        sink.on_text(text)
    finish = getattr(choice, "finish_reason", None)
    return ModelResponse(text, reasoning, calls, finish, usage_from_openai(getattr(resp, "usage", None)))

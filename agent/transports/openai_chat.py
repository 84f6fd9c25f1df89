"""Chat-completions over the official `openai` SDK: OpenAI, OpenRouter, and local compatible servers.

The SDK owns the client, auth, base URL, headers, retries (off) and the HTTP error types; the stream is read
from its raw streaming response and decoded here (`agent.transports.sse`), without one pydantic model per
chunk. The SDK is imported on first use (it costs ~0.5 s), never at module import, so the UI paints first;
`prewarm()` does it ahead of the first request.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

from agent.core.errors import EmptyStreamError, StreamIncompleteError, hung_up_without_response
from agent.core.messages import ToolCall, Usage
from agent.images.parts import openai_messages
from agent.transports.base import (
    DeltaRuns,
    ModelRequest,
    ModelResponse,
    SDKClientHolder,
    StreamSink,
)
from agent.transports.cache_control import mark_envelope
from agent.transports.endpoint import Endpoint
from agent.transports.reasoning import chat_fields, chat_replay
from agent.transports.sse import ServerSentEvent
from agent.transports.stream_reader import DONE, api_error, read_batches
from agent.transports.think_scrubber import scrub


class _ToolSlot:
    __slots__ = ("arguments", "id", "name", "started")

    def __init__(self) -> None:
        self.id = ""
        self.name = ""
        self.arguments: list[str] = []
        self.started = False


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else None


def _count(obj: Any, name: str) -> int:
    value = _get(obj, name)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def usage_from_openai(raw: Any) -> Usage | None:
    """`usage` of a chunk or a completion, as decoded JSON."""
    if raw is None:
        return None
    usage = Usage(
        prompt_tokens=int(_get(raw, "prompt_tokens") or 0),
        completion_tokens=int(_get(raw, "completion_tokens") or 0),
    )
    details = _get(raw, "prompt_tokens_details")
    if details is not None:
        usage.cache_read_tokens = _count(details, "cached_tokens")
        usage.cache_write_tokens = _count(details, "cache_write_tokens")  # OpenRouter
    cost = _get(raw, "cost")  # OpenRouter, when asked with `usage: {include: true}`
    if isinstance(cost, (int, float)) and not isinstance(cost, bool):
        usage.reported_cost = float(cost)
    cdetails = _get(raw, "completion_tokens_details")
    if cdetails is not None:
        usage.reasoning_tokens = int(_get(cdetails, "reasoning_tokens") or 0)
    return usage


class ChatAccumulator:
    """Folds chat-completion chunks (decoded JSON) into one response, firing sink callbacks as they arrive.

    `handle` takes every chunk one network read brought; consecutive text (or reasoning) deltas among them
    reach the sink as one call (`DeltaRuns`: a `<think>` block written into the content is reasoning).
    """

    def __init__(self, sink: StreamSink) -> None:
        self.sink = sink
        self.deltas = DeltaRuns(sink)
        self.slots: dict[int, _ToolSlot] = {}
        self.finish_reason: str | None = None
        self.usage: Usage | None = None
        self.chunks = 0
        self.saw_done = False  # `[DONE]` arrived (set by the reader thread before the stream ends)
        self.details: dict[Any, dict[str, Any]] = {}  # OpenRouter's reasoning_details, by index

    def mark_done(self) -> None:
        self.saw_done = True

    def handle(self, batch: list[Any]) -> None:
        for chunk in batch:
            self.chunks += 1
            if not isinstance(chunk, dict):
                continue
            usage = chunk.get("usage")
            if usage is not None:
                self.usage = usage_from_openai(usage)
            for choice in chunk.get("choices") or ():
                if isinstance(choice, dict):
                    self._choice(choice)
        self.deltas.flush()

    def _choice(self, choice: dict[str, Any]) -> None:
        delta = choice.get("delta")
        if delta and isinstance(delta, dict):
            self.deltas.thinking(delta.get("reasoning_content") or delta.get("reasoning"))
            details = delta.get("reasoning_details")
            if isinstance(details, list):
                self._details(details)
            self.deltas.content(delta.get("content"))
            tool_calls = delta.get("tool_calls")
            if tool_calls:
                self.deltas.flush()
                for tc in tool_calls:
                    if isinstance(tc, dict):
                        self._tool_delta(tc)
        finish = choice.get("finish_reason")
        if finish:
            self.finish_reason = finish

    def _details(self, items: list[Any]) -> None:
        """OpenRouter's `reasoning_details` arrive in pieces per `index`: their text (summary, data) is
        joined, their other fields (signature, format, id) kept as the last piece gave them."""
        for item in items:
            if not isinstance(item, dict):
                continue
            index = item.get("index", len(self.details))
            kept = self.details.get(index)
            if kept is None:
                self.details[index] = dict(item)
                continue
            for key, value in item.items():
                if key in ("text", "summary", "data") and isinstance(value, str):
                    kept[key] = str(kept.get(key) or "") + value
                elif value is not None:
                    kept[key] = value

    def _tool_delta(self, tc: dict[str, Any]) -> None:
        index = tc.get("index")
        if index is None:
            index = len(self.slots)
        slot = self.slots.get(index)
        if slot is None:
            slot = self.slots[index] = _ToolSlot()
        if tc.get("id"):
            slot.id = str(tc["id"])
        fn = tc.get("function")
        if isinstance(fn, dict):
            if fn.get("name"):
                slot.name = fn["name"]  # assigned, not concatenated: some servers resend the name
            if fn.get("arguments"):
                slot.arguments.append(fn["arguments"])
        if slot.name and not slot.started:
            slot.started = True
            self.sink.on_tool_start(index, slot.id, slot.name)

    def response(self) -> ModelResponse:
        self.deltas.finish()
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
            text="".join(self.deltas.text),
            reasoning="".join(self.deltas.reasoning),
            tool_calls=calls,
            finish_reason=finish,
            usage=self.usage,
            reasoning_details=list(self.details.values()),
        )


def chunk_batches(response: Any, sdk: Any, on_done: Callable[[], None] | None = None) -> Iterator[list[Any]]:
    """The decoded chunks of an SSE chat-completion stream, one list per network read, as the SDK's own
    stream reads them (`agent.transports.stream_reader`): `[DONE]` ends it (and calls `on_done`); a chunk
    carrying `error` raises the SDK's `APIError`; a chunk that is not JSON raises `json.JSONDecodeError`."""

    def parse(sse: ServerSentEvent) -> Any:
        if sse.data.startswith("[DONE]"):
            return DONE
        data = json.loads(sse.data)
        if isinstance(data, dict) and data.get("error"):
            raise api_error(sdk, response, data["error"])
        return data

    return read_batches(response, sdk, parse, on_done=on_done)


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
        cache_control: bool = False,
        extra_body: dict[str, Any] | None = None,
        endpoint: Endpoint | None = None,
    ) -> None:
        self.model = model
        # Who is called (provider, URL, model): which reasoning fields it takes (`chat_fields`).
        self.endpoint = endpoint or Endpoint("", base_url or "", model)
        self.base_url = base_url
        self._api_key = api_key
        self.stale_timeout = stale_timeout  # the endpoint's; a large request gets more (`stale_timeout_for`)
        self.connect_timeout = connect_timeout
        self.extra_headers = extra_headers or {}
        self.cache_control = cache_control  # Anthropic markers in the envelope (Claude through OpenRouter)
        self.extra_body = extra_body or {}
        self.whole_with_tools = False  # requests with tools are sent unstreamed (`stream`)
        SDKClientHolder.__init__(self)

    def _create_client(self) -> Any:
        import openai

        return openai.OpenAI(**self._sdk_options(openai), default_headers=self.extra_headers or None)

    def _client_key(self) -> tuple[Any, ...]:
        headers = tuple(sorted(self.extra_headers.items()))
        return (self.name, self.base_url, self._api_key, self.stale_timeout, self.connect_timeout, headers)

    def _warm_client(self, client: Any) -> None:
        _ = client.chat.completions.with_streaming_response

    def build_kwargs(self, request: ModelRequest) -> dict[str, Any]:
        messages = chat_replay(openai_messages(request.messages), self.endpoint)  # images as image_url parts
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": mark_envelope(messages) if self.cache_control else messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            kwargs["tools"] = request.tools
            if self.endpoint.names_tool_choice:
                kwargs["tool_choice"] = "auto"
        if request.max_tokens:
            kwargs["max_tokens"] = request.max_tokens
        body, top = chat_fields(self.endpoint, request.reasoning)
        extra = {**self.extra_body, **body, **top}
        if extra:
            kwargs["extra_body"] = extra
        return kwargs

    def stream(self, request: ModelRequest, sink: StreamSink, interrupt: threading.Event) -> ModelResponse:
        """One model call, streamed. A local server that sends nothing at all (an empty stream, or a hang-up
        before any response) is asked again once without streaming: llama-cpp-python cannot stream a reply
        whose tools the model chooses (it fails after the headers, every time: its requests with tools are
        then sent whole, `whole_with_tools`), and a llama server's overflow (llama.cpp's empty stream,
        llama-cpp-python's hang-up) is a plain error that states the window (`context_length_exceeded`)
        when not streamed."""
        kwargs = untransformed(self.build_kwargs(request))
        whole = self.whole_with_tools and bool(request.tools)
        try:
            if whole:
                return self._whole(kwargs, request, sink, interrupt)
            return self._exchange(kwargs, request, sink, interrupt)
        except EmptyStreamError:
            if whole or not self.endpoint.is_local:
                raise
            hung_up = False
        except Exception as exc:
            if whole or not self.endpoint.is_local or not hung_up_without_response(exc):
                raise
            hung_up = True  # the hang-up's reason, said plainly when asked unstreamed
        response = self._whole(kwargs, request, sink, interrupt)
        if request.tools and not hung_up:
            self.whole_with_tools = True
        return response

    def _whole(
        self, kwargs: dict[str, Any], request: ModelRequest, sink: StreamSink, interrupt: threading.Event
    ) -> ModelResponse:
        """The request unstreamed; from a local server, once more if it hung up before any response: a
        stream that failed after its headers (llama-cpp-python's empty stream) can leave its connection in
        the client's pool, dead, and the next request sent down it is reset or dropped unanswered."""
        try:
            return self._exchange(_unstreamed(kwargs), request, sink, interrupt)
        except Exception as exc:
            if not self.endpoint.is_local or not hung_up_without_response(exc):
                raise
        return self._exchange(_unstreamed(kwargs), request, sink, interrupt)  # on a fresh connection

    def _exchange(
        self, kwargs: dict[str, Any], request: ModelRequest, sink: StreamSink, interrupt: threading.Event
    ) -> ModelResponse:
        client = self._get_client()
        sdk = _sdk()
        acc = ChatAccumulator(sink)
        completed: dict[str, Any] = {}

        def send(sent: dict[str, Any]) -> Any:
            # The raw streaming response: the SDK sends the request and raises its own errors for an HTTP
            # error status, but leaves the body to us.
            return client.chat.completions.with_streaming_response.create(**sent).__enter__()

        def iterate(opened: Any) -> Iterator[list[Any]]:
            response = opened.http_response
            content_type = response.headers.get("content-type", "").split(";")[0].strip()
            if content_type.endswith("json"):
                # A server that ignores stream=True returns a finished completion: use it as is.
                completed["response"] = json.loads(response.read())
                response.close()
                return iter(())
            return chunk_batches(response, sdk, acc.mark_done)

        self.read_reply(request, kwargs, sdk, send, iterate, acc, sink, interrupt)
        if "response" in completed:
            return _from_completion(completed["response"], sink)
        if acc.chunks == 0:
            raise EmptyStreamError("the stream ended without a single chunk")
        if acc.finish_reason is None and not acc.saw_done:
            # Servers that omit the finish reason but send `[DONE]` are fine; neither means a cut reply.
            raise StreamIncompleteError("the stream ended without a finish reason or [DONE]")
        return acc.response()


def _unstreamed(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The same request asking for the whole reply at once (`stream: false`, no stream options)."""
    out = {key: value for key, value in kwargs.items() if key != "stream_options"}
    out["stream"] = False
    return out


def untransformed(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The same request with `messages` and `tools` passed through the SDK's `extra_body`.

    `create()` walks every parameter through its TypedDict-driven transform, a deep recursive copy that
    changes nothing for JSON-shaped dicts like ours but took 0.23 s (holding the GIL) for a 300-turn session's
    800 messages, on every model call. `extra_body` is merged into the JSON body as is, in the same place:
    the bytes on the wire are identical (a test compares them).
    """
    out = dict(kwargs)
    extra = {key: out.pop(key) for key in ("messages", "tools") if key in out}
    out["messages"] = []
    out["extra_body"] = {**(out.get("extra_body") or {}), **extra}  # a provider's own fields stay
    return out


def _sdk() -> Any:
    import openai

    return openai


def _from_completion(resp: Any, sink: StreamSink) -> ModelResponse:
    choices = _get(resp, "choices") or []
    choice = choices[0] if choices else None
    msg = _get(choice, "message")
    text = _get(msg, "content") or ""
    reasoning = _get(msg, "reasoning_content") or _get(msg, "reasoning") or ""
    if not isinstance(reasoning, str):
        reasoning = ""
    if isinstance(text, str) and "<" in text:
        text, inline = scrub(text)
        reasoning = f"{reasoning}\n\n{inline}" if reasoning and inline else reasoning or inline
    calls = []
    for tc in _get(msg, "tool_calls") or []:
        fn = _get(tc, "function") or {}
        calls.append(
            ToolCall(id=str(_get(tc, "id")), name=fn.get("name") or "", arguments=fn.get("arguments") or "{}")
        )
    if reasoning:
        sink.on_reasoning(reasoning)
    for i, call in enumerate(calls):
        sink.on_tool_start(i, call.id, call.name)
    if text:
        sink.on_text(text)
    finish = _get(choice, "finish_reason")
    return ModelResponse(text, reasoning, calls, finish, usage_from_openai(_get(resp, "usage")))

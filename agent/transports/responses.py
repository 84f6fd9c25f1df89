"""The OpenAI Responses API (Hermes' `api_mode: codex_responses`) over the official `openai` SDK, streamed.

The third wire protocol beside chat completions and Anthropic's messages: xAI and GPT-5.x on api.openai.com
answer tool-using, reasoning turns only here. The transcript stays in its one neutral shape and is converted
on the wire as Hermes does: the system prompt becomes `instructions`, messages become `input` items (a
`message` per turn, `function_call` for each call the model made, `function_call_output` for each result),
`store: false` (nothing kept at OpenAI), and the encrypted reasoning items the provider sent (asked for
with `include: ["reasoning.encrypted_content"]`) go back, in place, before the reply they came with, so the
next call of the turn continues the same reasoning. Images (attached by the user, or returned by a tool)
are `input_image` parts with a data URL, laid out as on chat completions (`agent.images.parts`: a tool
result's images follow the run of results in one user message).

The stream is read from the SDK's raw streaming response and decoded here (`agent.transports.sse`), as the
other transports do: text and function-call argument deltas reach the sink as they come, the reasoning
summary as reasoning; `response.completed` (or `response.incomplete`, at the output limit) ends it, and a
stream without either is incomplete (retried by the loop).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

from agent.core.errors import EmptyStreamError, StreamIncompleteError
from agent.core.messages import ToolCall, Usage
from agent.images.parts import openai_messages
from agent.transports.base import (
    DeltaRuns,
    ModelRequest,
    ModelResponse,
    SDKClientHolder,
    StreamSink,
)
from agent.transports.reasoning import responses_fields
from agent.transports.sse import ServerSentEvent
from agent.transports.stream_reader import SKIP, api_error, read_batches

__all__ = ["ResponsesAccumulator", "ResponsesTransport", "convert_input"]

DEFAULT_INSTRUCTIONS = "You are a helpful assistant."
"""What `instructions` says when the conversation has no system prompt (the API requires one)."""


def _text(content: Any) -> str:
    return content if isinstance(content, str) else ""


def _user_content(content: Any) -> str | list[dict[str, Any]]:
    """A user message's content: its text, or (with images) its chat-completions parts as Responses input
    parts: `input_text`, and `input_image` with the data URL."""
    if not isinstance(content, list):
        return _text(content)
    parts: list[dict[str, Any]] = []
    for part in content:
        if part.get("type") == "image_url":
            parts.append(
                {"type": "input_image", "image_url": str((part.get("image_url") or {}).get("url", ""))}
            )
        elif part.get("type") == "text":
            parts.append({"type": "input_text", "text": str(part.get("text") or "")})
    return parts


def convert_input(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Chat-completions messages -> (instructions, Responses input items)."""
    instructions: list[str] = []
    items: list[dict[str, Any]] = []
    for msg in openai_messages(messages):  # images as content parts, tool results' after their run
        role = msg.get("role")
        if role == "system":
            if msg.get("content"):
                instructions.append(_text(msg["content"]))
            continue
        if role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": str(msg.get("tool_call_id") or ""),
                    "output": _text(msg.get("content")) or "(empty)",
                }
            )
            continue
        if role == "assistant":
            for detail in msg.get("reasoning_details") or ():
                if (
                    isinstance(detail, dict)
                    and detail.get("type") == "reasoning"
                    and detail.get("encrypted_content")
                ):
                    items.append({k: v for k, v in detail.items() if k not in ("id", "status")})
            if msg.get("content"):
                items.append({"role": "assistant", "content": _text(msg["content"])})
            for call in msg.get("tool_calls") or ():
                fn = call.get("function") or {}
                items.append(
                    {
                        "type": "function_call",
                        "call_id": str(call.get("id") or ""),
                        "name": str(fn.get("name") or ""),
                        "arguments": str(fn.get("arguments") or "{}"),
                    }
                )
            continue
        items.append({"role": "user", "content": _user_content(msg.get("content"))})
    return "\n\n".join(instructions).strip(), items


def convert_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chat-completions function specs -> Responses function tools (flat, not nested in `function`)."""
    out = []
    for tool in tools:
        fn = tool.get("function") or {}
        out.append(
            {
                "type": "function",
                "name": fn.get("name", ""),
                "description": fn.get("description", ""),
                "parameters": fn.get("parameters") or {"type": "object", "properties": {}},
                "strict": False,
            }
        )
    return out


def usage_from_responses(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    usage = Usage(
        prompt_tokens=int(raw.get("input_tokens") or 0), completion_tokens=int(raw.get("output_tokens") or 0)
    )
    details = raw.get("input_tokens_details")
    if isinstance(details, dict):
        usage.cache_read_tokens = int(details.get("cached_tokens") or 0)
    out_details = raw.get("output_tokens_details")
    if isinstance(out_details, dict):
        usage.reasoning_tokens = int(out_details.get("reasoning_tokens") or 0)
    return usage


class ResponsesAccumulator:
    """Folds Responses stream events (decoded JSON) into one response; consecutive deltas of one kind in
    one network read reach the sink as one call."""

    def __init__(self, sink: StreamSink) -> None:
        self.sink = sink
        self.deltas = DeltaRuns(sink)
        self.calls: dict[object, dict[str, Any]] = {}  # by output index: call_id, name, arguments
        self.reasoning_items: list[dict[str, Any]] = []
        self.status: str | None = None  # completed | incomplete, from the terminal event
        self.incomplete_reason = ""
        self.usage: Usage | None = None
        self.events = 0

    def handle(self, batch: list[Any]) -> None:
        for event in batch:
            if isinstance(event, dict):
                self.events += 1
                self._event(event)
        self.deltas.flush()

    def _event(self, event: dict[str, Any]) -> None:
        kind = event.get("type", "")
        if kind == "response.output_text.delta":
            self.deltas.content(event.get("delta"))
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            self.deltas.thinking(event.get("delta"))
        elif kind == "response.function_call_arguments.delta":
            call = self.calls.get(event.get("output_index"))
            if call is not None and isinstance(event.get("delta"), str):
                call["arguments"].append(event["delta"])
        elif kind == "response.output_item.added":
            item = event.get("item")
            if isinstance(item, dict) and item.get("type") == "function_call":
                self.deltas.flush()
                call = {
                    "call_id": str(item.get("call_id") or ""),
                    "name": str(item.get("name") or ""),
                    "arguments": [],
                }
                self.calls[event.get("output_index")] = call
                self.sink.on_tool_start(len(self.calls) - 1, call["call_id"], call["name"])
        elif kind == "response.output_item.done":
            item = event.get("item")
            if isinstance(item, dict) and item.get("type") == "reasoning" and item.get("encrypted_content"):
                self.reasoning_items.append(dict(item))
            elif isinstance(item, dict) and item.get("type") == "function_call":
                call = self.calls.get(event.get("output_index"))
                if call is not None and isinstance(item.get("arguments"), str) and not call["arguments"]:
                    call["arguments"].append(item["arguments"])
        elif kind in ("response.completed", "response.incomplete"):
            raw = event.get("response")
            response: dict[str, Any] = raw if isinstance(raw, dict) else {}
            self.status = "incomplete" if kind == "response.incomplete" else "completed"
            details = response.get("incomplete_details")
            if isinstance(details, dict):
                self.incomplete_reason = str(details.get("reason") or "")
            self.usage = usage_from_responses(response.get("usage"))

    def response(self) -> ModelResponse:
        self.deltas.finish()
        calls = [
            ToolCall(
                id=c["call_id"] or f"call_{i}", name=c["name"], arguments="".join(c["arguments"]) or "{}"
            )
            for i, c in enumerate(self.calls.values())
            if c["name"]
        ]
        if self.status == "incomplete" and self.incomplete_reason == "content_filter":
            finish: str | None = "content_filter"
        elif self.status == "incomplete":
            finish = "length"
        elif calls:
            finish = "tool_calls"
        else:
            finish = "stop" if self.status else None
        return ModelResponse(
            "".join(self.deltas.text),
            "".join(self.deltas.reasoning),
            calls,
            finish,
            self.usage,
            list(self.reasoning_items),
        )


def event_batches(response: Any, sdk: Any) -> Iterator[list[Any]]:
    """The decoded events of a Responses stream, one list per network read
    (`agent.transports.stream_reader`). An `error` or `response.failed` event raises the SDK's `APIError`
    (classified like any provider error); an event that is not JSON raises `json.JSONDecodeError`."""

    def parse(sse: ServerSentEvent) -> Any:
        if not sse.data or sse.data.startswith("[DONE]"):
            return SKIP
        data = json.loads(sse.data)
        if isinstance(data, dict) and data.get("type") in ("error", "response.failed"):
            error = data.get("error")
            if error is None and isinstance(data.get("response"), dict):
                error = data["response"].get("error")
            raise api_error(sdk, response, error)
        return data

    return read_batches(response, sdk, parse)


class ResponsesTransport(SDKClientHolder):
    name = "responses"

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None,
        api_key: str | None,
        stale_timeout: float = 180.0,
        connect_timeout: float = 30.0,
        xai: bool = False,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self._api_key = api_key
        self.stale_timeout = stale_timeout
        self.connect_timeout = connect_timeout
        self.xai = xai  # xAI's Responses: its own effort range, no reasoning summary
        SDKClientHolder.__init__(self)

    def _create_client(self) -> Any:
        import openai

        return openai.OpenAI(**self._sdk_options(openai))

    def _client_key(self) -> tuple[Any, ...]:
        return (self.name, self.base_url, self._api_key, self.stale_timeout, self.connect_timeout)

    def _warm_client(self, client: Any) -> None:
        _ = client.responses.with_streaming_response

    def build_kwargs(self, request: ModelRequest) -> dict[str, Any]:
        instructions, items = convert_input(request.messages)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "instructions": instructions or DEFAULT_INSTRUCTIONS,
            "input": items,
            "store": False,
            "stream": True,
        }
        if request.tools:
            kwargs["tools"] = convert_tools(request.tools)
            kwargs["tool_choice"] = "auto"
            kwargs["parallel_tool_calls"] = True
        if request.max_tokens:
            kwargs["max_output_tokens"] = request.max_tokens
        kwargs.update(responses_fields(self.model, request.reasoning, xai=self.xai))
        return kwargs

    def stream(self, request: ModelRequest, sink: StreamSink, interrupt: threading.Event) -> ModelResponse:
        import openai

        client = self._get_client()
        acc = ResponsesAccumulator(sink)
        kwargs = self.build_kwargs(request)
        # `input` and `tools` as they are (JSON-shaped already): the SDK's transform is a deep copy.
        body = {key: kwargs.pop(key) for key in ("input", "tools") if key in kwargs}
        kwargs["extra_body"] = body
        kwargs["input"] = []
        self.read_reply(
            request,
            kwargs,
            openai,
            lambda sent: client.responses.with_streaming_response.create(**sent).__enter__(),
            lambda opened: event_batches(opened.http_response, openai),
            acc,
            sink,
            interrupt,
        )
        if acc.events == 0:
            raise EmptyStreamError("the stream ended without a single event")
        if acc.status is None:
            raise StreamIncompleteError("the stream ended without response.completed")
        return acc.response()

"""The Anthropic messages API over the official `anthropic` SDK, streamed.

The SDK owns the client, auth, headers, retries (off) and error types; the stream is read from its raw
streaming response and decoded here (`agent.transports.sse`), without one model object per event. Claude on
Bedrock or Vertex is the same transport with the SDK's cloud client (`agent.transports.claude_clouds`):
only the client, the URL the model goes in, and Bedrock's event-stream framing differ.

The transcript stays in one neutral (chat-completions) shape; it is converted here on the wire: the system
prompt pulled out, assistant tool calls as `tool_use` blocks, tool results as `tool_result` blocks inside a
user turn, consecutive same-role turns merged. Prompt caching marks the system prompt and the last three
messages, so a long session re-reads its prefix from the cache on every call.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

from agent.config.cloud import CloudAccess
from agent.core.errors import EmptyStreamError, StreamIncompleteError
from agent.core.messages import ToolCall, Usage
from agent.images.parts import anthropic_image_blocks
from agent.transports.base import (
    DeltaRuns,
    ModelRequest,
    ModelResponse,
    SDKClientHolder,
    StreamSink,
)
from agent.transports.cache_control import CACHE_MARKER
from agent.transports.reasoning import anthropic_fields
from agent.transports.sse import ServerSentEvent
from agent.transports.stream_reader import SKIP, read_batches, status_error

DEFAULT_MAX_TOKENS = 16_384
STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
    "pause_turn": "stop",
}
CACHE = CACHE_MARKER


def _tool_input(arguments: str) -> dict[str, Any]:
    try:
        value = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


_THINKING = frozenset({"thinking", "redacted_thinking"})


def _thinking_blocks(msg: dict[str, Any]) -> list[dict[str, Any]]:
    """An assistant message's kept thinking blocks, as input blocks (only the fields the input takes); a
    `reasoning_content` echo (Kimi, DeepSeek) becomes an unsigned one when there are none."""
    blocks: list[dict[str, Any]] = []
    for detail in msg.get("reasoning_details") or ():
        kind = detail.get("type") if isinstance(detail, dict) else None
        if kind == "thinking":
            block = {"type": "thinking", "thinking": str(detail.get("thinking") or "")}
            if detail.get("signature"):
                block["signature"] = str(detail["signature"])
            blocks.append(block)
        elif kind == "redacted_thinking" and detail.get("data"):
            blocks.append({"type": "redacted_thinking", "data": str(detail["data"])})
    echo = msg.get("reasoning_content")
    if not blocks and isinstance(echo, str):
        blocks.append({"type": "thinking", "thinking": echo})
    return blocks


def _replay_thinking(out: list[dict[str, Any]], replay: str) -> None:
    """Keep or drop each assistant turn's thinking blocks as the endpoint requires (see
    `Endpoint.anthropic_thinking_replay`); the latest turn's signed blocks go back exactly as they came."""
    latest = max((i for i, m in enumerate(out) if m["role"] == "assistant"), default=-1)
    for i, msg in enumerate(out):
        if msg["role"] != "assistant" or not any(b["type"] in _THINKING for b in msg["content"]):
            continue
        if replay == "as_is":
            continue
        kept: list[dict[str, Any]] = []
        for block in msg["content"]:
            if block["type"] not in _THINKING:
                kept.append(block)
            elif replay == "unsigned":
                if not block.get("signature") and not block.get("data"):
                    kept.append(block)
            elif replay == "signed" and i == latest:
                if block.get("signature") or block.get("data"):
                    kept.append(block)
                elif block.get("thinking"):  # unsigned: kept as text, so the reasoning is not lost
                    kept.append({"type": "text", "text": block["thinking"]})
        msg["content"] = kept or [{"type": "text", "text": "(thinking elided)"}]


def _wire_turn(msg: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """One non-system chat-completions message as (Anthropic role, content blocks): a tool result is a
    `tool_result` block in a user turn, an assistant's calls `tool_use` blocks after its thinking and
    text, a user's images before its text."""
    role = msg["role"]
    blocks: list[dict[str, Any]] = []
    if role == "tool":
        result: str | list[dict[str, Any]] = msg.get("content") or "(empty)"
        if msg.get("images"):  # what the tool returned (an MCP server's): image blocks in its result
            result = [{"type": "text", "text": result}, *anthropic_image_blocks(msg["images"])]
        return "user", [{"type": "tool_result", "tool_use_id": msg["tool_call_id"], "content": result}]
    if role == "assistant":
        blocks.extend(_thinking_blocks(msg))  # thinking comes first in an assistant turn
    else:
        blocks.extend(anthropic_image_blocks(msg.get("images") or []))
    if msg.get("content"):
        blocks.append({"type": "text", "text": msg["content"]})
    for call in (msg.get("tool_calls") or []) if role == "assistant" else ():
        fn = call["function"]
        blocks.append(
            {"type": "tool_use", "id": call["id"], "name": fn["name"], "input": _tool_input(fn["arguments"])}
        )
    return role, blocks


def _append_turn(out: list[dict[str, Any]], role: str, blocks: list[dict[str, Any]]) -> None:
    """Add a turn, merged into the previous one of the same role (the API wants roles to alternate); tool
    results come first in a merged user turn."""
    if not out or out[-1]["role"] != role:
        out.append({"role": role, "content": blocks})
        return
    prev = out[-1]["content"]
    if role == "user" and any(b["type"] == "tool_result" for b in blocks):
        merged = prev + blocks
        out[-1]["content"] = [b for b in merged if b["type"] == "tool_result"] + [
            b for b in merged if b["type"] != "tool_result"
        ]
    else:
        prev.extend(blocks)


def _drop_orphan_results(out: list[dict[str, Any]]) -> None:
    """A tool_result whose tool_use is not in the previous assistant turn is dropped."""
    for i, msg in enumerate(out):
        if msg["role"] != "user":
            continue
        prev_ids = set()
        if i > 0 and out[i - 1]["role"] == "assistant":
            prev_ids = {b["id"] for b in out[i - 1]["content"] if b["type"] == "tool_use"}
        kept = [b for b in msg["content"] if b["type"] != "tool_result" or b["tool_use_id"] in prev_ids]
        msg["content"] = kept or [{"type": "text", "text": "(empty)"}]


def convert_messages(
    messages: list[dict[str, Any]], *, thinking_replay: str = "none"
) -> tuple[str, list[dict[str, Any]]]:
    """Chat-completions messages -> (system text, Anthropic messages). `thinking_replay`: what happens to
    the assistant turns' kept thinking blocks (`Endpoint.anthropic_thinking_replay`)."""
    system_parts: list[str] = []
    out: list[dict[str, Any]] = []
    for msg in messages:
        if msg["role"] == "system":
            if msg.get("content"):
                system_parts.append(msg["content"])
            continue
        role, blocks = _wire_turn(msg)
        if blocks:
            _append_turn(out, role, blocks)
    _drop_orphan_results(out)
    _replay_thinking(out, thinking_replay)
    if out and out[0]["role"] != "user":
        out.insert(0, {"role": "user", "content": [{"type": "text", "text": "(conversation continues)"}]})
    return "\n\n".join(system_parts), out


def apply_cache_control(system: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Mark the system prompt and the last three messages (4 breakpoints, Anthropic's maximum)."""
    for msg in messages[-3:]:
        # Never on a thinking block: a marker there interferes with its signature.
        at = next(
            (i for i in range(len(msg["content"]) - 1, -1, -1) if msg["content"][i]["type"] not in _THINKING),
            None,
        )
        if at is not None:
            msg["content"][at] = {**msg["content"][at], "cache_control": CACHE}
    return [{"type": "text", "text": system, "cache_control": CACHE}] if system else []


def convert_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "name": t["function"]["name"],
            "description": t["function"].get("description", ""),
            "input_schema": t["function"].get("parameters") or {"type": "object", "properties": {}},
        }
        for t in tools
    ]


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else None


def _mapping(obj: object) -> dict[str, Any]:
    """A decoded event's sub-object, or an empty one when the stream sent something else."""
    return obj if isinstance(obj, dict) else {}


class AnthropicAccumulator:
    """Folds stream events (decoded JSON) into one response; consecutive text (or thinking) deltas of one
    network read reach the sink as one call (`DeltaRuns`; gateways that speak this protocol for other
    models write `<think>` blocks into the text)."""

    def __init__(self, sink: StreamSink) -> None:
        self.sink = sink
        self.deltas = DeltaRuns(sink)
        self.stopped = False  # `message_stop` arrived
        # Keyed by the events' `index` as it came (an int from a well-formed stream): a block start and its
        # deltas are matched on it, whatever it is.
        self.blocks: dict[object, dict[str, Any]] = {}
        self.tool_order: list[object] = []
        self.stop_reason: str | None = None
        self.usage = Usage()
        self.saw_usage = False
        # Thinking and redacted-thinking blocks as they came, signatures included, for the next call of the
        # turn (Anthropic rejects a tool-use turn whose thinking is missing or altered); by stream index.
        self.details: list[dict[str, Any]] = []
        self.thinking: dict[object, dict[str, Any]] = {}

    def handle(self, batch: list[Any]) -> None:
        for event in batch:
            if isinstance(event, dict):
                self._event(event)
        self.deltas.flush()

    def _event(self, event: dict[str, Any]) -> None:
        kind = event.get("type", "")
        if kind == "content_block_delta":
            delta = _mapping(event.get("delta"))
            dtype = delta.get("type")
            if dtype == "text_delta":
                self.deltas.content(delta.get("text"))
            elif dtype == "thinking_delta":
                self.deltas.thinking(delta.get("thinking"))
                kept = self.thinking.get(event.get("index"))
                if kept is not None and isinstance(delta.get("thinking"), str):
                    kept["thinking"] += delta["thinking"]
            elif dtype == "signature_delta":
                kept = self.thinking.get(event.get("index"))
                if kept is not None and isinstance(delta.get("signature"), str):
                    kept["signature"] = kept.get("signature", "") + delta["signature"]
            elif dtype == "input_json_delta":
                slot = self.blocks.get(event.get("index"))
                if slot is not None:
                    slot["json"].append(delta.get("partial_json") or "")
        elif kind == "message_start":
            self._usage(_get(event.get("message"), "usage"))
        elif kind == "content_block_start":
            block = _mapping(event.get("content_block"))
            btype = block.get("type")
            if btype == "tool_use":
                self.deltas.flush()
                index = event.get("index")
                self.blocks[index] = {"id": block["id"], "name": block["name"], "json": []}
                self.tool_order.append(index)
                self.sink.on_tool_start(len(self.tool_order) - 1, block["id"], block["name"])
            elif btype == "text" and block.get("text"):
                self.deltas.content(block["text"])
            elif btype == "thinking":
                kept = {"type": "thinking", "thinking": "", "signature": str(block.get("signature") or "")}
                self.thinking[event.get("index")] = kept
                self.details.append(kept)
                self.deltas.thinking(block.get("thinking"))
                kept["thinking"] = str(block.get("thinking") or "")
            elif btype == "redacted_thinking" and block.get("data"):
                self.details.append({"type": "redacted_thinking", "data": str(block["data"])})
        elif kind == "message_delta":
            reason = _get(event.get("delta"), "stop_reason")
            if reason:
                self.stop_reason = reason
            self._usage(event.get("usage"))
        elif kind == "message_stop":
            self.stopped = True

    def _usage(self, raw: Any) -> None:
        if raw is None:
            return
        self.saw_usage = True
        if _get(raw, "input_tokens"):
            self.usage.prompt_tokens = int(raw["input_tokens"])
        if _get(raw, "output_tokens"):
            self.usage.completion_tokens = int(raw["output_tokens"])
        if _get(raw, "cache_read_input_tokens"):
            self.usage.cache_read_tokens = int(raw["cache_read_input_tokens"])
        if _get(raw, "cache_creation_input_tokens"):
            self.usage.cache_write_tokens = int(raw["cache_creation_input_tokens"])

    def response(self) -> ModelResponse:
        self.deltas.finish()
        calls = []
        for index in self.tool_order:
            slot = self.blocks[index]
            calls.append(ToolCall(id=slot["id"], name=slot["name"], arguments="".join(slot["json"]) or "{}"))
        finish = STOP_REASONS.get(self.stop_reason or "", self.stop_reason)
        if calls and finish in (None, "stop"):
            finish = "tool_calls"
        usage = self.usage.copy() if self.saw_usage else None
        if usage is not None:
            # Anthropic's input_tokens excludes cached tokens; the context used includes them.
            usage.prompt_tokens += usage.cache_read_tokens + usage.cache_write_tokens
        details = [
            d for d in self.details if d["type"] == "redacted_thinking" or d["thinking"] or d["signature"]
        ]
        text, reasoning = "".join(self.deltas.text), "".join(self.deltas.reasoning)
        return ModelResponse(text, reasoning, calls, finish, usage, details)


def event_batches(response: Any, client: Any, cloud: CloudAccess | None = None) -> Iterator[list[Any]]:
    """The decoded events of a messages stream, one list per network read, as the SDK's own stream sees
    them (`agent.transports.stream_reader`): `ping` and unnamed events skipped, an `error` event raised as
    the SDK's status error, an event that is not JSON raised as `json.JSONDecodeError`. `cloud`: Bedrock's
    frames are AWS event-stream, not SSE."""
    import anthropic

    from agent.transports.claude_clouds import stream_decoder

    def parse(sse: ServerSentEvent) -> Any:
        if sse.event == "ping" or sse.event is None:
            return SKIP
        if sse.event == "error":
            raise status_error(client, response, sse.data)
        return json.loads(sse.data) if sse.data else SKIP

    return read_batches(response, anthropic, parse, decoder=stream_decoder(cloud))


class AnthropicTransport(SDKClientHolder):
    name = "anthropic"

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None,
        api_key: str | None,
        stale_timeout: float = 180.0,
        connect_timeout: float = 30.0,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        thinking_replay: str = "none",
        cloud: CloudAccess | None = None,
    ) -> None:
        self.model = model
        self.cloud = cloud  # Claude on Bedrock or Vertex: the SDK's cloud client (agent/config/cloud.py)
        self.thinking_replay = thinking_replay  # `Endpoint.anthropic_thinking_replay`
        self.base_url = base_url
        self._api_key = api_key
        self.stale_timeout = stale_timeout
        self.connect_timeout = connect_timeout
        self.max_tokens = max_tokens
        SDKClientHolder.__init__(self)

    def _create_client(self) -> Any:
        import anthropic

        if self.cloud is not None:
            from agent.transports.claude_clouds import cloud_client

            timeout = self._timeout(anthropic)
            return cloud_client(self.cloud, base_url=self.base_url, api_key=self._api_key, timeout=timeout)
        return anthropic.Anthropic(**self._sdk_options(anthropic))

    def _client_key(self) -> tuple[Any, ...]:
        return (self.name, self.base_url, self._api_key, self.stale_timeout, self.connect_timeout, self.cloud)

    def _warm_client(self, client: Any) -> None:
        _ = client.messages.with_streaming_response

    def build_kwargs(self, request: ModelRequest) -> dict[str, Any]:
        system, messages = convert_messages(request.messages, thinking_replay=self.thinking_replay)
        system_blocks = apply_cache_control(system, messages)
        max_tokens = request.max_tokens or self.max_tokens
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "max_tokens": max_tokens,
            "stream": True,
        }
        if system_blocks:
            kwargs["system"] = system_blocks
        if request.tools:
            kwargs["tools"] = convert_tools(request.tools)
        thinking = anthropic_fields(self.model, request.reasoning, max_tokens)
        if "temperature" in thinking:  # no longer a parameter of the SDK's create(): sent in the body
            kwargs["extra_body"] = {"temperature": thinking.pop("temperature")}
        kwargs.update(thinking)
        return kwargs

    def _open(self, client: Any, kwargs: dict[str, Any]) -> Any:
        """The raw streaming response: the SDK sends the request (signing it for a cloud) and raises its own
        errors for an HTTP error status, but leaves the body to us."""
        try:
            return client.messages.with_streaming_response.create(**kwargs).__enter__()
        except Exception as exc:
            if self.cloud is not None:
                from agent.transports.claude_clouds import setup_failure

                failure = setup_failure(self.cloud, exc)
                if failure is not None:
                    raise failure from None
            raise

    def stream(self, request: ModelRequest, sink: StreamSink, interrupt: threading.Event) -> ModelResponse:
        client = self._get_client()
        acc = AnthropicAccumulator(sink)
        import anthropic

        self.read_reply(
            request,
            self.build_kwargs(request),
            anthropic,
            lambda kwargs: self._open(client, kwargs),
            lambda opened: event_batches(opened.http_response, client, self.cloud),
            acc,
            sink,
            interrupt,
        )
        if not acc.saw_usage and not acc.deltas.text and not acc.tool_order and acc.stop_reason is None:
            raise EmptyStreamError("the stream ended without a message")
        if not acc.stopped:
            raise StreamIncompleteError("the stream ended without message_stop")
        return acc.response()

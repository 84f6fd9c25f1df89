"""The scripted model server: real HTTP on loopback, OpenAI- and Anthropic-shaped.

`ScriptedServer` plays a `Scenario`, one scripted call per model request, and answers both
`POST /v1/chat/completions` (OpenAI chat completions) and `POST /v1/messages` (Anthropic messages),
streamed (SSE over chunked transfer encoding) or not. Standard library only (plus the pydantic
scenario models); safe to use from several threads.

```python
with ScriptedServer("scenario.yaml") as server:
    client = openai.OpenAI(base_url=server.openai_base_url, api_key="test")
    ...
    assert server.requests[0].body["messages"]
```
"""

from __future__ import annotations

import json
import logging
import select
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from socketserver import TCPServer
from typing import Any, Literal

from .scenario import Fault, ModelCall, Scenario, load_scenario, split_chunks

__all__ = ["RecordedRequest", "ScriptedServer"]

logger = logging.getLogger(__name__)

Api = Literal["openai", "anthropic"]

_OPENAI_PATHS = frozenset({"/v1/chat/completions", "/chat/completions"})
_ANTHROPIC_PATHS = frozenset({"/v1/messages", "/messages"})
_MODELS_PATHS = frozenset({"/v1/models", "/models"})

_ANTHROPIC_STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}

_FLUSH_BYTES = 32 * 1024
"""When chunks are not paced (delay 0), SSE events are written in batches of about this size."""

_STOP_JOIN_SECONDS = 0.5


@dataclass(frozen=True)
class RecordedRequest:
    """A model request as the server received it."""

    path: str
    headers: dict[str, str]
    """Header names in lowercase."""
    body: dict[str, Any]
    """The parsed JSON body (empty when it was not valid JSON)."""
    time: float
    """`time.monotonic()` at arrival."""
    api: Api = "openai"
    method: str = "POST"
    raw: bytes = b""
    call_index: int | None = None
    """Index in `scenario.calls` of the call that answered; None for the fallback or no call."""

    @property
    def stream(self) -> bool:
        return self.body.get("stream") is True


# --------------------------------------------------------------------------------------------------
# What one scripted answer consists of


@dataclass(frozen=True)
class _ToolCall:
    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class _Piece:
    """One content chunk of a streamed answer (the unit of `delay` and `after_chunks`)."""

    kind: Literal["reasoning", "text", "tool_start", "tool_args"]
    text: str = ""
    index: int = 0
    """Tool call index for tool pieces."""


@dataclass
class _Plan:
    call: ModelCall
    model: str
    response_id: str
    created: int
    text: str
    reasoning: str
    tool_calls: list[_ToolCall]
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    include_usage: bool
    cost: float | None
    signature: str
    pieces: list[_Piece] = field(default_factory=list)


def _wants_cost(body: dict[str, Any]) -> bool:
    usage = body.get("usage")
    return isinstance(usage, dict) and usage.get("include") is True


def _estimate_tokens(text_len: int) -> int:
    return max(1, text_len // 4)


def _make_plan(
    call: ModelCall, *, model: str, body: dict[str, Any], serial: int, tool_ids: Iterable[str]
) -> _Plan:
    ids = iter(tool_ids)
    tool_calls = [_ToolCall(tc.id or next(ids), tc.name, tc.arguments_text) for tc in call.tool_calls]
    text = call.full_text
    reasoning = call.reasoning or ""
    prompt_material = json.dumps(
        [body.get("system"), body.get("messages"), body.get("tools")], ensure_ascii=False, default=str
    )
    usage = call.usage
    completion_chars = len(text) + len(reasoning) + sum(len(t.arguments) + len(t.name) for t in tool_calls)
    plan = _Plan(
        call=call,
        model=model,
        response_id=str(serial),
        created=int(time.time()),
        text=text,
        reasoning=reasoning,
        tool_calls=tool_calls,
        finish_reason=call.effective_finish_reason,
        prompt_tokens=(
            usage.prompt_tokens
            if usage and usage.prompt_tokens is not None
            else _estimate_tokens(len(prompt_material))
        ),
        completion_tokens=(
            usage.completion_tokens
            if usage and usage.completion_tokens is not None
            else _estimate_tokens(completion_chars)
        ),
        reasoning_tokens=(
            usage.reasoning_tokens if usage and usage.reasoning_tokens is not None else (len(reasoning) // 4)
        ),
        cache_read_tokens=usage.cache_read_tokens if usage else 0,
        cache_write_tokens=usage.cache_write_tokens if usage else 0,
        include_usage=bool((body.get("stream_options") or {}).get("include_usage")),
        cost=usage.cost if usage and _wants_cost(body) else None,
        signature=f"scripted-signature-{serial}",
    )
    size = call.chunk_size
    pieces = plan.pieces
    pieces.extend(_Piece("reasoning", c) for c in split_chunks(reasoning, size))
    pieces.extend(_Piece("text", c) for c in call.text_chunks)
    for i, tc in enumerate(tool_calls):
        pieces.append(_Piece("tool_start", index=i))
        pieces.extend(_Piece("tool_args", c, i) for c in split_chunks(tc.arguments, size))
    return plan


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------------------------------
# Wire encoders: one per API


class _OpenAIEncoder:
    api: Api = "openai"

    def __init__(self, plan: _Plan) -> None:
        self.plan = plan
        self.id = f"chatcmpl-scripted-{plan.response_id}"

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        return f"data: {_dumps(self._chunk_obj(delta, finish_reason))}\n\n".encode()

    def _chunk_obj(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.plan.created,
            "model": self.plan.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
        }

    def usage(self) -> dict[str, Any]:
        p = self.plan
        usage: dict[str, Any] = {
            "prompt_tokens": p.prompt_tokens,
            "completion_tokens": p.completion_tokens,
            "total_tokens": p.prompt_tokens + p.completion_tokens,
            "prompt_tokens_details": {
                "cached_tokens": p.cache_read_tokens,
                "cache_write_tokens": p.cache_write_tokens,
            },
            "completion_tokens_details": {"reasoning_tokens": p.reasoning_tokens},
        }
        if p.cost is not None:
            usage["cost"] = p.cost
        return usage

    def preamble(self) -> bytes:
        return self._chunk({"role": "assistant", "content": ""})

    def piece(self, piece: _Piece) -> bytes:
        if piece.kind == "text":
            return self._chunk({"content": piece.text})
        if piece.kind == "reasoning":
            return self._chunk({"reasoning_content": piece.text})
        if piece.kind == "tool_start":
            tc = self.plan.tool_calls[piece.index]
            return self._chunk(
                {
                    "tool_calls": [
                        {
                            "index": piece.index,
                            "id": tc.id,
                            "type": "function",
                            "function": {"name": tc.name, "arguments": ""},
                        }
                    ]
                }
            )
        return self._chunk({"tool_calls": [{"index": piece.index, "function": {"arguments": piece.text}}]})

    def malformed(self) -> bytes:
        # A proper prefix of a JSON object is never valid JSON.
        whole = _dumps(self._chunk_obj({"content": "this chunk is cut short"}))
        return f"data: {whole[: len(whole) // 2]}\n\n".encode()

    def finish(self) -> bytes:
        out = self._chunk({}, None if self.plan.call.omit_finish_reason else self.plan.finish_reason)
        if self.plan.include_usage:
            obj = {
                "id": self.id,
                "object": "chat.completion.chunk",
                "created": self.plan.created,
                "model": self.plan.model,
                "choices": [],
                "usage": self.usage(),
            }
            out += f"data: {_dumps(obj)}\n\n".encode()
        return out + b"data: [DONE]\n\n"

    def full_body(self) -> dict[str, Any]:
        p = self.plan
        message: dict[str, Any] = {"role": "assistant", "content": p.text or None, "refusal": None}
        if p.reasoning:
            message["reasoning_content"] = p.reasoning
        if p.tool_calls:
            message["tool_calls"] = [
                {"id": tc.id, "type": "function", "function": {"name": tc.name, "arguments": tc.arguments}}
                for tc in p.tool_calls
            ]
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": p.created,
            "model": p.model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": p.finish_reason}],
            "usage": self.usage(),
        }

    def malformed_body(self) -> bytes:
        return f'{{"id":"{self.id}","object":"chat.completion","choices":[{{"index":0,"message":'.encode()

    @staticmethod
    def error_body(message: str, type_: str, code: str | None = None) -> dict[str, Any]:
        return {"error": {"message": message, "type": type_, "param": None, "code": code or type_}}


class _AnthropicEncoder:
    api: Api = "anthropic"

    def __init__(self, plan: _Plan) -> None:
        self.plan = plan
        self.id = f"msg_scripted_{plan.response_id}"
        self._block: str | None = None  # kind of the open content block
        self._index = -1  # index of the open (or last) content block

    @staticmethod
    def _event(name: str, obj: dict[str, Any]) -> bytes:
        return f"event: {name}\ndata: {_dumps(obj)}\n\n".encode()

    def usage(self, *, start: bool = False) -> dict[str, Any]:
        p = self.plan
        return {
            "input_tokens": p.prompt_tokens,
            "output_tokens": 1 if start else p.completion_tokens,
            "cache_read_input_tokens": p.cache_read_tokens,
            "cache_creation_input_tokens": p.cache_write_tokens,
        }

    def preamble(self) -> bytes:
        p = self.plan
        message = {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": p.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": self.usage(start=True),
        }
        return self._event("message_start", {"type": "message_start", "message": message}) + self._event(
            "ping", {"type": "ping"}
        )

    def _close_block(self) -> bytes:
        if self._block is None:
            return b""
        out = b""
        if self._block == "thinking":
            out += self._delta({"type": "signature_delta", "signature": self.plan.signature})
        out += self._event("content_block_stop", {"type": "content_block_stop", "index": self._index})
        self._block = None
        return out

    def _open_block(self, kind: str, block: dict[str, Any]) -> bytes:
        out = self._close_block()
        self._index += 1
        self._block = kind
        return out + self._event(
            "content_block_start",
            {"type": "content_block_start", "index": self._index, "content_block": block},
        )

    def _delta(self, delta: dict[str, Any]) -> bytes:
        return self._event(
            "content_block_delta", {"type": "content_block_delta", "index": self._index, "delta": delta}
        )

    def piece(self, piece: _Piece) -> bytes:
        out = b""
        if piece.kind == "reasoning":
            if self._block != "thinking":
                out += self._open_block("thinking", {"type": "thinking", "thinking": "", "signature": ""})
            return out + self._delta({"type": "thinking_delta", "thinking": piece.text})
        if piece.kind == "text":
            if self._block != "text":
                out += self._open_block("text", {"type": "text", "text": ""})
            return out + self._delta({"type": "text_delta", "text": piece.text})
        if piece.kind == "tool_start":
            tc = self.plan.tool_calls[piece.index]
            return self._open_block(
                "tool_use", {"type": "tool_use", "id": tc.id, "name": tc.name, "input": {}}
            )
        return self._delta({"type": "input_json_delta", "partial_json": piece.text})

    def malformed(self) -> bytes:
        delta = {"type": "text_delta", "text": "this chunk is cut short"}
        whole = _dumps({"type": "content_block_delta", "index": max(self._index, 0), "delta": delta})
        return f"event: content_block_delta\ndata: {whole[: len(whole) // 2]}\n\n".encode()

    def finish(self) -> bytes:
        p = self.plan
        return (
            self._close_block()
            + self._event(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {
                        "stop_reason": None
                        if p.call.omit_finish_reason
                        else _ANTHROPIC_STOP_REASONS[p.finish_reason],
                        "stop_sequence": None,
                    },
                    "usage": self.usage(),
                },
            )
            + self._event("message_stop", {"type": "message_stop"})
        )

    def full_body(self) -> dict[str, Any]:
        p = self.plan
        content: list[dict[str, Any]] = []
        if p.reasoning:
            content.append({"type": "thinking", "thinking": p.reasoning, "signature": p.signature})
        if p.text:
            content.append({"type": "text", "text": p.text})
        for tc in p.tool_calls:
            try:
                tool_input: Any = json.loads(tc.arguments) if tc.arguments else {}
            except ValueError:
                tool_input = tc.arguments  # malformed on purpose: passed through as a string
            content.append({"type": "tool_use", "id": tc.id, "name": tc.name, "input": tool_input})
        return {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": p.model,
            "content": content,
            "stop_reason": _ANTHROPIC_STOP_REASONS[p.finish_reason],
            "stop_sequence": None,
            "usage": self.usage(),
        }

    def malformed_body(self) -> bytes:
        return f'{{"id":"{self.id}","type":"message","role":"assistant","content":[{{"type":"te'.encode()

    @staticmethod
    def error_body(message: str, type_: str, code: str | None = None) -> dict[str, Any]:
        return {"type": "error", "error": {"type": type_, "message": message}}


_ENCODERS: dict[Api, type[_OpenAIEncoder] | type[_AnthropicEncoder]] = {
    "openai": _OpenAIEncoder,
    "anthropic": _AnthropicEncoder,
}


# --------------------------------------------------------------------------------------------------
# HTTP plumbing


class _Abort(Exception):
    """The response cannot be completed (fault, server stopping, client gone): close the connection."""


class _ChunkedWriter:
    """Writes a body with chunked transfer encoding, batching small writes when asked to."""

    def __init__(self, wfile: Any) -> None:
        self._wfile = wfile
        self._buf = bytearray()

    def write(self, data: bytes, *, flush: bool) -> None:
        self._buf += data
        if flush or len(self._buf) >= _FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        if self._buf:
            self._wfile.write(b"%X\r\n%s\r\n" % (len(self._buf), bytes(self._buf)))
            self._buf.clear()

    def end(self) -> None:
        self.flush()
        self._wfile.write(b"0\r\n\r\n")


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 128  # many concurrent clients (benchmarks) must not wait for SYN retries

    def __init__(self, address: tuple[str, int], owner: ScriptedServer) -> None:
        self.owner = owner
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind() calls socket.getfqdn(), a DNS lookup: skip it.
        TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(
            target=self._serve_connection,
            args=(request, client_address),
            name=f"scripted-server-conn-{client_address[1]}",
            daemon=True,
        )
        self.owner._track(request, thread)
        thread.start()

    def _serve_connection(self, request: Any, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            self.owner._untrack(request, threading.current_thread())

    def handle_error(self, request: Any, client_address: Any) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, OSError | ValueError):  # disconnects, sockets closed by stop()
            return
        logger.exception("scripted server: error while serving %s", client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ScriptedModelServer/1.0"
    sys_version = ""
    disable_nagle_algorithm = True
    server: _HTTPServer

    # -- quiet: no per-request lines, no disconnect noise --------------------------------------------

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def handle(self) -> None:
        try:
            super().handle()
        except (OSError, ValueError):
            self.close_connection = True

    # -- routes ------------------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/") or "/"
        if path in _MODELS_PATHS:
            scenario = self.server.owner.scenario
            names = [scenario.model, *scenario.models]
            self._send_json(
                200,
                {
                    "object": "list",
                    "data": [
                        {
                            "id": name,
                            "object": "model",
                            "type": "model",
                            "display_name": name,
                            "created": 0,
                            "created_at": "1970-01-01T00:00:00Z",
                            "owned_by": "scripted",
                        }
                        for name in names
                    ],
                    "has_more": False,
                    "first_id": names[0],
                    "last_id": names[-1],
                },
            )
        else:
            self._send_not_found(path)

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/") or "/"
        raw = self._read_body()
        arrived = time.monotonic()  # before parsing and planning: a big scripted answer takes a while
        api: Api | None = (
            "openai" if path in _OPENAI_PATHS else "anthropic" if path in _ANTHROPIC_PATHS else None
        )
        if api is None:
            self._send_not_found(path)
            return
        encoder_cls = _ENCODERS[api]
        try:
            body = json.loads(raw)
        except ValueError as exc:
            body = exc
        owner = self.server.owner
        headers = {k.lower(): v for k, v in self.headers.items()}
        if not isinstance(body, dict):
            owner._record(path, headers, {}, raw, api, None, arrived)
            why = f"{body}" if isinstance(body, Exception) else "the body must be a JSON object"
            self._send_json(
                400,
                encoder_cls.error_body(
                    f"scripted server: request body is not valid JSON: {why}", "invalid_request_error"
                ),
            )
            return
        call, plan, request = owner._next_call(path, headers, body, raw, api, arrived)
        if call is None or plan is None:
            self._send_json(
                500,
                encoder_cls.error_body(
                    f"scripted server: scenario {owner.scenario.name!r} has no more calls "
                    f"(it has {len(owner.scenario.calls)})",
                    "api_error",
                ),
            )
            return
        self._headers_sent = False
        try:
            self._answer(encoder_cls(plan), plan, stream=body.get("stream") is True)
            owner._answered(request)
        except _Abort:
            self.close_connection = True
        except (OSError, ValueError):
            raise  # the client went away (or stop() closed the socket): handled quietly by handle()
        except Exception as exc:  # a bug here must not leave the client hanging
            logger.exception("scripted server: failed to answer %s", path)
            self.close_connection = True
            if not self._headers_sent:
                self._send_json(
                    500, encoder_cls.error_body(f"scripted server: internal error: {exc!r}", "api_error")
                )

    def end_headers(self) -> None:
        self._headers_sent = True
        super().end_headers()

    # -- answering ---------------------------------------------------------------------------------

    def _answer(self, encoder: _OpenAIEncoder | _AnthropicEncoder, plan: _Plan, *, stream: bool) -> None:
        call = plan.call
        fault = call.fault
        if fault is not None and fault.status is not None:
            self._pause(call.first_delay)
            self._send_fault(encoder, fault)
            return
        if stream:
            self._stream(encoder, plan)
            return
        self._pause(call.first_delay)
        if fault is not None:
            if fault.kind == "malformed":
                self._send_bytes(200, encoder.malformed_body(), "application/json")
                return
            if fault.kind == "stall":
                self._stall(fault)
            raise _Abort  # cut, or a stall that ended: close without an answer
        self._send_json(200, encoder.full_body())

    def _stream(self, encoder: _OpenAIEncoder | _AnthropicEncoder, plan: _Plan) -> None:
        call = plan.call
        fault = call.fault if call.fault is not None and call.fault.kind is not None else None
        paced = call.delay > 0
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self._send_id_headers(encoder)
        self.end_headers()
        out = _ChunkedWriter(self.wfile)
        out.write(encoder.preamble(), flush=True)
        pieces = plan.pieces
        for i, piece in enumerate(pieces):
            wait = call.first_delay if i == 0 else call.delay
            if wait:
                out.flush()
                self._pause(wait)
            if fault is not None and i == fault.after_chunks:
                self._stream_fault(out, encoder, fault)
            out.write(encoder.piece(piece), flush=paced)
        if not pieces:
            self._pause(call.first_delay)
        if fault is not None and fault.after_chunks >= len(pieces):
            self._stream_fault(out, encoder, fault)
        out.write(encoder.finish(), flush=False)
        out.end()

    def _stream_fault(
        self, out: _ChunkedWriter, encoder: _OpenAIEncoder | _AnthropicEncoder, fault: Fault
    ) -> None:
        if fault.kind == "malformed":
            out.write(encoder.malformed(), flush=True)
            return
        if fault.kind == "close":
            out.end()  # a complete HTTP response whose stream simply stops
            raise _Abort
        out.flush()
        if fault.kind == "stall":
            self._stall(fault)
        raise _Abort  # cut (or a stall that ended): no terminating chunk, the client sees a broken body

    def _pause(self, seconds: float) -> None:
        if seconds > 0 and self.server.owner._stopping.wait(seconds):
            raise _Abort

    def _stall(self, fault: Fault) -> None:
        """Send nothing until `stall_seconds` pass, the client disconnects or the server stops."""
        poller = select.poll()
        poller.register(self.connection, select.POLLIN | select.POLLHUP | select.POLLERR)
        deadline = time.monotonic() + fault.stall_seconds
        stopping = self.server.owner._stopping
        while not stopping.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            # stop() shuts the socket down, which wakes this poll; so does a client disconnect.
            if poller.poll(min(remaining, 3600.0) * 1000):
                return

    # -- response helpers --------------------------------------------------------------------------

    def _send_id_headers(self, encoder: _OpenAIEncoder | _AnthropicEncoder) -> None:
        self.send_header("x-request-id", f"req_scripted_{encoder.plan.response_id}")
        self.send_header("request-id", f"req_scripted_{encoder.plan.response_id}")

    def _send_fault(self, encoder: _OpenAIEncoder | _AnthropicEncoder, fault: Fault) -> None:
        status = fault.status or 500
        data = _dumps(encoder.error_body(fault.error_message, fault.error_type, fault.code)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if fault.retry_after is not None:
            value = fault.retry_after
            self.send_header("Retry-After", str(int(value)) if value == int(value) else str(value))
        self._send_id_headers(encoder)
        self.end_headers()
        self.wfile.write(data)

    def _send_json(self, status: int, obj: Any) -> None:
        self._send_bytes(status, _dumps(obj).encode(), "application/json")

    def _send_bytes(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_not_found(self, path: str) -> None:
        self._send_json(
            404,
            {
                "type": "error",
                "error": {
                    "type": "not_found_error",
                    "message": f"scripted server: no route for {self.command} {path}",
                    "code": "not_found",
                },
            },
        )

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            parts = []
            while True:
                size_line = self.rfile.readline(65537)
                size = int(size_line.split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                parts.append(self.rfile.read(size))
                self.rfile.readline(65537)
            return b"".join(parts)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""


# --------------------------------------------------------------------------------------------------
# The public server


def first_user_text(body: dict[str, Any]) -> str:
    """The text of a request's first user message (OpenAI or Anthropic shape; text parts joined)."""
    for message in body.get("messages") or []:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        return ""
    return ""


def pick_call(calls: list[ModelCall], taken: set[int], body: dict[str, Any]) -> int | None:
    """The call that answers a request: the first unplayed one whose `match` is in the request's first
    user message (concurrent conversations, such as subagents, each get their own calls whatever order
    their requests come in), else the first unplayed call without a `match`, in order."""
    first = None
    opening = first_user_text(body)
    for index, call in enumerate(calls):
        if index in taken:
            continue
        if call.match is not None:
            if call.match in opening:
                return index
        elif first is None:
            first = index
    return first


class ScriptedServer:
    """An HTTP server on 127.0.0.1 that answers model requests from a scenario.

    Routes: `POST /v1/chat/completions` (OpenAI), `POST /v1/messages` (Anthropic), both also without
    the `/v1` prefix, and `GET /v1/models`. Each model request plays the next call of the scenario
    (a call with `match` only for the conversation it names: see `pick_call`), then `fallback`, if any,
    then HTTP 500.

    `on_request(request)` is called when a model request arrives, `on_answered(request, finished_at)` when
    the last byte of its answer has been written (`time.monotonic()`, comparable across processes on
    Linux): benchmarks time what the client does between the two.
    """

    def __init__(
        self,
        scenario: Scenario | Path | str | dict[str, Any] | None = None,
        *,
        port: int = 0,
        on_request: Callable[[RecordedRequest], None] | None = None,
        on_answered: Callable[[RecordedRequest, float], None] | None = None,
    ) -> None:
        self._scenario = load_scenario(scenario) if scenario is not None else Scenario(name="empty")
        self._requested_port = port
        self._on_request = on_request
        self._on_answered = on_answered
        self._lock = threading.Lock()
        self._recorded = threading.Condition(self._lock)
        self._requests: list[RecordedRequest] = []
        self._taken: set[int] = set()  # indexes of `scenario.calls` already played
        self._played = 0
        self._tool_ids = 0
        self._serial = 0
        self._stopping = threading.Event()
        self._connections: dict[Any, threading.Thread] = {}
        self._httpd: _HTTPServer | None = None
        self._serve_thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> ScriptedServer:
        """Bind 127.0.0.1 (ephemeral port unless one was given) and serve in a background thread."""
        if self._httpd is not None:
            return self
        self._stopping.clear()
        self._httpd = _HTTPServer(("127.0.0.1", self._requested_port), self)
        self._serve_thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"scripted-server-{self.port}",
            daemon=True,
        )
        self._serve_thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and drop every open connection (stalled streams included). Returns promptly."""
        httpd = self._httpd
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        with self._lock:
            connections = list(self._connections.items())
        for sock, _thread in connections:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        deadline = time.monotonic() + _STOP_JOIN_SECONDS
        for _sock, thread in connections:
            thread.join(max(0.0, deadline - time.monotonic()))
        if self._serve_thread is not None:
            self._serve_thread.join(max(0.0, deadline - time.monotonic()))
        self._httpd = None
        self._serve_thread = None

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- addresses ---------------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._httpd is not None

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("scripted server is not running: call start() or use it as a context manager")
        return self._httpd.server_port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.base_url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.base_url

    # -- scenario and records ----------------------------------------------------------------------

    @property
    def scenario(self) -> Scenario:
        return self._scenario

    def load(self, scenario: Scenario | Path | str | dict[str, Any], *, clear_requests: bool = False) -> None:
        """Play `scenario` from its first call on (requests in flight finish with their old call)."""
        new = load_scenario(scenario)
        with self._lock:
            self._scenario = new
            self._taken = set()
            self._played = 0
            self._tool_ids = 0
            if clear_requests:
                self._requests.clear()

    @property
    def requests(self) -> list[RecordedRequest]:
        """The model requests received so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def calls_played(self) -> int:
        """How many scripted calls (fallback included) have been answered since the last load."""
        with self._lock:
            return self._played

    @property
    def calls_remaining(self) -> int:
        """How many of `scenario.calls` have not been played yet (the fallback is not counted)."""
        with self._lock:
            return len(self._scenario.calls) - len(self._taken)

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> bool:
        """Block until at least `n` requests have been recorded; False if `timeout` passed first."""
        with self._recorded:
            return self._recorded.wait_for(lambda: len(self._requests) >= n, timeout)

    # -- used by the handler -----------------------------------------------------------------------

    def _record(
        self,
        path: str,
        headers: dict[str, str],
        body: dict[str, Any],
        raw: bytes,
        api: Api,
        call_index: int | None,
        arrived: float,
    ) -> RecordedRequest:
        request = RecordedRequest(path, headers, body, arrived, api, "POST", raw, call_index)
        with self._recorded:
            self._requests.append(request)
            self._recorded.notify_all()
        self._notify(request)
        return request

    def _notify(self, request: RecordedRequest) -> None:
        if self._on_request is not None:
            try:
                self._on_request(request)
            except Exception:
                logger.exception("scripted server: on_request callback failed")

    def _next_call(
        self, path: str, headers: dict[str, str], body: dict[str, Any], raw: bytes, api: Api, arrived: float
    ) -> tuple[ModelCall | None, _Plan | None, RecordedRequest]:
        """Take the next call, record the request, and plan the answer (all under the lock)."""
        with self._recorded:
            scenario = self._scenario
            call_index: int | None = None
            call: ModelCall | None
            call_index = pick_call(scenario.calls, self._taken, body)
            if call_index is not None:
                call = scenario.calls[call_index]
                self._taken.add(call_index)
            else:
                call = scenario.fallback
            plan = None
            if call is not None:
                self._played += 1
                self._serial += 1
                missing = sum(1 for tc in call.tool_calls if tc.id is None)
                first = self._tool_ids + 1
                self._tool_ids += missing
                plan = _make_plan(
                    call,
                    model=scenario.model,
                    body=body,
                    serial=self._serial,
                    tool_ids=(f"call_{n}" for n in range(first, first + missing)),
                )
            request = RecordedRequest(path, headers, body, arrived, api, "POST", raw, call_index)
            self._requests.append(request)
            self._recorded.notify_all()
        self._notify(request)
        return call, plan, request

    def _answered(self, request: RecordedRequest) -> None:
        """The whole answer to `request` is written: benchmarks time "last byte sent -> on screen"."""
        if self._on_answered is not None:
            finished = time.monotonic()
            try:
                self._on_answered(request, finished)
            except Exception:
                logger.exception("scripted server: on_answered callback failed")

    def _track(self, sock: Any, thread: threading.Thread) -> None:
        with self._lock:
            self._connections[sock] = thread

    def _untrack(self, sock: Any, thread: threading.Thread) -> None:
        with self._lock:
            if self._connections.get(sock) is thread:
                del self._connections[sock]

"""The scripted server's HTTP side: the routes, and how a planned answer is sent (streamed as SSE over
chunked transfer encoding, or whole), with a scenario's faults applied on the way (`faults`).

It knows the `ScriptedServer` only as `Owner`, what the handler asks of it (the scenario, the next call,
the stop flag, connection tracking), so the server module is the one that ties the pieces together.
"""

from __future__ import annotations

import json
import logging
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import TCPServer
from typing import Any, Protocol

from .faults import break_body, break_stream, error_response, pause
from .plan import Plan
from .request import Api, RecordedRequest
from .scenario import Fault, ModelCall, Scenario
from .server_kinds import (
    hangs_up,
    leaves_connection_dead,
    model_card_extras,
    props,
    rejection,
    streams_nothing,
    tools_unseen,
)
from .wire import Abort, ChunkedWriter, Encoder, dumps
from .wire_anthropic import AnthropicEncoder
from .wire_bedrock import BedrockEncoder
from .wire_openai import OpenAIEncoder
from .wire_responses import ResponsesEncoder

__all__ = [
    "ENCODERS",
    "SCRIPTED_ACCESS_TOKEN",
    "Owner",
    "ScriptedHTTPServer",
    "ScriptedHandler",
    "request_key",
    "route_api",
]

logger = logging.getLogger(__name__)

_OPENAI_PATHS = frozenset({"/v1/chat/completions", "/chat/completions"})
_ANTHROPIC_PATHS = frozenset({"/v1/messages", "/messages"})
_RESPONSES_PATHS = frozenset({"/v1/responses", "/responses"})
_MODELS_PATHS = frozenset({"/v1/models", "/models"})
BEDROCK_PATH = re.compile(r"^/model/(?P<model>[^/]+)/(?P<action>invoke|invoke-with-response-stream)$")
"""Claude on Bedrock: the model id (URL-quoted) in the path; the stream route answers in event-stream."""
VERTEX_PATH = re.compile(
    r"^(?:/v1)?/projects/(?P<project>[^/]+)/locations/(?P<region>[^/]+)/publishers/anthropic/models/"
    r"(?P<model>[^/:]+):(?P<action>streamRawPredict|rawPredict)$"
)
"""Claude on Vertex: project, region and model in the path; the body is the messages API's, as SSE."""
TOKEN_PATH = "/token"
"""A Google OAuth token endpoint (a service-account file's `token_uri` pointed here)."""
SCRIPTED_ACCESS_TOKEN = "ya29.scripted-access-token"

ENCODERS: dict[Api, type[Encoder]] = {
    "openai": OpenAIEncoder,
    "anthropic": AnthropicEncoder,
    "responses": ResponsesEncoder,
    "bedrock": BedrockEncoder,
}


def route_api(path: str) -> tuple[Api | None, bool | None]:
    """The API a POST path speaks, and whether the path itself says the answer streams (Bedrock's
    routes: the SDK moves `stream` out of the body into the path); None: the body's `stream` says."""
    if path in _OPENAI_PATHS:
        return "openai", None
    if path in _ANTHROPIC_PATHS:
        return "anthropic", None
    if path in _RESPONSES_PATHS:
        return "responses", None
    bedrock = BEDROCK_PATH.match(path)
    if bedrock is not None:
        return "bedrock", bedrock.group("action") == "invoke-with-response-stream"
    if VERTEX_PATH.match(path) is not None:
        return "anthropic", None
    return None, None


def request_key(headers: dict[str, str]) -> str:
    """The key a request carries: a bearer token or Anthropic's `x-api-key` (SigV4 carries none)."""
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return headers.get("x-api-key", "")


class Owner(Protocol):
    """What the HTTP side uses of its `ScriptedServer`."""

    _stopping: threading.Event

    @property
    def scenario(self) -> Scenario: ...

    def _record(
        self,
        path: str,
        headers: dict[str, str],
        body: dict[str, Any],
        raw: bytes,
        api: Api,
        call_index: int | None,
        arrived: float,
    ) -> RecordedRequest: ...

    def _next_call(
        self,
        path: str,
        headers: dict[str, str],
        body: dict[str, Any],
        raw: bytes,
        api: Api,
        arrived: float,
        instead: ModelCall | None = None,
    ) -> tuple[ModelCall | None, Plan | None, RecordedRequest]: ...

    def _answered(self, request: RecordedRequest) -> None: ...

    def _track(self, sock: socket.socket, thread: threading.Thread) -> None: ...

    def _untrack(self, sock: socket.socket, thread: threading.Thread) -> None: ...


class ScriptedHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 128  # many concurrent clients (benchmarks) must not wait for SYN retries

    def __init__(self, address: tuple[str, int], owner: Owner) -> None:
        self.owner = owner
        super().__init__(address, ScriptedHandler)

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


class ScriptedHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ScriptedModelServer/1.0"
    sys_version = ""
    disable_nagle_algorithm = True
    server: ScriptedHTTPServer

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
                            **model_card_extras(scenario),
                        }
                        for name in names
                    ],
                    "has_more": False,
                    "first_id": names[0],
                    "last_id": names[-1],
                },
            )
        elif path == "/props" and (answer := props(self.server.owner.scenario)) is not None:
            self._send_json(200, answer)
        else:
            self._send_not_found(path)

    def do_POST(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/") or "/"
        raw = self._read_body()
        if getattr(self, "_connection_dead", False):
            # llama-cpp-python after a stream that failed past its headers: the connection looked reusable,
            # but the next request sent down it is dropped unanswered.
            self.close_connection = True
            return
        arrived = time.monotonic()  # before parsing and planning: a big scripted answer takes a while
        if path == TOKEN_PATH:
            self._answer_token(path, raw, arrived)
            return
        api, path_streams = route_api(path)
        if api is None:
            self._send_not_found(path)
            return
        encoder_cls = ENCODERS[api]
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
        if api == "openai" and self._refused(body, raw, headers, path, arrived):
            return
        key_fault = owner.scenario.key_faults.get(request_key(headers))
        if key_fault is not None:  # this key is refused, whatever the call: no call is taken
            owner._record(path, headers, body, raw, api, None, arrived)
            status, fault_headers, data = error_response(encoder_cls, key_fault)
            self.send_response(status)
            for name, value in fault_headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
            return
        instead = tools_unseen(owner.scenario, body) if api == "openai" else None
        call, plan, request = owner._next_call(path, headers, body, raw, api, arrived, instead)
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
            stream = path_streams if path_streams is not None else body.get("stream") is True
            self._answer(encoder_cls(plan), plan, stream=stream)
            owner._answered(request)
        except Abort:
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

    def _answer_token(self, path: str, raw: bytes, arrived: float) -> None:
        """A service account's token request (RFC 7523: a signed JWT for an access token), recorded with
        the form's fields as its body; answered with a token valid for an hour."""
        from urllib.parse import parse_qsl

        headers = {k.lower(): v for k, v in self.headers.items()}
        form = dict(parse_qsl(raw.decode("utf-8", "replace")))
        self.server.owner._record(path, headers, form, raw, "oauth", None, arrived)
        if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" or "assertion" not in form:
            self._send_json(400, {"error": "invalid_grant", "error_description": "scripted: expected a JWT"})
            return
        self._send_json(
            200, {"access_token": SCRIPTED_ACCESS_TOKEN, "expires_in": 3600, "token_type": "Bearer"}
        )

    def _refused(
        self, body: dict[str, Any], raw: bytes, headers: dict[str, str], path: str, at: float
    ) -> bool:
        """A request the scenario's server kind answers by itself (no scripted call is taken)."""
        owner = self.server.owner
        error = rejection(owner.scenario, body, raw)
        hang_up = error is None and hangs_up(owner.scenario, body, raw)
        empty = error is None and streams_nothing(owner.scenario, body, raw)
        if error is None and not empty and not hang_up:
            return False
        owner._record(path, headers, body, raw, "openai", None, at)
        if hang_up:  # not a byte: the client's read of the status line finds the connection closed
            self.close_connection = True
            return True
        if error is not None:
            self._send_json(*error)
            return True
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        ChunkedWriter(self.wfile).end()
        self._connection_dead = leaves_connection_dead(owner.scenario)
        return True

    def end_headers(self) -> None:
        self._headers_sent = True
        super().end_headers()

    # -- answering ---------------------------------------------------------------------------------

    def _answer(self, encoder: Encoder, plan: Plan, *, stream: bool) -> None:
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
            body = break_body(encoder, fault, self.connection, self.server.owner._stopping)
            self._send_bytes(200, body, "application/json")
            return
        self._send_json(200, encoder.full_body())

    def _stream(self, encoder: Encoder, plan: Plan) -> None:
        call = plan.call
        fault = call.fault if call.fault is not None and call.fault.kind is not None else None
        paced = call.delay > 0
        self.send_response(200)
        self.send_header("Content-Type", getattr(encoder, "content_type", "text/event-stream; charset=utf-8"))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        if fault is not None and fault.kind == "close":
            # The body will end cleanly and the connection close after it: said up front, as a server
            # does, so the client's pool never sends the retry down a socket that is being closed.
            self.send_header("Connection", "close")
        self._send_id_headers(encoder)
        self.end_headers()
        out = ChunkedWriter(self.wfile)
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

    def _stream_fault(self, out: ChunkedWriter, encoder: Encoder, fault: Fault) -> None:
        break_stream(out, encoder, fault, self.connection, self.server.owner._stopping)

    def _pause(self, seconds: float) -> None:
        pause(seconds, self.server.owner._stopping)

    # -- response helpers --------------------------------------------------------------------------

    def _send_id_headers(self, encoder: Encoder) -> None:
        self.send_header("x-request-id", f"req_scripted_{encoder.plan.response_id}")
        self.send_header("request-id", f"req_scripted_{encoder.plan.response_id}")

    def _send_fault(self, encoder: Encoder, fault: Fault) -> None:
        status, headers, data = error_response(encoder, fault)
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self._send_id_headers(encoder)
        self.end_headers()
        self.wfile.write(data)

    def _send_json(self, status: int, obj: Any) -> None:
        self._send_bytes(status, dumps(obj).encode(), "application/json")

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

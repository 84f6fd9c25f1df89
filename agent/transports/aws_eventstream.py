"""Bedrock's streamed reply: AWS event-stream frames, decoded into the Anthropic events they carry.

Bedrock's invoke-with-response-stream answers with binary frames (`application/vnd.amazon.eventstream`),
not SSE: each `chunk` event's JSON payload holds one Anthropic stream event, base64-encoded, in `bytes`; an
`exception` frame carries an AWS error (`throttlingException`, `validationException`...). The frames are
parsed by botocore's own `EventStreamBuffer` (prelude, headers, CRCs); the rest is here, with the same
`feed()` / `finish()` shape as `SSEDecoder`, so the Anthropic transport reads either stream one way. An
exception frame becomes an `error` event in Anthropic's shape, which the transport raises as the SDK does
(the SDK's own Bedrock decoder does the same).
"""

from __future__ import annotations

import base64
import json
from typing import Any

from agent.transports.sse import ServerSentEvent

__all__ = ["EventStreamDecoder"]


class EventStreamDecoder:
    """Incremental: feed it byte chunks in order, get the Anthropic events each chunk completed."""

    def __init__(self) -> None:
        # botocore ships no type information (its stubs are a separate, unpinned package).
        from botocore.eventstream import EventStreamBuffer  # type: ignore[import-untyped]

        self._buffer = EventStreamBuffer()

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        self._buffer.add_data(chunk)
        events = []
        for message in self._buffer:
            event = _event(message.headers, message.payload)
            if event is not None:
                events.append(event)
        return events

    def finish(self) -> list[ServerSentEvent]:
        """A frame cut short at the end is dropped, as an unterminated SSE event is."""
        return []


def _event(headers: dict[str, Any], payload: bytes) -> ServerSentEvent | None:
    kind = headers.get(":message-type")
    if kind in ("exception", "error"):
        code = str(headers.get(":exception-type") or headers.get(":error-code") or "ServiceException")
        try:
            body = json.loads(payload or b"{}")
        except ValueError:
            body = {}
        text = body.get("message") or body.get("Message") if isinstance(body, dict) else None
        message = str(text or headers.get(":error-message") or payload.decode("utf-8", "replace"))
        data = {"type": "error", "error": {"type": code, "message": message}}
        return ServerSentEvent(event="error", data=json.dumps(data))
    if headers.get(":event-type") != "chunk":
        return None
    envelope = json.loads(payload)  # not JSON: raised, as a malformed SSE event is
    raw = base64.b64decode(envelope.get("bytes") or b"") if isinstance(envelope, dict) else b""
    if not raw:
        return None
    text = raw.decode("utf-8")
    try:
        kind_name = json.loads(text).get("type")
    except (ValueError, AttributeError):
        kind_name = None
    return ServerSentEvent(event=kind_name if isinstance(kind_name, str) else "completion", data=text)

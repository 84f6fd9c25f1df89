"""Bedrock's shape of a planned answer: the Anthropic stream's events, each in an AWS event-stream frame
(`application/vnd.amazon.eventstream`), as invoke-with-response-stream sends them; a whole message for
invoke; errors as Bedrock's `{"message": ...}`.

A frame is AWS's binary format: total length, headers length, the prelude's CRC32, typed headers
(`:event-type: chunk`, `:content-type`, `:message-type: event`), the payload `{"bytes": base64(event)}`,
and the message's CRC32. botocore's decoder (what the SDK and our transport read it with) checks both
CRCs, so a test that completes a turn has checked the framing too.
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
from typing import Any

from .plan import Piece, Plan
from .request import Api
from .wire_anthropic import AnthropicEncoder

__all__ = ["CONTENT_TYPE", "BedrockEncoder", "event_frame", "exception_frame", "frame"]

CONTENT_TYPE = "application/vnd.amazon.eventstream"
_STRING = 7  # the header value type of a string


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    return (
        struct.pack("!B", len(raw_name)) + raw_name + struct.pack("!BH", _STRING, len(raw_value)) + raw_value
    )


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream message: prelude, its CRC, headers, payload, the message CRC."""
    head = b"".join(_header(k, v) for k, v in headers.items())
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack("!II", total, len(head))
    prelude += struct.pack("!I", binascii.crc32(prelude) & 0xFFFFFFFF)
    body = prelude + head + payload
    return body + struct.pack("!I", binascii.crc32(body) & 0xFFFFFFFF)


def event_frame(event_json: bytes) -> bytes:
    """A `chunk` event carrying one Anthropic stream event (base64 in `bytes`, as Bedrock sends it)."""
    payload = json.dumps({"bytes": base64.b64encode(event_json).decode(), "p": "abcdefghij"}).encode()
    headers = {":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}
    return frame(headers, payload)


def exception_frame(exception_type: str, message: str) -> bytes:
    """An `exception` message mid-stream (`throttlingException`, `modelStreamErrorException`...)."""
    headers = {
        ":exception-type": exception_type,
        ":content-type": "application/json",
        ":message-type": "exception",
    }
    return frame(headers, json.dumps({"message": message}).encode())


def _reframe(sse: bytes) -> bytes:
    """The Anthropic encoder's SSE events as event-stream frames (`ping` dropped: Bedrock sends none)."""
    out = b""
    for block in sse.split(b"\n\n"):
        name, data = b"", b""
        for line in block.split(b"\n"):
            if line.startswith(b"event: "):
                name = line[7:]
            elif line.startswith(b"data: "):
                data = line[6:]
        if data and name != b"ping":
            out += event_frame(data)
    return out


class BedrockEncoder:
    api: Api = "bedrock"
    content_type = CONTENT_TYPE

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self._anthropic = AnthropicEncoder(plan)

    def preamble(self) -> bytes:
        return _reframe(self._anthropic.preamble())

    def piece(self, piece: Piece) -> bytes:
        return _reframe(self._anthropic.piece(piece))

    def malformed(self) -> bytes:
        return _reframe(self._anthropic.malformed())

    def finish(self) -> bytes:
        return _reframe(self._anthropic.finish())

    def full_body(self) -> dict[str, Any]:
        return self._anthropic.full_body()

    def malformed_body(self) -> bytes:
        return self._anthropic.malformed_body()

    @staticmethod
    def error_body(message: str, type_: str, code: str | None = None) -> dict[str, Any]:
        return {"message": message}

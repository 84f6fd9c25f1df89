"""What both wire formats share: the encoder interface, compact JSON, and the chunked response body."""

from __future__ import annotations

import json
from io import BufferedIOBase
from typing import Any, Protocol

from .plan import Piece, Plan
from .request import Api

__all__ = ["FLUSH_BYTES", "Abort", "ChunkedWriter", "Encoder", "dumps"]

FLUSH_BYTES = 32 * 1024
"""When chunks are not paced (delay 0), SSE events are written in batches of about this size."""


class Encoder(Protocol):
    """One API's shape of a planned answer: a stream's events, the whole body, its broken forms, errors."""

    api: Api
    plan: Plan

    def __init__(self, plan: Plan) -> None: ...

    def preamble(self) -> bytes: ...

    def piece(self, piece: Piece) -> bytes: ...

    def malformed(self) -> bytes: ...

    def finish(self) -> bytes: ...

    def full_body(self) -> dict[str, Any]: ...

    def malformed_body(self) -> bytes: ...

    @staticmethod
    def error_body(message: str, type_: str, code: str | None = None) -> dict[str, Any]: ...


def dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class Abort(Exception):
    """The response cannot be completed (fault, server stopping, client gone): close the connection."""


class ChunkedWriter:
    """Writes a body with chunked transfer encoding, batching small writes when asked to."""

    def __init__(self, wfile: BufferedIOBase) -> None:
        self._wfile = wfile
        self._buf = bytearray()

    def write(self, data: bytes, *, flush: bool) -> None:
        self._buf += data
        if flush or len(self._buf) >= FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        if self._buf:
            self._wfile.write(b"%X\r\n%s\r\n" % (len(self._buf), bytes(self._buf)))
            self._buf.clear()

    def end(self) -> None:
        self.flush()
        self._wfile.write(b"0\r\n\r\n")

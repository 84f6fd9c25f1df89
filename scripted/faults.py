"""Fault injection: what a scenario's `fault` does to an answer, apart from how an answer is sent.

An HTTP fault (`status`) answers with an error body in the API's shape (and `Retry-After` when given). A
mid-stream fault (`kind`) breaks the answer after `after_chunks` pieces: `malformed` sends one event that
is not JSON and carries on, `stall` sends nothing more until `stall_seconds` pass (or the client goes,
or the server stops), `cut` ends the connection without the body's terminating chunk, `close` ends the
body cleanly but without the protocol's terminal events. Every way of not finishing raises `Abort`: the
handler closes the connection.
"""

from __future__ import annotations

import select
import socket
import threading
import time

from .scenario import Fault
from .wire import Abort, ChunkedWriter, Encoder, dumps

__all__ = ["break_body", "break_stream", "error_response", "pause", "stall"]


def pause(seconds: float, stopping: threading.Event) -> None:
    """Wait `seconds` (a call's delay); the server stopping meanwhile aborts the answer."""
    if seconds > 0 and stopping.wait(seconds):
        raise Abort


def stall(connection: socket.socket, fault: Fault, stopping: threading.Event) -> None:
    """Send nothing until `stall_seconds` pass, the client disconnects or the server stops."""
    poller = select.poll()
    poller.register(connection, select.POLLIN | select.POLLHUP | select.POLLERR)
    deadline = time.monotonic() + fault.stall_seconds
    while not stopping.is_set():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        # stop() shuts the socket down, which wakes this poll; so does a client disconnect.
        if poller.poll(min(remaining, 3600.0) * 1000):
            return


def break_stream(
    out: ChunkedWriter, encoder: Encoder, fault: Fault, connection: socket.socket, stopping: threading.Event
) -> None:
    """A mid-stream fault at its chunk: returns only for `malformed` (the stream carries on)."""
    if fault.kind == "malformed":
        out.write(encoder.malformed(), flush=True)
        return
    if fault.kind == "close":
        out.end()  # a complete HTTP response whose stream simply stops
        raise Abort
    out.flush()
    if fault.kind == "stall":
        stall(connection, fault, stopping)
    raise Abort  # cut (or a stall that ended): no terminating chunk, the client sees a broken body


def break_body(encoder: Encoder, fault: Fault, connection: socket.socket, stopping: threading.Event) -> bytes:
    """A mid-stream fault on an answer that is not streamed: the malformed body to send, else Abort."""
    if fault.kind == "malformed":
        return encoder.malformed_body()
    if fault.kind == "stall":
        stall(connection, fault, stopping)
    raise Abort  # cut, or a stall that ended: close without an answer


def error_response(
    encoder: Encoder | type[Encoder], fault: Fault
) -> tuple[int, list[tuple[str, str]], bytes]:
    """An HTTP fault's status, headers (before the request-id ones) and JSON body."""
    data = dumps(encoder.error_body(fault.error_message, fault.error_type, fault.code)).encode()
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
    if fault.retry_after is not None:
        value = fault.retry_after
        headers.append(("Retry-After", str(int(value)) if value == int(value) else str(value)))
    return fault.status or 500, headers, data

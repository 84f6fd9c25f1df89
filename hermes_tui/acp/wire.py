"""stdio as JSON-RPC messages, one per line, for the SDK's connection: bad input is answered, never fatal.

The SDK's own line reader logs a line that is not JSON and drops it, and a line that is JSON but not an
object (`[1]`, `"x"`) ends its receive loop; a client then waits forever for an answer. Here each gets the
answer JSON-RPC 2.0 prescribes (`-32700` parse error, `-32600` invalid request, with `id: null`), and the
connection goes on. The protocol writes to its own copy of stdout's descriptor (`main` points descriptor 1
at stderr), so nothing else in the process (a plugin's print, a library's warning) can corrupt it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import threading
from typing import Any, BinaryIO

from acp.task import MessageSender, TaskSupervisor

log = logging.getLogger(__name__)

LINE_LIMIT = 50 * 1024 * 1024
"""The longest message taken (an image or a file embedded in a prompt); longer lines are refused."""


async def stdio_streams(in_fd: int, out_fd: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Asyncio streams over two descriptors, the reader taking lines up to `LINE_LIMIT`. Pipes and sockets
    (what an editor gives) are watched by the loop; anything else (a regular file, `hermes-tui acp <
    requests.jsonl`; a character device such as `/dev/null` or a terminal) is read on a thread and written
    in place. The loop cannot watch those: epoll refuses a file or `/dev/null` in a callback after
    `connect_read_pipe` returned, so the end of input never came and the agent served nothing for good."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    source = os.fdopen(in_fd, "rb", 0)
    if _watchable(in_fd):
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), source)
    else:
        threading.Thread(target=_feed, args=(loop, reader, source), daemon=True, name="acp-stdin").start()
    sink = os.fdopen(out_fd, "wb", 0)
    protocol = asyncio.streams.FlowControlMixin()
    transport: asyncio.WriteTransport
    if _watchable(out_fd):
        transport, _ = await loop.connect_write_pipe(lambda: protocol, sink)
    else:
        transport = _FileTransport(sink)
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


def _watchable(fd: int) -> bool:
    """A pipe or a socket: what the event loop can wait on."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _feed(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader, source: BinaryIO) -> None:
    try:
        while data := source.read(65536):
            loop.call_soon_threadsafe(reader.feed_data, data)
    finally:
        loop.call_soon_threadsafe(reader.feed_eof)


class _FileTransport(asyncio.WriteTransport):
    """Writes to a regular file at once (a file never blocks for long, and is never paused)."""

    def __init__(self, sink: BinaryIO) -> None:
        super().__init__()
        self._sink = sink
        self._closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._sink.write(bytes(data))

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        self._closing = True


def _error(code: int, message: str, request_id: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


class JsonRpcLines:
    """The SDK's `Transport` protocol over newline-delimited JSON, answering what cannot be a message."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._tasks = TaskSupervisor(source="hermes-tui acp wire")
        self._sender = MessageSender(writer, self._tasks)

    async def send(self, message: dict[str, Any]) -> None:
        await self._sender.send(message)

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line = await self._line()
            if line is None:
                return None
            line = line.strip()
            if not line:
                continue
            message = await self._message(line)
            if message is not None:
                return message

    async def close(self) -> None:
        await self._sender.close()
        await self._tasks.shutdown()

    async def _line(self) -> bytes | None:
        """The next line; None at the end of input. A line over the limit is refused and skipped."""
        try:
            return await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:  # the last line without its newline, or the end
            return exc.partial or None
        except asyncio.LimitOverrunError:
            while True:  # drop the rest of it
                try:
                    await self._reader.readuntil(b"\n")
                    break
                except asyncio.LimitOverrunError as more:
                    await self._reader.readexactly(more.consumed)
                except asyncio.IncompleteReadError:
                    break
            log.warning("a message over %d bytes was refused", LINE_LIMIT)
            await self.send(_error(-32600, f"Invalid Request: a message is limited to {LINE_LIMIT} bytes"))
            return b""

    async def _message(self, line: bytes) -> dict[str, Any] | None:
        """The message of one line, or None after answering why it is not one."""
        try:
            data = json.loads(line)
        except ValueError:
            log.warning("not JSON: %r", line[:200])
            await self.send(_error(-32700, "Parse error: not a JSON message"))
            return None
        if not isinstance(data, dict):
            await self.send(_error(-32600, "Invalid Request: a message is a JSON object"))
            return None
        method = data.get("method")
        if method is None and "id" not in data:
            await self.send(_error(-32600, "Invalid Request: neither a method nor a response"))
            return None
        if method is not None and not isinstance(method, str):
            if "id" in data:
                await self.send(_error(-32600, "Invalid Request: method is not a string", data["id"]))
            return None
        params = data.get("params")
        if method is not None and params is not None and not isinstance(params, dict | list):
            if "id" in data:
                await self.send(_error(-32602, "Invalid params: params is an object", data["id"]))
            return None
        return data

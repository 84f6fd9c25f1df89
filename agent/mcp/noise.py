"""A server's output that is not JSON-RPC (a banner, a library's warning, bytes that are not UTF-8),
skipped: logged in one line naming the server, counted for `/mcp`, never a traceback, never a stall.

Real stdio servers print such lines before their first message and between messages. The SDK's stdio
transport hands each unparsable line to the session as an exception value and logs it with a traceback;
decoded strictly, one invalid byte ends its reader and the connection then waits out its timeout. So the
server's stdout is decoded with replacement characters (`STDIO_DECODING`), the transport's read stream is
wrapped here to drop those values before the session sees them, and the SDK's own traceback for them is
filtered out of its logger (`quiet_sdk_parse_errors`).

The same wrapper is where the client sees the server's messages in the order they arrived (`on_message`): the
SDK hands notifications to tasks of their own, so a `tools/list_changed` sent before a call's response may be
handled after the call has returned; seen here, it is known before the response is.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["STDIO_DECODING", "NoiseCount", "filtered", "quiet_sdk_parse_errors"]

log = logging.getLogger(__name__)

STDIO_DECODING = "replace"
"""How a stdio server's stdout is decoded: an invalid byte becomes U+FFFD, the line is then skipped."""
_SDK_LOGGER = "mcp.client.stdio"
_SDK_PARSE_FAILURE = "Failed to parse JSONRPC message"
SAMPLE_CHARS = 120


@dataclass
class NoiseCount:
    """The lines of one connection that were not protocol messages."""

    lines: int = 0
    first: str = ""


def _sample(exc: Exception) -> str:
    """The offending line (pydantic keeps it as the error's input), shortened, on one line."""
    errors = getattr(exc, "errors", None)
    raw: Any = None
    if callable(errors):
        with contextlib.suppress(Exception):
            found = errors()
            raw = found[0].get("input") if found else None
    text = raw if isinstance(raw, str) else str(exc)
    text = " ".join(text.split())
    return text if len(text) <= SAMPLE_CHARS else text[: SAMPLE_CHARS - 1] + "…"


class _SkipParseFailures(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(_SDK_PARSE_FAILURE)


_FILTER = _SkipParseFailures()


def quiet_sdk_parse_errors() -> None:
    """Drop the SDK's traceback for an unparsable line (`filtered` says it in one line instead)."""
    logger = logging.getLogger(_SDK_LOGGER)
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)


@contextlib.asynccontextmanager
async def filtered(
    transport: Any,
    server: str,
    count: NoiseCount,
    on_end: Callable[[], None] | None = None,
    on_message: Callable[[Any], None] | None = None,
) -> AsyncIterator[tuple[Any, Any]]:
    """`transport` (an SDK transport: read and write streams) with every non-message dropped from its read
    stream: the first one of a connection logged in one line naming the server, all of them counted.
    `on_end` is called when the read stream ends (a stdio server's output closed: it exited); `on_message`
    with each message, in the order received, before the session is given it."""
    import anyio

    async with transport as (read, write):
        sender, receiver = anyio.create_memory_object_stream[Any](0)

        async def forward() -> None:
            async with sender:
                async for item in read:
                    if isinstance(item, Exception):
                        count.lines += 1
                        if count.lines == 1:
                            count.first = _sample(item)
                            log.warning(
                                "mcp: server '%s' wrote output that is not JSON-RPC, skipped: %s",
                                server,
                                count.first,
                            )
                        continue
                    if on_message is not None:
                        try:
                            on_message(item)
                        except Exception:  # an observer's bug never breaks the connection
                            log.exception("mcp: server '%s': a message observer failed", server)
                    try:
                        await sender.send(item)
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        return
            if on_end is not None:
                on_end()

        async with anyio.create_task_group() as tg:
            tg.start_soon(forward)
            try:
                async with receiver:
                    yield receiver, write
            finally:
                tg.cancel_scope.cancel()

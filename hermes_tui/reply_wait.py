"""The engine's thread waiting for a front end's answer to a question (a clarify, an approval): in slices, so
that a stopped turn or a closed front end ends the wait at once, and bounded, so that a question nobody
answers cannot hold a turn for ever. The TUI's bridge and the ACP bridge both wait this way."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from enum import Enum
from typing import TypeVar

__all__ = ["NoReply", "wait_for_reply"]

T = TypeVar("T")


class NoReply(Enum):
    STOPPED = "stopped"  # the turn stopped or the front end went away
    TIMED_OUT = "timed out"


def wait_for_reply(
    reply: concurrent.futures.Future[T], stopped: Callable[[], bool], limit: float, step: float
) -> T | NoReply:
    """`reply`'s result, or why there is none; the future is cancelled when the wait gives up."""
    waited = 0.0
    while True:
        try:
            return reply.result(timeout=step)
        except concurrent.futures.TimeoutError:
            waited += step
            if stopped():
                reply.cancel()
                return NoReply.STOPPED
            if waited >= limit:
                reply.cancel()
                return NoReply.TIMED_OUT

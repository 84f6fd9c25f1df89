"""The engine's one word to whoever owns the process's garbage collector (the app's `GcPolicy`): "this
thread is making a burst of short-lived objects that form no cycles; the collector's passes meanwhile
would be pure cost". The engine never calls `gc` itself (one owner, `hermes_tui/gc_policy.py`); without an
owner served here, a burst changes nothing.

Why there is a word for it: the shell analysis of a long script (`agent.shell.walk.analyze`) makes hundreds
of thousands of small objects that live exactly as long as the analysis, and the full collections they
trigger midway cost a third of its time (a 20,000-line heredoc: 3.0 s CPU with the collector on, 2.2 s
off). In the TUI a turn already holds the collector off; `hermes-tui -z` and the cron runner have no turn
of the UI's around the engine, and they serve their own owner.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext

__all__ = ["burst", "serve_collector"]

_owner: Callable[[], AbstractContextManager[object]] | None = None


def serve_collector(owner: Callable[[], AbstractContextManager[object]] | None) -> None:
    """The process's collector owner from now on (`GcPolicy.burst`; None: nobody). Process-wide, like the
    collector itself; any thread may then call `burst`."""
    global _owner
    _owner = owner


def burst() -> AbstractContextManager[object]:
    """Wrap a burst of short-lived, acyclic objects on this thread (the owner may hold the collector off
    meanwhile; it is as it was after the burst, errors included)."""
    owner = _owner
    return owner() if owner is not None else nullcontext()

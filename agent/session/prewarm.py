"""What the first turn builds once per process, built ahead of it (the app calls this after its first frame).

The modules a turn imports lazily (the approval gate, the checkpoints), a local server's context window, the
SDK client of the session's transport, the tools' JSON schemas and the price table: each costs tens of
milliseconds (the SDK hundreds) on the way from Enter to the request otherwise. In the order the first
turn needs them: a quick user's Enter finds the earlier ones done, and waits for the one being built
rather than building a second (`agent.core.prebuilt`). Quiet on failure: a bad configuration is reported
by the first request.
"""

from __future__ import annotations

import importlib
import threading

from agent.config.settings import Settings
from agent.core import providers

__all__ = ["PREWARM_MODULES", "import_prewarm_modules", "prewarm_engine", "sdk_module"]

LAZY_MODULES = ("agent.approval", "agent.approval.smart", "agent.checkpoints")
"""Imported by a turn when it first needs them; kept off the app's first frame, loaded here instead."""

PREWARM_MODULES = (
    *LAZY_MODULES,
    "agent.transports.served_window",
    "agent.transports.factory",
    "agent.transports.openai_chat",
    "agent.transports.responses",
    "agent.transports.anthropic",
    "agent.session.session",
    "agent.session.catalogue",
    "agent.toolkit.registry",
    "agent.usage.pricing",
)
"""Every module of ours `prewarm_engine` imports (the SDK's are not ours)."""


def import_prewarm_modules() -> None:
    """The engine's modules the prewarm needs, imported on the calling thread before the prewarm's thread
    starts. Python 3.11 can fail one of two threads that import the same package at once (`_DeadlockError`:
    a thread running a package's `__init__` asks for a submodule another thread imported directly and holds
    while it waits for the package); imported here first, they are only looked up by the prewarm, which may
    then run beside the caller's own imports. Costs what these imports cost, which the first turn would pay
    on this thread otherwise."""
    for name in PREWARM_MODULES:
        importlib.import_module(name)


def prewarm_engine(settings: Settings) -> None:
    try:
        for name in LAZY_MODULES:
            importlib.import_module(name)  # a few ms: done before the SDK, which a quick Enter waits for
        from agent.transports.served_window import prewarm_served_window

        # The turn's first question, asked beside the SDK's import (an unreachable host must not hold it).
        threading.Thread(
            target=prewarm_served_window, args=(settings,), name="window-probe", daemon=True
        ).start()
        from agent.transports.factory import make_transport

        prewarm = getattr(make_transport(settings), "prewarm", None)
        if prewarm is not None:
            prewarm()
        # The session and its turn: the first turn imports them (the chat's engine, built on the UI thread
        # after the first frame, usually has: then this is a no-op, and it did not hold up the SDK).
        import agent.session.session  # noqa: F401
        from agent.session.catalogue import builtin_tools
        from agent.toolkit.registry import warm_schemas
        from agent.usage.pricing import warm_up

        warm_schemas(builtin_tools())
        warm_up(settings.provider or "", settings.base_url)
    except Exception:
        pass


def sdk_module(settings: Settings) -> str:
    """The SDK the transport for `settings` imports (`agent.transports.factory`): Anthropic's for its
    protocol and for Claude on a cloud, OpenAI's for every other."""
    spec = providers.lookup(settings.provider)
    if settings.api_mode == "anthropic" or (spec is not None and spec.platform):
        return "anthropic"
    return "openai"

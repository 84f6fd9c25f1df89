"""What the first turn builds once per process, built ahead of it (the app calls this after its first frame).

The SDK client of the session's transport, the modules a turn imports lazily (the approval gate, the
checkpoints), the tools' JSON schemas and the price table: each costs tens of milliseconds on the way from
Enter to the request otherwise. Quiet on failure: a bad configuration is reported by the first request.
"""

from __future__ import annotations

import importlib

from agent.config.settings import Settings

__all__ = ["prewarm_engine"]

LAZY_MODULES = ("agent.approval", "agent.checkpoints")
"""Imported by a turn when it first needs them; kept off the app's first frame, loaded here instead."""


def prewarm_engine(settings: Settings) -> None:
    try:
        import agent.session.session  # noqa: F401  (the session and its turn: the first turn imports them)
        from agent.transports.factory import make_transport

        transport = make_transport(settings)
        prewarm = getattr(transport, "prewarm", None)
        if prewarm is not None:
            prewarm()
        for name in LAZY_MODULES:
            importlib.import_module(name)
        from agent.session.catalogue import builtin_tools
        from agent.toolkit.registry import warm_schemas
        from agent.usage.pricing import warm_up

        warm_schemas(builtin_tools())
        warm_up()
    except Exception:
        pass

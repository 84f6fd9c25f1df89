"""Put one of our wrappers in front of a function a Textual module (or class) calls by name, once.

The workarounds for Textual 8.2.8's faults (`terminal_input`: the input decoder; `callback_counts`: the
parameter count of every callback; `component_styles`: the stylesheet's component-class step) each replace
one module or class attribute with an object wrapping what was there.
This is that step, in one place: idempotent (a second install finds its own wrapper), and a no-op if the name
is gone in another Textual, so the app runs without the workaround rather than failing.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

__all__ = ["wrap_once"]


def wrap_once(module: ModuleType | type, name: str, wrapper: type[Any]) -> bool:
    """Replace `module.name` with `wrapper(current)` unless it is one already; True if it is in place."""
    current: Callable[..., Any] | None = getattr(module, name, None)
    if current is None:
        return False
    if not isinstance(current, wrapper):
        setattr(module, name, wrapper(current))
    return True

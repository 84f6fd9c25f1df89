"""Put one of our wrappers in front of a function a Textual module (or class) calls by name, once.

Each patch of `textual_compat` that wraps a Textual function (the input decoder factory, callback counts,
the component-class step, the frame writer, ...) replaces one module or class attribute with an object
wrapping what was there (as `original`, which the canary test reads the signature of). This is that step,
in one place: idempotent (a second install finds its own wrapper). Whether it runs at all is the version
guard's decision (`guard.install`), made before any patch.
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

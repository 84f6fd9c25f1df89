"""The model SDKs by name, and importing one ahead of its transport: `import_sdk`.

Its own small module (the standard library only), so a thread started with the app's first frame begins the
SDK's import at once, before the configuration (pydantic) is even read: the import is most of what a quick
first message waits for.
"""

from __future__ import annotations

import importlib

__all__ = ["SDK_MODULES", "import_sdk"]

SDK_MODULES = frozenset({"openai", "anthropic"})
"""The model SDKs a transport imports, and all that `import_sdk` will import (its name comes from a file)."""


def import_sdk(name: str) -> None:
    """Import the SDK the last run's session used (the app's startup snapshot names it) before this run's
    configuration is even read: the SDK's import is most of what a quick first message waits for, and the
    app's own startup work leaves the interpreter idle between its steps. A name that is not one of
    `SDK_MODULES` imports nothing; a failure is quiet (the transport meets it again and says so)."""
    if name not in SDK_MODULES:
        return
    try:
        importlib.import_module(name)
    except Exception:
        pass

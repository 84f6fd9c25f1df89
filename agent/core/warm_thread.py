"""Work done ahead in a background thread that the interpreter's exit waits for: `start_warm_thread`.

Why not a daemon thread: Python 3.11 stops a daemon thread at exit by unwinding its stack (`pthread_exit`)
from wherever it next takes the interpreter lock. When that is inside a Rust extension's frames (pydantic-core
running a validator while an SDK's or the price table's models are built), the unwinding cannot pass them and
the process aborts (SIGABRT, "FATAL: exception not rethrown") after a run that had succeeded: seen when a
`-z` run or a test ended while the price table was still importing. A warm-up is bounded CPU work (imports,
a client's making, schemas), so exit waits at most for what is left of it, a fraction of a second.

Only for work that cannot block: a thread that may wait on the network or a child stays a daemon and is
stopped by its owner.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["start_warm_thread"]


def start_warm_thread(target: Callable[..., None], *args: Any, name: str) -> threading.Thread:
    """Start `target(*args)` in a thread the interpreter joins before it finalizes."""
    thread = threading.Thread(target=target, args=args, name=name, daemon=False)
    thread.start()
    return thread

"""The iteration budget: how many model calls one turn may make before it must stop and summarize."""

from __future__ import annotations

import threading


class IterationBudget:
    """A thread-safe counter; `consume()` is False once the budget is spent."""

    def __init__(self, max_total: int) -> None:
        self.max_total = max_total
        self._used = 0
        self._lock = threading.Lock()

    def consume(self) -> bool:
        with self._lock:
            if self._used >= self.max_total:
                return False
            self._used += 1
            return True

    def refund(self) -> None:
        with self._lock:
            self._used = max(0, self._used - 1)

    @property
    def used(self) -> int:
        return self._used

    @property
    def remaining(self) -> int:
        return max(0, self.max_total - self._used)

"""The iteration budget: how many model calls a turn may make before it must stop and summarize.

`Session.run_conversation` starts each turn with a fresh `IterationBudget(settings.max_iterations)` and
`consume()`s one unit per model call of the turn loop (continuations and empty-reply retries included; the
closing summary call, compression and titles are not counted). When `consume()` says no, the model is asked
for a summary without tools (exit reason `budget_exhausted`).

Sharing with a child agent (delegation): build the child with `Session(..., budget=parent.budget.child(n))`.
The child then draws from its own cap `n` *and* from the parent's running turn, so a delegated task can
never make the parent's turn exceed its budget, and the parent sees what its children used
(`parent.budget.used`). An agent given a budget keeps it across its turns (a child runs one task) instead of
starting a fresh one per turn. Thread-safe: children may run in parallel.
"""

from __future__ import annotations

import threading

__all__ = ["IterationBudget"]


class IterationBudget:
    """A thread-safe counter; `consume()` is False once this budget (or a parent's) is spent."""

    def __init__(self, max_total: int, *, parent: IterationBudget | None = None) -> None:
        self.max_total = max_total
        self.parent = parent
        self._used = 0
        self._lock = threading.Lock()

    def consume(self) -> bool:
        with self._lock:
            if self._used >= self.max_total:
                return False
            if self.parent is not None and not self.parent.consume():
                return False
            self._used += 1
            return True

    def refund(self) -> None:
        """Give back one unit (a call that turned out not to count), to the parents too."""
        with self._lock:
            if self._used == 0:
                return
            self._used -= 1
        if self.parent is not None:
            self.parent.refund()

    def child(self, max_total: int) -> IterationBudget:
        """A budget of at most `max_total` calls that also counts against this one."""
        return IterationBudget(max_total, parent=self)

    @property
    def used(self) -> int:
        return self._used

    @property
    def remaining(self) -> int:
        mine = max(0, self.max_total - self._used)
        return mine if self.parent is None else min(mine, self.parent.remaining)

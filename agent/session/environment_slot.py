"""Where a session's tools run: its environment (`agent.environments`), opened lazily and closed once.

Opening may take long (a container image pulled, an ssh login) or fail; a failure is one line
(`EnvironmentUnavailable`) and the next use tries again, so no tool of the session runs anywhere the user
did not choose, on the host least of all. A subagent is given its parent's environment: it uses it and
never closes it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from agent.config.settings import Settings
from agent.core.errors import ClassifiedError
from agent.environments.factory import open_environment

if TYPE_CHECKING:
    from agent.environments import Environment
    from agent.environments.base import EnvironmentUnavailable

__all__ = ["CLOSE_PATIENCE", "EnvironmentSlot", "environment_refusal"]

CLOSE_PATIENCE = 2.0
"""Seconds `close` waits for an environment still being opened before it leaves it to the supervisor."""


class EnvironmentSlot:
    """One session's environment: its own (opened from the settings on first use) or one it was given."""

    def __init__(
        self,
        settings: Callable[[], Settings],
        given: Environment | None = None,
        opener: Callable[[Settings], Environment] = open_environment,
    ) -> None:
        """`settings`: the session's as they are when the environment is opened (`terminal.backend`)."""
        self._settings = settings
        self._environment = given
        self._opener = opener
        self._lock = threading.Lock()
        self.owned = given is None

    def get(self) -> Environment:
        """The environment, opened now if it is not; raises `EnvironmentUnavailable` (one line)."""
        with self._lock:
            if self._environment is None:
                self._environment = self._opener(self._settings())
            return self._environment

    @property
    def opened(self) -> Environment | None:
        """The environment if it is open, without opening it (`/context` measures without one)."""
        return self._environment

    @property
    def label(self) -> str:
        """The short label of where the tools run ("" for local), without opening it."""
        if self._environment is not None:
            return self._environment.label
        return self._settings().terminal.label()

    @property
    def is_local(self) -> bool:
        """Whether the tools' files are this machine's, without opening it."""
        if self._environment is not None:
            return self._environment.is_local
        return self._settings().terminal.is_local

    def close(self) -> None:
        """End an owned environment (a later use opens it again); a given one is left alone. One still
        being opened is not waited for beyond `CLOSE_PATIENCE`: what the opening started is the child
        supervisor's, stopped with the rest when the app ends."""
        if not self._lock.acquire(timeout=CLOSE_PATIENCE):
            return
        try:
            environment = self._environment
            if self.owned:
                self._environment = None
        finally:
            self._lock.release()
        if environment is not None and self.owned:
            environment.close()


def environment_refusal(exc: EnvironmentUnavailable) -> ClassifiedError:
    """The turn's error when the configured backend cannot be used: its one line, never retried."""
    return ClassifiedError(reason="environment", message=str(exc), retryable=False, hint=str(exc))

"""The environment a session's settings ask for (`terminal.backend`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.environments.local import LocalEnvironment

if TYPE_CHECKING:
    from agent.config.settings import Settings
    from agent.environments.base import Environment

__all__ = ["open_environment"]


def open_environment(settings: Settings) -> Environment:
    """The session's environment, ready to run commands. Raises `EnvironmentUnavailable` (one line) when the
    configured backend cannot be used."""
    return LocalEnvironment(settings.cwd)

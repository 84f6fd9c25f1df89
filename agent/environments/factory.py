"""The environment a session's settings ask for (`terminal.backend`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.environments.local import LocalEnvironment

if TYPE_CHECKING:
    from agent.config.settings import ConfigProblem, Settings
    from agent.environments.base import Environment

__all__ = ["environment_label", "environment_problem", "open_environment", "sandbox_status"]

_SANDBOX_KEYS = frozenset({"sandbox.mode", "sandbox_mode", "sandbox-mode", "--sandbox"})


def open_environment(settings: Settings) -> Environment:
    """The session's environment, ready to run commands. Raises `EnvironmentUnavailable` (one line) when the
    configured backend cannot be used, or the sandbox the user chose cannot be had."""
    if settings.sandbox_mode == "off":
        return LocalEnvironment(settings.cwd)  # nothing of the sandbox is imported or probed
    from agent.environments.sandbox import require

    sandbox = require(settings.sandbox_mode, settings.cwd, network=settings.sandbox_network)
    return LocalEnvironment(settings.cwd, sandbox=sandbox)


def environment_label(settings: Settings) -> str:
    """The status bar's short label of where the session's commands run ("" for the plain local backend),
    known from the settings alone (nothing is started)."""
    if settings.sandbox_mode == "off":
        return ""
    from agent.environments.sandbox import sandbox_label

    return sandbox_label(settings.sandbox_mode, settings.sandbox_network)


def environment_problem(settings: Settings, problems: list[ConfigProblem] | None = None) -> str:
    """Why the session's environment cannot be had ("" when it can): checked before a session starts, so
    the TUI and `-z` stop with this one line instead of running anything. A sandbox mode the configuration
    misspelt is such a reason: the default (`off`) would silently run commands unsandboxed."""
    for problem in problems or []:
        if problem.key in _SANDBOX_KEYS:
            return (
                f"{problem}; the session does not start (a sandbox asked for is never dropped silently): "
                "fix it, or set sandbox.mode: off on purpose"
            )
    if settings.sandbox_mode == "off":
        return ""
    from agent.environments.base import EnvironmentUnavailable
    from agent.environments.sandbox import require

    try:
        require(settings.sandbox_mode, settings.cwd, network=settings.sandbox_network)
    except EnvironmentUnavailable as exc:
        return str(exc)
    return ""


def sandbox_status(settings: Settings, *, probe: bool = True) -> tuple[bool, str]:
    """(usable, one line) for `hermes-tui config` (`probe=False`: nothing is started) and `doctor`: the
    sandbox chosen and what it lets commands do, or why it cannot be had; with none, whether one could."""
    from agent.environments.base import EnvironmentUnavailable
    from agent.environments.sandbox import Sandbox, SandboxMode, require

    if settings.sandbox_mode == "off":
        off = "off: commands run with your full rights"
        if not probe:
            return True, off
        try:
            require("workspace-write", settings.cwd)
        except EnvironmentUnavailable as exc:
            return True, f"{off} (and none can be had here: {exc})"
        return True, f"{off}; bubblewrap works here (--sandbox workspace-write confines them)"
    if not probe:
        box = Sandbox(SandboxMode(settings.sandbox_mode), settings.cwd, network=settings.sandbox_network)
        return True, box.describe()
    try:
        sandbox = require(settings.sandbox_mode, settings.cwd, network=settings.sandbox_network)
    except EnvironmentUnavailable as exc:
        return False, str(exc)
    return True, f"{sandbox.describe() if sandbox is not None else 'off'}: ok"

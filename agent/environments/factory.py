"""The environment a session's settings ask for (`terminal.backend`, and for the local backend
`sandbox.mode`), opened and checked: a backend that cannot be used, or a sandbox that cannot be had, is one
line (`EnvironmentUnavailable`), never a session on the host instead."""

from __future__ import annotations

import importlib.util
import os
from typing import TYPE_CHECKING, Protocol

from agent.config.terminal import BACKENDS, UNREADABLE_CONFIG
from agent.environments.base import EnvironmentUnavailable
from agent.environments.local import LocalEnvironment

if TYPE_CHECKING:
    from agent.config.settings import ConfigProblem, Settings
    from agent.environments.base import Environment

__all__ = [
    "environment_label",
    "environment_problem",
    "open_environment",
    "sandbox_prompt_line",
    "sandbox_status",
    "unsupported_backend",
]

FIX = "choose docker, ssh, or `terminal.backend: local` on purpose"
# Backends of Hermes this app does not run commands on, with what Hermes itself needs for them.
_NOT_HERE = {
    "singularity": ("Singularity/Apptainer", "apptainer", "the `apptainer` (or `singularity`) program"),
    "modal": ("Modal", "modal", "Modal's SDK (`pip install modal`) and its token"),
    "daytona": ("Daytona", "daytona", "Daytona's SDK (`pip install daytona`) and DAYTONA_API_KEY"),
}


def unsupported_backend(backend: str) -> str | None:
    """Why `backend` cannot be used by hermes-tui at all (None for local, docker and ssh)."""
    if backend in ("local", "docker", "ssh"):
        return None
    if backend == UNREADABLE_CONFIG:
        return (
            "config.yaml could not be read, so where tools should run (terminal.backend) is unknown: nothing "
            "runs; fix it (`hermes-tui config` shows what is wrong), or set TERMINAL_ENV=local to run here "
            "on purpose"
        )
    if backend not in BACKENDS:
        return (
            f"terminal.backend is {backend!r}, which is not a backend (local, docker, ssh): fix it, or {FIX}"
        )
    name, module, needs = _NOT_HERE[backend]
    installed = backend != "singularity" and importlib.util.find_spec(module) is not None
    how = f"its SDK `{module}` is installed, but" if installed else f"Hermes uses {needs};"
    return (
        f"terminal.backend is {backend}, which hermes-tui cannot run commands on ({how} this app has no "
        f"{name} backend): nothing runs; {FIX}"
    )


def open_environment(settings: Settings) -> Environment:
    """The session's environment, ready to run commands. Raises `EnvironmentUnavailable` (one line) when the
    configured backend cannot be used, or the sandbox the user chose cannot be had."""
    terminal = settings.terminal
    problem = unsupported_backend(terminal.backend) or _sandbox_elsewhere(settings)
    if problem is not None:
        raise EnvironmentUnavailable(problem)
    if terminal.backend == "ssh":
        from agent.environments.ssh import SshEnvironment

        ssh = SshEnvironment(
            terminal.ssh_host,
            user=terminal.ssh_user,
            port=terminal.ssh_port,
            key=terminal.ssh_key,
            cwd=terminal.cwd,
            env=_passthrough(terminal.env_passthrough),
        )
        _open_or_close(ssh)
        return ssh
    if terminal.backend == "docker":
        from agent.environments.docker import DockerEnvironment

        docker = DockerEnvironment(terminal, host_cwd=settings.cwd)
        _open_or_close(docker)
        return docker
    if settings.sandbox_mode == "off":
        return LocalEnvironment(settings.cwd)  # nothing of the sandbox is imported or probed
    from agent.environments.sandbox import require

    sandbox = require(settings.sandbox_mode, settings.cwd, network=settings.sandbox_network)
    return LocalEnvironment(settings.cwd, sandbox=sandbox)


def _sandbox_elsewhere(settings: Settings) -> str | None:
    """A sandbox asked for with a backend it does not apply to: one line rather than a sandbox dropped."""
    backend = settings.terminal.backend
    if settings.sandbox_mode == "off" or backend == "local":
        return None
    return (
        f"sandbox.mode {settings.sandbox_mode} is for the local backend, but terminal.backend is {backend} "
        "(commands run there, not here): set sandbox.mode: off, or terminal.backend: local"
    )


class _Opening(Protocol):
    def open(self) -> None: ...

    def close(self) -> None: ...


def _open_or_close(environment: _Opening) -> None:
    try:
        environment.open()
    except BaseException:
        environment.close()
        raise


def _passthrough(names: list[str]) -> dict[str, str]:
    """The host's values of `terminal.env_passthrough`, for every command there."""
    return {name: os.environ[name] for name in names if os.environ.get(name)}


_SANDBOX_KEYS = frozenset({"sandbox.mode", "sandbox_mode", "sandbox-mode", "--sandbox"})


def environment_label(settings: Settings) -> str:
    """The status bar's short label of where the tools run (`ssh user@host`, `docker image`, `sandbox
    workspace-write`; "" for the local backend without a sandbox), known from the settings alone (nothing
    is started)."""
    if not settings.terminal.is_local:
        return settings.terminal.label()
    if settings.sandbox_mode == "off":
        return ""
    from agent.environments.sandbox import sandbox_label

    return sandbox_label(settings.sandbox_mode, settings.sandbox_network)


def environment_problem(settings: Settings, problems: list[ConfigProblem] | None = None) -> str:
    """Why the session's sandbox cannot be had ("" when it can, or none is asked for): checked before a
    session starts, so the TUI and `-z` stop with this one line instead of running anything. A sandbox mode
    the configuration misspelt is such a reason: the default (`off`) would silently run commands
    unsandboxed."""
    for problem in problems or []:
        if problem.key in _SANDBOX_KEYS:
            return (
                f"{problem}; the session does not start (a sandbox asked for is never dropped silently): "
                "fix it, or set sandbox.mode: off on purpose"
            )
    if settings.sandbox_mode == "off":
        return ""
    elsewhere = _sandbox_elsewhere(settings)
    if elsewhere is not None:
        return elsewhere
    from agent.environments.sandbox import require

    try:
        require(settings.sandbox_mode, settings.cwd, network=settings.sandbox_network)
    except EnvironmentUnavailable as exc:
        return str(exc)
    return ""


def sandbox_status(settings: Settings, *, probe: bool = True) -> tuple[bool, str]:
    """(usable, one line) for `hermes-tui config` (`probe=False`: nothing is started) and `doctor`: the
    sandbox chosen and what it lets commands do, or why it cannot be had; with none, whether one could."""
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


def sandbox_prompt_line(settings: Settings) -> str:
    """What the system prompt tells the model of the sandbox ("" without one), from the settings alone
    (`/context` measures the prompt before the environment is opened)."""
    if settings.sandbox_mode == "off" or not settings.terminal.is_local:
        return ""
    from agent.environments.sandbox import Sandbox, SandboxMode

    mode = SandboxMode(settings.sandbox_mode)
    return Sandbox(mode, settings.cwd, network=settings.sandbox_network).prompt_line()

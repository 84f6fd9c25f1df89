"""The environment a session's settings ask for (`terminal.backend`), opened and checked: a backend that
cannot be used is one line (`EnvironmentUnavailable`), never a session on the host instead."""

from __future__ import annotations

import importlib.util
import os
from typing import TYPE_CHECKING, Protocol

from agent.config.terminal import BACKENDS
from agent.environments.base import EnvironmentUnavailable
from agent.environments.local import LocalEnvironment

if TYPE_CHECKING:
    from agent.config.settings import Settings
    from agent.environments.base import Environment

__all__ = ["open_environment", "unsupported_backend"]

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
    configured backend cannot be used."""
    terminal = settings.terminal
    problem = unsupported_backend(terminal.backend)
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
    return LocalEnvironment(settings.cwd)


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

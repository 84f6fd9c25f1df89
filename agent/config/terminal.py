"""Where the tools run, read as Hermes reads it: `terminal.backend` and its siblings in config.yaml, else
the `TERMINAL_*` environment variables (or `$HERMES_HOME/.env`), else Hermes' defaults.

Hermes' CLI exports each key of the `terminal:` section into its `TERMINAL_*` variable, over what the
environment had, and its terminal tool reads only the variables: so a key in config.yaml wins, and a
variable counts for a key the file does not set. Lists and mappings in variables are JSON; booleans are
`true`/`1`/`yes`. A value that cannot be read is a configuration problem, and the key keeps its default,
except `backend`: an unknown backend is kept as written so that the session refuses to start with it
instead of running on the host (`agent.environments.factory`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["BACKENDS", "DEFAULT_IMAGE", "ENV_VARS", "TerminalSettings", "load_terminal_settings"]

BACKENDS = ("local", "docker", "ssh", "singularity", "modal", "daytona")
UNREADABLE_CONFIG = "(config.yaml unreadable)"
"""The backend when Hermes' config.yaml is there but could not be read and nothing else chose one: the
choice is in that file, so the session refuses to run tools rather than assume `local`."""
DEFAULT_IMAGE = "nikolaik/python-nodejs:python3.11-nodejs20"  # Hermes' default docker_image

# config key under `terminal:` -> its environment variable (Hermes' TERMINAL_CONFIG_ENV_MAP)
ENV_VARS: dict[str, str] = {
    "backend": "TERMINAL_ENV",
    "cwd": "TERMINAL_CWD",
    "docker_image": "TERMINAL_DOCKER_IMAGE",
    "docker_volumes": "TERMINAL_DOCKER_VOLUMES",
    "docker_env": "TERMINAL_DOCKER_ENV",
    "docker_forward_env": "TERMINAL_DOCKER_FORWARD_ENV",
    "docker_mount_cwd_to_workspace": "TERMINAL_DOCKER_MOUNT_CWD_TO_WORKSPACE",
    "docker_network": "TERMINAL_DOCKER_NETWORK",
    "docker_extra_args": "TERMINAL_DOCKER_EXTRA_ARGS",
    "docker_run_as_host_user": "TERMINAL_DOCKER_RUN_AS_HOST_USER",
    "container_cpu": "TERMINAL_CONTAINER_CPU",
    "container_memory": "TERMINAL_CONTAINER_MEMORY",
    "container_persistent": "TERMINAL_CONTAINER_PERSISTENT",
    "ssh_host": "TERMINAL_SSH_HOST",
    "ssh_user": "TERMINAL_SSH_USER",
    "ssh_port": "TERMINAL_SSH_PORT",
    "ssh_key": "TERMINAL_SSH_KEY",
    "persistent_shell": "TERMINAL_PERSISTENT_SHELL",
}
# Keys of Hermes' `terminal:` section this app reads elsewhere or knowingly leaves alone (no problem said).
_OTHER_KEYS = frozenset(
    {
        "timeout",  # Settings.terminal_timeout
        "keep_on_exit",  # ours, Settings.terminal_keep_on_exit
        "modal_mode",
        "lifetime_seconds",
        "daemon_term_grace_seconds",
        "home_mode",
        "shell_init_files",
        "auto_source_bashrc",
        "singularity_image",
        "modal_image",
        "daytona_image",
        "container_disk",
        "docker_persist_across_processes",
        "docker_orphan_reaper",
        "sandbox_dir",
    }
)
_TRUE = frozenset({"true", "1", "yes"})


class TerminalSettings(BaseModel):
    """Hermes' `terminal.*` keys that choose and shape the environment (defaults: Hermes')."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    backend: str = "local"
    # The working directory commands start in, in the environment. "" is the backend's default: the app's
    # directory (local), the remote home (ssh), /workspace when the cwd is mounted there, else /root (docker).
    cwd: str = ""
    docker_image: str = DEFAULT_IMAGE
    docker_volumes: list[str] = Field(default_factory=list)  # "host:container[:ro]", docker's -v syntax
    docker_env: dict[str, str] = Field(default_factory=dict)  # set in the container as written
    docker_forward_env: list[str] = Field(default_factory=list)  # names whose host values go in
    docker_mount_cwd_to_workspace: bool = False
    docker_network: bool = True  # false: --network=none
    docker_extra_args: list[str] = Field(default_factory=list)  # passed to `docker run` as they are
    docker_run_as_host_user: bool = False  # --user uid:gid, so files in mounted folders stay the user's
    container_cpu: float = Field(1.0, ge=0)  # --cpus (0: no limit)
    container_memory: int = Field(5120, ge=0)  # MB, --memory (0: no limit)
    container_persistent: bool = True  # kept (stopped) at the end and started again by the next session
    ssh_host: str = ""
    ssh_user: str = ""
    ssh_port: int = Field(22, ge=1, le=65535)
    ssh_key: str = ""
    persistent_shell: bool = True
    env_passthrough: list[str] = Field(default_factory=list)  # host variables given to every command

    @property
    def is_local(self) -> bool:
        return self.backend == "local"

    def label(self) -> str:
        """What the status bar and the reports call it: "" for local, `ssh user@host`, `docker image`."""
        if self.backend == "local":
            return ""
        if self.backend == "ssh":
            target = f"{self.ssh_user}@{self.ssh_host}" if self.ssh_user else self.ssh_host
            port = f":{self.ssh_port}" if self.ssh_port != 22 else ""
            return f"ssh {target or '(no host)'}{port}"
        if self.backend == "docker":
            return f"docker {self.docker_image}"
        return self.backend

    def describe(self) -> str:
        """One line for `hermes-tui config` and `doctor`."""
        if self.backend == "local":
            return "local (commands and files on this machine)"
        parts = [self.label()]
        if self.backend == "docker":
            if self.docker_mount_cwd_to_workspace:
                parts.append("cwd mounted at /workspace")
            if not self.docker_network:
                parts.append("no network")
            parts.append("persistent" if self.container_persistent else "removed at exit")
        if self.cwd:
            parts.append(f"cwd {self.cwd}")
        return ", ".join(parts)


def _parse(name: str, raw: str) -> Any:
    """A `TERMINAL_*` variable's text as its key's value (JSON for lists and mappings, Hermes' booleans)."""
    annotation = TerminalSettings.model_fields[name].annotation
    if annotation is bool:
        return raw.strip().lower() in _TRUE
    if annotation in (list[str], dict[str, str]):
        return json.loads(raw)
    return raw.strip()


def load_terminal_settings(
    section: Any, env: Mapping[str, str]
) -> tuple[TerminalSettings, list[tuple[str, str, str]], str]:
    """(settings, problems as (key, value, expected), source) from config.yaml's `terminal:` and the env."""
    values: dict[str, tuple[Any, str, str]] = {}  # name -> (value, where, key as written)
    problems: list[tuple[str, str, str]] = []
    if section is not None and not isinstance(section, dict):
        problems.append(("terminal", str(section)[:80], "a mapping of terminal settings"))
        section = None
    for name, var in ENV_VARS.items():
        raw = env.get(var)
        if raw is None or raw == "":
            continue
        try:
            values[name] = (_parse(name, raw), f"env {var}", var)
        except ValueError:
            problems.append((var, raw[:80], "valid JSON"))
    for key, value in (section or {}).items():
        name = str(key)
        if name in TerminalSettings.model_fields:
            values[name] = (value, "config.yaml", f"terminal.{name}")
        elif name not in _OTHER_KEYS:
            problems.append((f"terminal.{name}", str(value)[:80], "a known terminal setting"))
    settings = TerminalSettings()
    sources: list[str] = []
    for name, (value, where, key) in values.items():
        if name == "backend":
            # An unknown one is kept as written: the session refuses it with its own line (the factory's,
            # which `config` and `doctor` print too), rather than running on the host.
            value = str(value).strip().lower()
        elif name in ("docker_env",) and isinstance(value, dict):
            value = {str(k): str(v) for k, v in value.items()}
        elif name == "cwd" and value is not None:
            value = str(value)
        try:
            setattr(settings, name, value)
        except ValidationError as exc:
            message = exc.errors()[0].get("msg", "a valid value") if exc.errors() else "a valid value"
            problems.append((key, str(value)[:80], message))
            continue
        sources.append(where)
    return settings, problems, ", ".join(dict.fromkeys(sources)) or "default"

"""Hermes' `terminal.*` keys read as Hermes reads them: config.yaml's `terminal:` section over the
`TERMINAL_*` variables over Hermes' defaults; JSON lists and mappings and Hermes' booleans in variables; a
bad value is a problem and keeps the default; the local backend opens nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.config.settings import load_settings
from agent.config.terminal import DEFAULT_IMAGE, TerminalSettings, load_terminal_settings
from agent.environments.base import EnvironmentUnavailable
from agent.environments.factory import open_environment
from agent.environments.local import LocalEnvironment


def test_defaults_are_hermes() -> None:
    settings, problems, source = load_terminal_settings(None, {})
    assert (settings.backend, settings.docker_image, settings.container_persistent) == (
        "local",
        DEFAULT_IMAGE,
        True,
    )
    assert (settings.container_cpu, settings.container_memory, settings.docker_network) == (1.0, 5120, True)
    assert (settings.ssh_port, settings.persistent_shell, settings.docker_mount_cwd_to_workspace) == (
        22,
        True,
        False,
    )
    assert problems == [] and source == "default"
    assert settings.label() == ""


def test_config_wins_over_the_environment_which_counts_for_what_the_file_leaves_out() -> None:
    section = {"backend": "docker", "docker_image": "python:3.12", "docker_volumes": ["/a:/b"]}
    env = {
        "TERMINAL_ENV": "ssh",
        "TERMINAL_DOCKER_IMAGE": "ignored:1",
        "TERMINAL_DOCKER_FORWARD_ENV": '["GITHUB_TOKEN"]',
        "TERMINAL_DOCKER_ENV": '{"A": 1}',
        "TERMINAL_DOCKER_NETWORK": "no",
        "TERMINAL_CONTAINER_PERSISTENT": "1",
        "TERMINAL_CONTAINER_MEMORY": "1024",
        "TERMINAL_SSH_PORT": "2222",
    }
    settings, problems, source = load_terminal_settings(section, env)
    assert problems == []
    assert settings.backend == "docker" and settings.docker_image == "python:3.12"
    assert settings.docker_volumes == ["/a:/b"] and settings.docker_forward_env == ["GITHUB_TOKEN"]
    assert settings.docker_env == {"A": "1"} and settings.docker_network is False
    assert (
        settings.container_persistent is True
        and settings.container_memory == 1024
        and settings.ssh_port == 2222
    )
    assert "config.yaml" in source and "env TERMINAL_DOCKER_NETWORK" in source
    assert settings.label() == "docker python:3.12"


def test_bad_values_are_problems_and_keep_the_defaults() -> None:
    section = {"ssh_port": "many", "docker_volumes": "not-a-list", "made_up": 1, "timeout": 30}
    settings, problems, _ = load_terminal_settings(section, {"TERMINAL_DOCKER_EXTRA_ARGS": "[oops"})
    keys = sorted(p[0] for p in problems)
    assert keys == [
        "TERMINAL_DOCKER_EXTRA_ARGS",
        "terminal.docker_volumes",
        "terminal.made_up",
        "terminal.ssh_port",
    ]
    assert settings.ssh_port == 22 and settings.docker_volumes == [] and settings.docker_extra_args == []


def test_labels_for_the_status_bar() -> None:
    ssh = TerminalSettings(backend="ssh", ssh_host="box", ssh_user="me", ssh_port=2200)
    assert ssh.label() == "ssh me@box:2200"
    assert TerminalSettings(backend="ssh", ssh_host="box").label() == "ssh box"
    assert (
        "cwd mounted at /workspace"
        in TerminalSettings(backend="docker", docker_mount_cwd_to_workspace=True).describe()
    )


def test_settings_carry_it(hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (hermes_home / "config.yaml").write_text(
        "terminal:\n  backend: ssh\n  ssh_host: example.invalid\n  timeout: 42\n"
    )
    loaded = load_settings()
    assert (
        loaded.settings.terminal.backend == "ssh" and loaded.settings.terminal.ssh_host == "example.invalid"
    )
    assert loaded.settings.terminal_timeout == 42  # the key the terminal tool already read stays where it was
    assert loaded.sources["terminal"] == "config.yaml"
    assert not any("terminal" in p.key for p in loaded.problems)


def test_local_opens_nothing(hermes_home: Path, tmp_path: Path) -> None:
    loaded = load_settings({"cwd": tmp_path})
    environment = open_environment(loaded.settings)
    assert (
        isinstance(environment, LocalEnvironment) and environment.cwd == tmp_path and environment.label == ""
    )


@pytest.mark.parametrize("backend", ["singularity", "modal", "daytona", "kubernetes"])
def test_a_backend_without_support_is_refused(hermes_home: Path, backend: str) -> None:
    (hermes_home / "config.yaml").write_text(f"terminal:\n  backend: {backend}\n")
    with pytest.raises(EnvironmentUnavailable) as caught:
        open_environment(load_settings().settings)
    assert "\n" not in str(caught.value) and "`terminal.backend: local` on purpose" in str(caught.value)

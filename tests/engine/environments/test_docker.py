"""The docker backend with the container engine this machine has (podman here) and an image the test
builds (no registry is reachable): commands see the image's files, `/workspace` is the working directory
when it is mounted, the container is started once and gone (or stopped, when persistent) after close,
Esc stops a command in the container, a stopped container is one line and comes back."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.config.terminal import TerminalSettings
from agent.environments.base import EnvironmentUnavailable
from agent.environments.docker import DockerEnvironment
from agent.toolkit.registry import ToolContext
from agent.tools.files import ReadFileArgs, WriteFileArgs, read_file, write_file
from agent.tools.search_files import SearchFilesArgs, search_files
from agent.tools.terminal import TerminalArgs, run_terminal
from scripted import ScriptedServer
from tests.engine.helpers import make_agent, tool_results
from tests.environment_fixtures import ENGINE_ARGS, MARKER, build_image, container_engine, containers_named
from tests.waiting import wait_until

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("containers")]


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    engine = container_engine()
    return engine, build_image(engine, tmp_path_factory.mktemp("image"))


def _settings(image: str, **changes: object) -> TerminalSettings:
    values: dict[str, object] = {
        "backend": "docker",
        "docker_image": image,
        "docker_extra_args": ENGINE_ARGS,
        "container_persistent": False,
        **changes,
    }
    return TerminalSettings.model_validate(values)


@pytest.fixture
def container(image: tuple[str, str], tmp_path: Path) -> Iterator[DockerEnvironment]:
    environment = DockerEnvironment(
        _settings(image[1], docker_mount_cwd_to_workspace=True), host_cwd=tmp_path
    )
    environment.open()
    yield environment
    environment.close()


def _ctx(environment: DockerEnvironment, interrupt: threading.Event | None = None) -> ToolContext:
    return ToolContext(
        cwd=environment.cwd,
        session_id="s",
        call_id="c",
        interrupt=interrupt or threading.Event(),
        hermes_home=Path("/nonexistent"),
        environment=environment,
    )


def test_commands_see_the_image_and_write_into_the_mounted_cwd(
    container: DockerEnvironment, tmp_path: Path
) -> None:
    result = run_terminal(
        TerminalArgs(command=f"cat {MARKER}; pwd; echo from-container > made.txt"), _ctx(container)
    )
    assert result.status == "ok", result.content
    assert "made for the hermes-tui tests" in result.content  # the image's file, which the host lacks
    assert not Path(MARKER).exists()
    assert "/workspace" in result.content
    assert (tmp_path / "made.txt").read_text() == "from-container\n"  # /workspace is the working directory


def test_file_tools_work_in_the_container(container: DockerEnvironment, tmp_path: Path) -> None:
    ctx = _ctx(container)
    assert write_file(WriteFileArgs(path="notes/a.txt", content="one\ntwo\n"), ctx).status == "ok"
    assert (tmp_path / "notes" / "a.txt").read_text() == "one\ntwo\n"
    assert read_file(ReadFileArgs(path=MARKER), ctx).content == "     1|made for the hermes-tui tests"
    listing = read_file(ReadFileArgs(path="notes"), ctx)
    assert "notes is a directory" in listing.content and "a.txt" in listing.content
    (tmp_path / "notes" / "odd:name-1.txt").write_text("alpha\ntwo 22\nomega\n")
    search = search_files(SearchFilesArgs(pattern=r"two \d+", context=1), ctx)  # no ripgrep there: grep
    assert search.status == "ok" and search.data["backend"] == "grep", search.content
    assert "notes/odd:name-1.txt:2:two 22" in search.content
    assert "notes/odd:name-1.txt-1-alpha" in search.content  # a context line
    files = search_files(SearchFilesArgs(pattern="*.txt", target="files"), ctx)
    assert (
        files.content.splitlines()[1:] == ["made.txt", "notes/a.txt", "notes/odd:name-1.txt"]
        or "a.txt" in files.content
    )


def test_esc_stops_a_command_in_the_container(container: DockerEnvironment, image: tuple[str, str]) -> None:
    interrupt = threading.Event()
    done: list[object] = []
    args = TerminalArgs(command="(exec -a hermes-child sleep 300) & exec -a hermes-main sleep 301")
    thread = threading.Thread(target=lambda: done.append(run_terminal(args, _ctx(container, interrupt))))
    thread.start()

    def running() -> str:
        return subprocess.run(
            [image[0], "exec", container.name, "sh", "-c", "cat /proc/[0-9]*/cmdline | tr '\\0' ' '"],
            capture_output=True,
            text=True,
        ).stdout

    wait_until(lambda: "hermes-main" in running(), "the command to run in the container", timeout=20)
    interrupt.set()
    thread.join(timeout=20)
    assert done and "[Command interrupted by user]" in done[0].content  # type: ignore[attr-defined]
    left = running()
    assert "hermes-main" not in left and "hermes-child" not in left


def test_the_container_goes_at_close(image: tuple[str, str], tmp_path: Path) -> None:
    engine, name = image
    environment = DockerEnvironment(_settings(name), host_cwd=tmp_path)
    environment.open()
    assert containers_named(engine, environment.name)
    assert environment.cwd == Path("/root")  # Hermes' default without a mounted cwd
    environment.close()
    wait_until(
        lambda: not containers_named(engine, environment.name), "the container to be removed", timeout=30
    )


def test_a_persistent_container_is_stopped_and_started_again(image: tuple[str, str], tmp_path: Path) -> None:
    engine, name = image
    settings = _settings(name, container_persistent=True)
    first = DockerEnvironment(settings, host_cwd=tmp_path)
    first.open()
    try:
        assert run_terminal(TerminalArgs(command="echo kept > /root/kept.txt"), _ctx(first)).status == "ok"
    finally:
        first.close()
    assert containers_named(engine, first.name)  # kept
    wait_until(lambda: "Up" not in " ".join(containers_named(engine, first.name)), "the container to stop")
    second = DockerEnvironment(settings, host_cwd=tmp_path)
    try:
        second.open()
        assert second.name == first.name
        result = run_terminal(TerminalArgs(command="cat /root/kept.txt"), _ctx(second))
        assert "kept" in result.content
    finally:
        second.close()
        subprocess.run([engine, "rm", "-f", first.name], capture_output=True)


def test_settings_reach_docker_run(
    image: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HERMES_FORWARDED", "from-host")
    monkeypatch.setenv("HERMES_PASSED", "passed-too")
    volume = tmp_path / "vol"
    volume.mkdir()
    (volume / "in.txt").write_text("mounted\n")
    settings = _settings(
        image[1],
        docker_env={"HERMES_SET": "as-written"},
        docker_forward_env=["HERMES_FORWARDED"],
        env_passthrough=["HERMES_PASSED"],
        docker_volumes=[f"{volume}:/data:ro"],
        docker_network=False,
        container_cpu=0.5,
        container_memory=256,
        cwd="/data",
    )
    environment = DockerEnvironment(settings, host_cwd=tmp_path)
    argv = environment.run_argv()
    assert [a for a in argv if a.startswith("--network")] == ["--network=none"]
    assert argv[argv.index("--cpus") + 1] == "0.5" and argv[argv.index("--memory") + 1] == "256m"
    environment.open()
    try:
        command = (
            'echo "$HERMES_SET $HERMES_FORWARDED $HERMES_PASSED"; pwd; cat in.txt; cat /proc/net/dev | wc -l'
        )
        result = run_terminal(TerminalArgs(command=command), _ctx(environment))
    finally:
        environment.close()
    lines = result.content.splitlines()
    assert lines[0] == "as-written from-host passed-too"
    assert lines[1:3] == ["/data", "mounted"]
    assert lines[3] == "3"  # two header lines and `lo`: no network interface but loopback


def test_run_as_host_user(image: tuple[str, str], tmp_path: Path) -> None:
    environment = DockerEnvironment(_settings(image[1], docker_run_as_host_user=True), host_cwd=tmp_path)
    assert f"{os.getuid()}:{os.getgid()}" in environment.run_argv()


def test_a_missing_image_is_one_line(image: tuple[str, str], tmp_path: Path) -> None:
    settings = _settings(
        "localhost/hermes-tui-no-such-image:1", docker_extra_args=[*ENGINE_ARGS, "--pull", "never"]
    )
    environment = DockerEnvironment(settings, host_cwd=tmp_path)
    with pytest.raises(EnvironmentUnavailable) as caught:
        environment.open()
    environment.close()
    line = str(caught.value)
    assert "\n" not in line
    assert line.startswith("docker localhost/hermes-tui-no-such-image:1: the container did not start:")
    assert "terminal.backend: local" in line


def test_a_stopped_container_is_one_line_and_comes_back(
    container: DockerEnvironment, image: tuple[str, str]
) -> None:
    done: list[object] = []
    thread = threading.Thread(
        target=lambda: done.append(run_terminal(TerminalArgs(command="sleep 60"), _ctx(container)))
    )
    thread.start()
    wait_until(lambda: container._pidfiles, "the command to start")
    subprocess.run([image[0], "kill", container.name], capture_output=True, timeout=30)
    thread.join(timeout=30)
    content = done[0].content  # type: ignore[attr-defined]
    assert f"the container {container.name} stopped during the command" in content
    after = run_terminal(TerminalArgs(command=f"cat {MARKER}"), _ctx(container))
    assert after.status == "ok" and "made for the hermes-tui tests" in after.content


def test_a_session_with_backend_docker_runs_its_tools_there(
    image: tuple[str, str], hermes_home: Path, tmp_path: Path
) -> None:
    engine, name = image
    terminal = _settings(name, docker_mount_cwd_to_workspace=True)
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": f"cat {MARKER}; pwd"}, "id": "t1"}]},
        {"text": "done"},
    ]
    with ScriptedServer(json.dumps({"name": "docker", "calls": calls})) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, terminal=terminal)
        try:
            result = agent.run_conversation("where do you run?")
            requests = server.requests
            container_name = agent.environment.name  # type: ignore[attr-defined]
        finally:
            agent.close()
    assert result.exit_reason == "completed"
    output = tool_results(requests[1].body, "openai")[0][1]
    assert "made for the hermes-tui tests" in output and "/workspace" in output
    assert f"Commands and files: docker {name}" in requests[0].body["messages"][0]["content"]
    wait_until(
        lambda: not containers_named(engine, container_name), "no container after the session", timeout=30
    )

"""The ssh backend against a real sshd on 127.0.0.1 (started by the test, skipped when it cannot start):
commands run there (`$SSH_CONNECTION`), the file tools go through the same connection, Esc stops a long
remote command and its whole group there, the connection's end leaves no ssh process, a dropped connection
is one line and the next command reconnects."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.children.supervisor import SUPERVISOR
from agent.config.terminal import TerminalSettings
from agent.core.events import ToolFinished
from agent.environments.ssh import SshEnvironment
from agent.toolkit.registry import ToolContext, ToolResult
from agent.tools.files import ReadFileArgs, WriteFileArgs, read_file, write_file
from agent.tools.terminal import TerminalArgs, run_terminal
from scripted import ScriptedServer
from tests.engine.helpers import make_agent, tool_results
from tests.environment_fixtures import Sshd, processes_mentioning, start_sshd
from tests.waiting import wait_until

pytestmark = pytest.mark.slow


@pytest.fixture
def sshd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Sshd]:
    server = start_sshd(tmp_path / "sshd")
    monkeypatch.setenv("PATH", f"{server.bin_dir}{os.pathsep}{os.environ['PATH']}")
    yield server
    server.stop()


@pytest.fixture
def remote(sshd: Sshd, tmp_path: Path) -> Iterator[SshEnvironment]:
    environment = SshEnvironment(
        "127.0.0.1", user="root", port=sshd.port, key=str(sshd.key), cwd=str(tmp_path)
    )
    environment.open()
    yield environment
    environment.close()


def _ssh_processes_of(folder: Path) -> list[str]:
    """Live processes that use this environment's ControlPath (its master, its clients)."""
    return processes_mentioning(str(folder))


def _remote_sleepers(token: str) -> list[str]:
    """Processes (the sshd runs here: "remote" is this machine) named `token` (`exec -a token ...`)."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = (
                    Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                )
            except OSError:
                continue
            if cmdline.startswith(token + " "):
                found.append(f"{pid}: {cmdline}")
    return found


def _ctx(environment: SshEnvironment, cwd: Path, interrupt: threading.Event | None = None) -> ToolContext:
    return ToolContext(
        cwd=cwd,
        session_id="s",
        call_id="c",
        interrupt=interrupt or threading.Event(),
        hermes_home=cwd,
        environment=environment,
    )


def test_a_command_runs_over_ssh(remote: SshEnvironment, tmp_path: Path) -> None:
    result = run_terminal(TerminalArgs(command='echo "conn=$SSH_CONNECTION"; pwd'), _ctx(remote, remote.cwd))
    assert result.status == "ok", result.content
    assert "conn=127.0.0.1 " in result.content  # sshd set it: the command ran in an ssh session
    assert str(tmp_path) in result.content  # terminal.cwd there
    assert remote.label == f"ssh root@127.0.0.1:{remote.port}"


def test_write_and_read_file_go_through_the_connection(remote: SshEnvironment, tmp_path: Path) -> None:
    ctx = _ctx(remote, remote.cwd)
    written = write_file(WriteFileArgs(path="deep/new.txt", content="over ssh\n"), ctx)
    assert written.status == "ok", written.content
    assert (tmp_path / "deep" / "new.txt").read_text() == "over ssh\n"  # sshd's host is this machine
    (tmp_path / "deep" / "new.txt").chmod(0o640)
    again = write_file(WriteFileArgs(path="deep/new.txt", content="changed\n"), ctx)
    assert again.status == "ok" and "+changed" in again.content
    assert oct((tmp_path / "deep" / "new.txt").stat().st_mode & 0o777) == oct(0o640)  # the mode is kept
    read = read_file(ReadFileArgs(path="deep/new.txt"), ctx)
    assert read.content == "     1|changed"
    missing = read_file(ReadFileArgs(path="deep/nope.txt"), ctx)
    assert missing.status == "error" and "File not found: deep/nope.txt" in missing.content


def test_esc_stops_a_long_remote_command_and_its_group(remote: SshEnvironment) -> None:
    interrupt = threading.Event()
    token, child = f"hermes-esc-{os.getpid()}", f"hermes-esc-child-{os.getpid()}"
    done: list[object] = []
    command = f"(exec -a {child} sleep 300) & exec -a {token} sleep 301"
    thread = threading.Thread(
        target=lambda: done.append(
            run_terminal(TerminalArgs(command=command), _ctx(remote, remote.cwd, interrupt))
        )
    )
    thread.start()
    wait_until(lambda: len(_remote_sleepers(token)) == 1, "the remote command to run", timeout=15)
    interrupt.set()
    thread.join(timeout=15)
    assert done and "[Command interrupted by user]" in done[0].content  # type: ignore[attr-defined]
    assert _remote_sleepers(token) == []
    assert _remote_sleepers(child) == []  # what it started in its group went too


def test_close_leaves_no_ssh_process(sshd: Sshd, tmp_path: Path) -> None:
    environment = SshEnvironment("127.0.0.1", user="root", port=sshd.port, key=str(sshd.key))
    environment.open()
    folder = environment.socket.parent
    assert _ssh_processes_of(folder), "the ControlMaster runs while the session does"
    assert any(
        str(folder) in child.label or "ssh connection" in child.label for child in SUPERVISOR.children()
    )
    environment.close()
    wait_until(
        lambda: not _ssh_processes_of(folder),
        "the ssh processes to end",
        seen=lambda: _ssh_processes_of(folder),
    )
    assert not folder.exists()


def test_a_dropped_connection_is_one_line_and_the_next_command_reconnects(
    remote: SshEnvironment, tmp_path: Path
) -> None:
    interrupt = threading.Event()
    done: list[object] = []
    token = f"hermes-drop-{os.getpid()}"
    command = TerminalArgs(command=f"exec -a {token} sleep 30")
    thread = threading.Thread(
        target=lambda: done.append(run_terminal(command, _ctx(remote, remote.cwd, interrupt)))
    )
    thread.start()
    wait_until(lambda: len(_remote_sleepers(token)) == 1, "the remote command to run", timeout=15)
    master = remote._master
    assert master is not None
    master.kill()  # the connection dies under the command
    thread.join(timeout=30)
    content = done[0].content  # type: ignore[attr-defined]
    assert "the ssh connection to root@127.0.0.1" in content and "the next command reconnects" in content
    after = run_terminal(TerminalArgs(command="echo again=$SSH_CONNECTION"), _ctx(remote, remote.cwd))
    assert after.status == "ok" and "again=127.0.0.1" in after.content
    remote.close()  # what the lost command left there is stopped with the session
    wait_until(lambda: not _remote_sleepers(token), "the orphaned remote command to be stopped")


def test_unreachable_host_is_one_line(tmp_path: Path) -> None:
    from agent.environments.base import EnvironmentUnavailable

    environment = SshEnvironment("127.0.0.1", user="root", port=1)  # nothing listens on port 1
    with pytest.raises(EnvironmentUnavailable) as caught:
        environment.open()
    environment.close()
    line = str(caught.value)
    assert "\n" not in line
    assert line.startswith("ssh root@127.0.0.1:1: cannot connect:")
    assert "terminal.backend: local" in line


def test_a_session_with_backend_ssh_runs_its_tools_there(
    sshd: Sshd, hermes_home: Path, tmp_path: Path
) -> None:
    terminal = TerminalSettings(
        backend="ssh", ssh_host="127.0.0.1", ssh_user="root", ssh_port=sshd.port, ssh_key=str(sshd.key),
        cwd=str(tmp_path),
    )  # fmt: skip
    calls = [
        {
            "tool_calls": [
                {"name": "terminal", "arguments": {"command": "echo via=$SSH_CONNECTION"}, "id": "t1"}
            ]
        },
        {"text": "done"},
    ]
    with ScriptedServer(json.dumps({"name": "ssh", "calls": calls})) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path, terminal=terminal)
        try:
            result = agent.run_conversation("where do you run?")
            requests = server.requests
            folder = agent.environment.socket.parent  # type: ignore[attr-defined]
        finally:
            agent.close()
    assert result.exit_reason == "completed"
    assert "via=127.0.0.1" in tool_results(requests[1].body, "openai")[0][1]
    system = requests[0].body["messages"][0]["content"]
    assert f"Commands and files: ssh root@127.0.0.1:{sshd.port}" in system
    assert [e.status for e in ui.of_type(ToolFinished)] == ["ok"]
    wait_until(
        lambda: not _ssh_processes_of(folder),
        "no ssh process after close",
        seen=lambda: _ssh_processes_of(folder),
    )


def test_background_processes_run_there_and_are_killed_there(remote: SshEnvironment) -> None:
    from agent.tools.processes import ProcessArgs, ProcessRegistry, run_process

    ctx = _ctx(remote, remote.cwd)
    ctx.state.processes = ProcessRegistry()
    token = f"hermes-bg-{os.getpid()}"
    started = run_terminal(
        TerminalArgs(command=f'echo "bg=$SSH_CONNECTION"; exec -a {token} sleep 300', background=True), ctx
    )
    assert "Started background process proc_1" in started.content, started.content
    wait_until(lambda: _remote_sleepers(token), "the background command to run there", timeout=15)

    def polled_with_output() -> ToolResult | None:
        # Its echo ran before the exec, but its line still crosses the ssh connection to the output reader.
        # (The poll shows the command too, whose text has `bg=` in it: the echoed address is what counts.)
        polled = run_process(ProcessArgs(action="poll", id="proc_1"), ctx)
        return polled if "bg=127.0.0.1" in polled.content else None

    polled = wait_until(polled_with_output, "its output polled", timeout=15)
    assert "bg=127.0.0.1" in polled.content and "running" in polled.content
    killed = run_process(ProcessArgs(action="kill", id="proc_1"), ctx)
    assert "Killed proc_1" in killed.content
    wait_until(lambda: not _remote_sleepers(token), "the background command stopped there", timeout=10)


def test_folders_left_by_a_killed_app_are_swept(tmp_path: Path) -> None:
    """After a kill -9 the reaper ends the master (its socket goes with it) but leaves its empty folder:
    the next session removes such folders, never one that holds a live socket."""
    stale = Path(f"/tmp/hermes-ssh-test-stale-{os.getpid()}")
    live = Path(f"/tmp/hermes-ssh-test-live-{os.getpid()}")
    for folder in (stale, live):
        folder.mkdir()
        os.utime(folder, (1_000_000_000, 1_000_000_000))
    (live / "cm").write_text("")  # stands for a live session's socket
    os.utime(live, (1_000_000_000, 1_000_000_000))
    try:
        environment = SshEnvironment("127.0.0.1", port=1)
        environment.close()
        assert not stale.exists()
        assert live.exists()
    finally:
        (live / "cm").unlink()
        live.rmdir()
        if stale.exists():
            stale.rmdir()

"""The OS sandbox (`agent.environments.sandbox`) with the real bubblewrap: what a command may write, the
network it does not have, the Unix sockets it cannot reach, the capabilities it does not keep, the check at
start and the line a failure it caused gets. Skipped, with the reason, where bwrap cannot start."""

from __future__ import annotations

import http.server
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.environments import sandbox as sandbox_module
from agent.environments.sandbox import (
    Sandbox,
    SandboxMode,
    SandboxUnavailable,
    failure_note,
    normalize_mode,
    require,
    unix_socket_filter,
)
from tests.waiting import wait_until


def _bwrap_problem() -> str:
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed"
    done = subprocess.run(
        ["bwrap", "--unshare-all", "--ro-bind", "/", "/", "--dev", "/dev", "--", "true"],
        capture_output=True,
        text=True,
        check=False,
    )
    return "" if done.returncode == 0 else f"bwrap cannot start here: {done.stderr.strip()[:200]}"


BWRAP_PROBLEM = _bwrap_problem()
needs_bwrap = pytest.mark.skipif(bool(BWRAP_PROBLEM), reason=BWRAP_PROBLEM or "bwrap works")


def run_in(box: Sandbox, script: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    with box.launch(["bash", "-c", script], cwd or box.workspace) as (argv, fds):
        return subprocess.run(argv, capture_output=True, text=True, pass_fds=fds, timeout=60, check=False)


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    """A directory outside both the workspace and the temp dir (the test's tmp_path is under /tmp, so a
    folder in the user's home stands for "the rest of the machine")."""
    home = Path.home() / f".hermes-sandbox-test-{os.getpid()}-{threading.get_ident()}"
    home.mkdir()
    try:
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def temp_elsewhere(tmp_path: Path) -> Path:
    """A temp dir of its own (not containing the workspace) so "writable temp" is tested apart from it."""
    t = tmp_path / "systemp"
    t.mkdir()
    return t


@pytest.fixture
def loopback_server() -> Iterator[int]:
    """An HTTP server on the host's 127.0.0.1 (a free port): the sandbox's own loopback is not it."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_mode_spellings() -> None:
    assert normalize_mode(False) == "off"
    assert normalize_mode("Workspace_Write") == "workspace-write"
    assert normalize_mode("readonly") == "read-only"
    assert normalize_mode("bogus") == "bogus"


def test_off_is_no_sandbox_and_no_probe(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def no_probe(box: Sandbox) -> str:
        raise AssertionError("off must not start bwrap")

    monkeypatch.setattr(sandbox_module, "_probe", no_probe)
    assert require("off", tmp_path) is None


def test_unknown_mode_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(SandboxUnavailable) as err:
        require("workspace", tmp_path)
    assert "off, read-only, workspace-write" in str(err.value) and "\n" not in str(err.value)


def test_missing_bwrap_is_one_line_naming_the_fix(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sandbox_module, "BWRAP", "hermes-test-no-such-bwrap")
    monkeypatch.setattr(sandbox_module, "BWRAP_PLACES", ())
    with pytest.raises(SandboxUnavailable) as err:
        require("workspace-write", tmp_path)
    line = str(err.value)
    assert "bubblewrap" in line and "apt install bubblewrap" in line and "--sandbox off" in line
    assert "\n" not in line


def test_bwrap_that_cannot_start_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A bwrap that fails (here: a program that exits 1 with a message, standing in for a kernel without
    user namespaces) stops the session with what it said."""
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sandbox_module.shutil, "which", lambda name: str(fake))
    with pytest.raises(SandboxUnavailable) as err:
        require("read-only", tmp_path)
    assert "No permissions to creating new namespace" in str(err.value)
    assert "--sandbox off" in str(err.value)


def test_writable_roots_and_allows_write(workspace: Path, temp_elsewhere: Path, outside: Path) -> None:
    box = Sandbox(SandboxMode.WORKSPACE_WRITE, workspace, temp=temp_elsewhere)
    assert box.allows_write("in.txt") and box.allows_write(workspace / "a" / "b")
    assert box.allows_write(temp_elsewhere / "x") and box.allows_write("/dev/null")
    assert not box.allows_write(outside / "x") and not box.allows_write("../elsewhere")
    (workspace / "link").symlink_to(outside)
    assert not box.allows_write("link/x")  # a link out of the workspace leads out of it
    ro = Sandbox(SandboxMode.READ_ONLY, workspace, temp=temp_elsewhere)
    assert ro.writable_roots == () and not ro.allows_write("in.txt")


def test_filter_program_shapes() -> None:
    for machine in ("x86_64", "aarch64"):
        program = unix_socket_filter(machine)
        assert program is not None and len(program) % 8 == 0
    assert unix_socket_filter("sparc64") is None


@needs_bwrap
def test_workspace_write_writes_only_inside(workspace: Path, temp_elsewhere: Path, outside: Path) -> None:
    box = require("workspace-write", workspace)
    assert box is not None
    box = Sandbox(box.mode, workspace, temp=temp_elsewhere, bwrap=box.bwrap)
    done = run_in(box, f"echo x > in.txt && echo t > {temp_elsewhere}/t.txt && touch {outside}/outside")
    assert (workspace / "in.txt").read_text() == "x\n"
    assert (temp_elsewhere / "t.txt").read_text() == "t\n"
    assert done.returncode != 0 and not (outside / "outside").exists()
    assert "Read-only file system" in done.stderr
    note = failure_note(done.stderr, box)
    assert "sandbox workspace-write" in note and str(workspace) in note


@needs_bwrap
def test_read_only_refuses_every_write(workspace: Path) -> None:
    box = require("read-only", workspace)
    assert box is not None
    done = run_in(box, "echo x > in.txt")
    assert done.returncode != 0 and not (workspace / "in.txt").exists()
    assert "nothing is writable" in failure_note(done.stderr, box)


@needs_bwrap
def test_no_capabilities_left_to_remount(workspace: Path, outside: Path) -> None:
    """As root, bwrap keeps every capability unless told not to: `mount -o remount,rw /` would undo the
    read-only root."""
    box = require("workspace-write", workspace)
    assert box is not None
    script = f"grep CapEff /proc/self/status; mount -o remount,rw / ; touch {outside}/after-remount"
    done = run_in(box, script)
    assert "CapEff:\t0000000000000000" in done.stdout
    assert not (outside / "after-remount").exists()


@needs_bwrap
def test_no_network_not_even_the_hosts_loopback(workspace: Path, loopback_server: int) -> None:
    box = require("workspace-write", workspace)
    assert box is not None
    fetch = (
        "python3 -c 'import urllib.request as u; "
        f'print(u.urlopen("http://127.0.0.1:{loopback_server}/", timeout=5).status)\''
    )
    done = run_in(box, fetch)
    assert done.returncode != 0 and "200" not in done.stdout
    assert "no network" in failure_note(done.stderr, box)
    allowed = require("workspace-write", workspace, network=True)
    assert allowed is not None and allowed.label == "sandbox workspace-write +net"
    assert run_in(allowed, fetch).stdout.strip() == "200"


@needs_bwrap
def test_unix_sockets_are_refused(workspace: Path, outside: Path) -> None:
    """A read-only mount does not stop connect(): the filter does (the daemon behind a socket, Docker's or
    the user's tmux server, would act outside the sandbox)."""
    path = outside / "daemon.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(1)
    try:
        box = require("workspace-write", workspace)
        assert box is not None
        script = (
            "import socket\n"
            "a, b = socket.socketpair(); a.send(b'p'); print('pair', b.recv(1))\n"
            f"c = socket.socket(socket.AF_UNIX); c.connect({str(path)!r}); print('CONNECTED')\n"
        )
        done = run_in(box, f"python3 -c {_quote(script)}")
        assert "pair b'p'" in done.stdout and "CONNECTED" not in done.stdout
        assert "Operation not permitted" in done.stderr
    finally:
        server.close()


@needs_bwrap
def test_host_processes_are_invisible(workspace: Path) -> None:
    box = require("read-only", workspace)
    assert box is not None
    done = run_in(box, f"kill -0 {os.getpid()} && echo SEEN || echo hidden")
    assert done.stdout.strip() == "hidden"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


@needs_bwrap
def test_stopping_a_sandboxed_command_stops_all_of_it(workspace: Path) -> None:
    """Esc (the environment's `stop`) ends what the command started inside the sandbox too: bwrap leads the
    process group, and what runs inside stays in it."""
    from agent.environments.local import LocalEnvironment

    box = require("workspace-write", workspace)
    assert box is not None
    env = LocalEnvironment(workspace, sandbox=box)
    marker = f"h42b-sandbox-{os.getpid()}"
    proc = env.spawn(
        f"(sleep 300; echo {marker}) & sleep 300",
        cwd=workspace,
        label="test",
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    try:
        wait_until(lambda: _running(marker), "the sandboxed sleeps")
    finally:
        env.stop([proc], 2.0)
    wait_until(lambda: not _running(marker), "nothing of the command left")
    env.finished(proc, "test")


def _running(marker: str) -> bool:
    """Whether a process whose command line holds `marker` is alive (zombies do not count)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z" and "pytest" not in cmdline:
            return True
    return False


@needs_bwrap
def test_a_background_process_outlives_the_thread_that_started_it(workspace: Path) -> None:
    """bwrap's --die-with-parent follows the thread that forked it: a background process started by a
    tool call's worker thread must not die when that thread ends."""
    from agent.environments.local import LocalEnvironment

    box = require("workspace-write", workspace)
    assert box is not None
    env = LocalEnvironment(workspace, sandbox=box)
    started: list[subprocess.Popen[bytes]] = []

    def start() -> None:
        started.append(
            env.spawn(
                "sleep 1; echo survived > bg.txt; sleep 300",
                cwd=workspace,
                label="test background",
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
            )
        )

    worker = threading.Thread(target=start)
    worker.start()
    worker.join()
    try:
        wait_until(lambda: (workspace / "bg.txt").exists() or started[0].poll() is not None, "bg.txt")
        assert started[0].poll() is None and (workspace / "bg.txt").read_text() == "survived\n"
    finally:
        env.stop(started, 2.0)
        env.finished(started[0], "test")

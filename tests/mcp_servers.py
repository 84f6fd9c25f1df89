"""The MCP fixture server (`mcp_fixture_server.py`) as the tests reach it: a stdio entry the client starts
itself, or one server on streamable HTTP that a worker's tests share.

Each start of the fixture server costs most of a second of CPU (`import mcp`), and most MCP tests check the
client (tool naming, results, sampling, elicitation, media, approvals, the screens), not the server's life.
Those take `mcp_http`: the URL of one fixture server on 127.0.0.1 per xdist worker (per run with `-n 0`),
started the first time a test asks for it and stopped when the worker ends. Each test still has its own
`McpManager` (so its own MCP session on that server), its own app and HERMES_HOME; only the process is
shared. Its tools keep nothing between calls but the process itself, so a test on the shared server never
calls `crash` (it would end the server) nor reads `pid` (it is every test's): a test about the process
(spawn, exit, crash, kill, restart, a `hang` it must survive, noise on stdout, stderr, reload, "no server
outlives the app", `hermes-tui mcp`) starts its own on stdio with `stdio_entry`, as users configure theirs.

A shared server that dies fails the test that was running (its exit code and the end of its stderr), and
the next test gets a fresh one. It also ends by itself when the worker that started it does (its stdin
closes: `--until-stdin-closes`), so a worker killed before its teardown leaves no server behind.

Loaded by every worker as a plugin (`tests/conftest.py`): it imports nothing heavy.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.waiting import wait_until

FIXTURE = Path(__file__).resolve().parent / "mcp_fixture_server.py"

READY = 60.0
"""Seconds a fixture server (or a manager's connections) may take to come up on a loaded machine: reached
only when something is broken."""

STDERR_TAIL = 2000
"""How much of a dead server's stderr its failure shows (characters, from the end)."""


def stdio_entry(**extra: object) -> dict:
    """An `mcp_servers` entry that starts the fixture server on stdio: a process of the entry's own."""
    return {"command": sys.executable, "args": [str(FIXTURE), "stdio"], **extra}


def http_entry(url: str, **extra: object) -> dict:
    """An `mcp_servers` entry for a fixture server on streamable HTTP (`mcp_http`'s URL)."""
    return {"url": url, **extra}


class FixtureServer:
    """One fixture server on HTTP (`http`: streamable HTTP, at /mcp; `sse`: the older HTTP+SSE, at /sse) on
    127.0.0.1 and a port the OS chose. Its stdout and stderr go to files in `workdir`: the port is read from
    the one, the other is what its failure says."""

    def __init__(self, workdir: Path, transport: str = "http", *args: str, script: Path = FIXTURE) -> None:
        self.transport = transport
        self.args = args
        self.script = script
        self.stdout = workdir / "stdout.txt"
        self.stderr = workdir / "stderr.txt"
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/{'sse' if self.transport == 'sse' else 'mcp'}"

    def start(self) -> FixtureServer:
        """Start it and wait (at most READY) until it listens; else AssertionError with its stderr."""
        with self.stdout.open("wb") as out, self.stderr.open("wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, str(self.script), self.transport, *self.args, *self._until_stdin_closes()],
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=err,
            )
        try:
            self.port = wait_until(
                self._port,
                f"the MCP fixture server ({self.transport}) to listen",
                timeout=READY,
                seen=self._stderr_tail,
            )
        except BaseException:
            self.stop()
            raise
        return self

    def _until_stdin_closes(self) -> tuple[str, ...]:
        """The fixture server's flag to end with its test process; a test's own script is stopped by it."""
        return ("--until-stdin-closes",) if self.script == FIXTURE else ()

    def _port(self) -> int:
        """The port from its whole `PORT <n>` line, 0 before it; AssertionError if it exited first."""
        for line in self.stdout.read_text(errors="replace").split("\n")[:-1]:  # whole lines only
            if line.startswith("PORT "):
                return int(line.split()[1])
        if not self.alive():
            raise AssertionError(self.death("before it listened"))
        return 0

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _stderr_tail(self) -> str:
        try:
            stderr = self.stderr.read_text(errors="replace")
        except OSError as exc:
            return f"(its stderr is unreadable: {exc})"
        return f"the end of its stderr:\n{stderr[-STDERR_TAIL:]}"

    def death(self, when: str) -> str:
        """What a test says of the server's end."""
        proc = self.proc
        assert proc is not None
        said = f"the MCP fixture server ({self.transport}, pid {proc.pid}) exited with {proc.returncode}"
        return f"{said} {when}; {self._stderr_tail()}"

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        proc.kill()
        proc.wait(10)
        if proc.stdin is not None:
            proc.stdin.close()


@contextlib.contextmanager
def fixture_server(
    workdir: Path, transport: str = "http", *args: str, script: Path = FIXTURE
) -> Iterator[FixtureServer]:
    """A fixture server of a test's own (a configuration no other test shares, e.g. `sse`), or a server
    script of its own that serves the same way (`_serve_http`: a `PORT n` line once it listens)."""
    server = FixtureServer(workdir, transport, *args, script=script).start()
    try:
        yield server
    finally:
        server.stop()


class SharedServer:
    """The worker's fixture server on streamable HTTP: started when a test first asks, again after a death."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.server: FixtureServer | None = None
        self.starts = 0

    def running(self) -> FixtureServer:
        if self.server is None or not self.server.alive():
            if self.server is not None:
                self.server.stop()
            self.starts += 1
            workdir = self.root / f"start-{self.starts}"
            workdir.mkdir()
            self.server = FixtureServer(workdir, "http").start()
        return self.server

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()


@pytest.fixture(scope="session")
def _shared_mcp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServer]:
    shared = SharedServer(tmp_path_factory.mktemp("mcp_shared"))
    try:
        yield shared
    finally:
        shared.stop()


@pytest.fixture
def mcp_http(_shared_mcp_server: SharedServer) -> Iterator[str]:
    """The URL of the worker's shared fixture server on streamable HTTP (started if it is not running). A
    server that died during the test fails it, saying how; the next test gets a fresh one."""
    server = _shared_mcp_server.running()
    yield server.url
    if not server.alive():
        pytest.fail(server.death("during this test"), pytrace=False)

"""`hermes-tui` run as a command (`python -m hermes_tui.cli ARGS`) for tests about what the command does:
its output, its exit code, what it leaves in the home. `run_cli` answers as `subprocess.run` would.

Each such run used to start an interpreter that imported the OpenAI SDK and the engine again, about a
second of CPU before the command did anything, over a hundred times a suite run. Here each xdist worker
keeps one warm process (`serve`, started at the first run) that has imported them once, and every run is
a child forked from it that becomes the command: its own pid, working directory, environment, argv and
stdin/stdout/stderr pipes, `hermes_tui.cli` run as `__main__` exactly as `python -m` runs it, and an
ordinary interpreter exit (threads joined, `atexit`, streams flushed) whose status the caller gets.

`spawn_cli` starts one that runs alongside the test, on pipes the caller holds, and tells its exit status
when it ends: `hermes-tui acp` for the ACP tests (`tests/acp/agent_process.py`), each of which imported the
ACP SDK, the OpenAI SDK and the engine again, ~1.5 s of CPU before it answered `initialize`.

A test about the process's start (what it prints while it starts, how long its imports take, a terminal on
its stdin) starts a real one with `subprocess`: nothing here is for those.
"""

from __future__ import annotations

import asyncio
import importlib
import io
import json
import os
import pkgutil
import runpy
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

__all__ = [
    "Spawned",
    "accept_request",
    "panes_socket",
    "receive",
    "run_cli",
    "send",
    "spawn_cli",
    "standard_stream",
]

ROOT = Path(__file__).resolve().parents[1]
PRELOAD = (
    "openai",
    "openai.resources.chat",
    "openai.resources.chat.chat",  # what the client's `chat` property imports on first use
    "openai.resources.chat.completions",
    "openai.resources.responses",
    "openai.lib.streaming.chat",
    "httpx",
    "httpcore2",
    "h11",
    "anyio",
    "truststore",
    "jiter",
    "yaml",
    "encodings.idna",
    "hermes_tui.cli",
    "hermes_tui.headless",
    "hermes_tui.piped_input",
    "scripted",
)
"""What the warm process imports once, with every module of the engine (`agent`): what a `-z` run on the
OpenAI SDK imports (the Anthropic SDK is left to the runs that use it, and Textual to the TUI)."""
PANE_PACKAGES = ("hermes_tui", "widgets", "themes")
"""What a pane's app imports besides the engine, once: every module of the app, its widgets and themes."""
_HEADER = struct.Struct("!I")
_SITE_PATH: list[str] = []
"""The warm process's import path without this project's root (each child's path starts as `-m` starts it)."""
_MAX_FDS = 4


def send(sock: socket.socket, message: dict[str, object], fds: Sequence[int] = ()) -> None:
    body = json.dumps(message).encode()
    socket.send_fds(sock, [_HEADER.pack(len(body)) + body], list(fds))


def receive(sock: socket.socket) -> tuple[dict[str, object] | None, list[int]]:
    """One message and the descriptors sent with it (read to its exact length: the next may follow at
    once); None when the other end is gone."""
    data, fds, _flags, _address = socket.recv_fds(sock, _HEADER.size, _MAX_FDS)
    data = data + _exactly(sock, _HEADER.size - len(data)) if data else data
    if len(data) < _HEADER.size:
        return None, fds
    (size,) = _HEADER.unpack(data)
    body = _exactly(sock, size)
    return (json.loads(body) if len(body) == size else None), fds


def accept_request(listener: socket.socket) -> tuple[socket.socket, dict[str, object], list[int]] | None:
    """The next connection on `listener` with its request and descriptors; None (all of it closed) when
    the caller went away before saying anything."""
    connection, _ = listener.accept()
    request, fds = receive(connection)
    if request is None:
        connection.close()
        for descriptor in fds:
            os.close(descriptor)
        return None
    return connection, request, fds


def _exactly(sock: socket.socket, size: int) -> bytes:
    """`size` bytes, or fewer if the other end closes first."""
    data = b""
    while len(data) < size:
        more = sock.recv(size - len(data))
        if not more:
            break
        data += more
    return data


# ------------------------------------------------------------------------------------- the warm process


def serve(fd: int, panes_fd: int) -> None:
    """The warm process: import, then fork a child per request until the worker is gone: a `run_cli` child
    waited for before the next request, a `spawn_cli` child left running (a thread tells its end), and a
    terminal pane's app (`tests/e2e/pane_app.py`, connecting on the socket listening on `panes_fd`)
    likewise. Returns only in a child, which then becomes the command (`_become`)."""
    _import(PRELOAD, ("agent",))
    _warm_caches()
    global _SITE_PATH
    _SITE_PATH = [entry for entry in sys.path if Path(entry or ".").resolve() != ROOT]
    sock = socket.socket(fileno=fd)
    panes = socket.socket(fileno=panes_fd)
    selector = selectors.DefaultSelector()
    selector.register(sock, selectors.EVENT_READ)
    selector.register(panes, selectors.EVENT_READ)
    while True:
        for key, _ in selector.select():
            if key.fileobj is panes:
                accepted = accept_request(panes)
                if accepted is None:
                    continue
                connection, request, fds = accepted
                # A pane's app: in a session of its own, as the pane's program is; the connection it came
                # on tells the pane's program the pid, then the exit status.
                _import((), PANE_PACKAGES)
                request = {**request, "spawn": True, "session": True}
                reply, status = connection, connection
            else:
                request, fds = receive(sock)
                if request is None:
                    path = Path(panes.getsockname())
                    path.unlink()
                    path.parent.rmdir()
                    sys.exit(0)
                reply = sock
                status = socket.socket(fileno=fds.pop()) if request.get("spawn") else None
            if _fork(request, fds, reply, status, (selector, sock, panes)):
                return


def _import(modules: Sequence[str], packages: Sequence[str]) -> None:
    """Import `modules`, and every module of `packages` (walked once; an imported module costs a lookup)."""
    names = list(modules)
    for package in packages:
        if package not in _walked:
            _walked.add(package)
            root = importlib.import_module(package)
            names += [info.name for info in pkgutil.walk_packages(root.__path__, f"{package}.")]
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:  # a module another SDK version does not have: the child imports what it needs
            pass


_walked: set[str] = set()


def _warm_caches() -> None:
    """Make what every run would otherwise make for itself after the fork, and the engine keeps for the
    process: the TLS context its SDK clients share (`agent.core.tls`: the CA bundle read, ~30 ms) and the
    built-in tools' argument schemas (`agent.toolkit.registry`, ~40 ms). A run whose environment names a
    CA store of its own gets a context of its own (`_become`)."""
    import openai

    from agent.core.tls import sdk_http_client
    from agent.session.catalogue import builtin_tools
    from agent.toolkit.registry import warm_schemas

    sdk_http_client(openai).close()
    warm_schemas(builtin_tools())


CA_STORE = ("SSL_CERT_FILE", "SSL_CERT_DIR")
"""The environment that decides the TLS context's trust (the SDKs' HTTP library reads it)."""


def _fork(
    request: Mapping[str, object],
    fds: list[int],
    reply: socket.socket,
    status: socket.socket | None,
    ours: tuple[selectors.BaseSelector, socket.socket, socket.socket],
) -> bool:
    """Fork the request's run on `fds` and tell its pid on `reply`; its exit status goes on `status` when it
    ends (a thread), or on `reply` once it ended when there is no `status` (`run_cli`). True in the child."""
    preload = request.get("preload", [])
    assert isinstance(preload, list)
    for name in preload:  # what a kind of run needs besides the engine, once
        importlib.import_module(str(name))
    pid = os.fork()
    if pid == 0:
        for held in (*ours, status):
            if held is not None:
                held.close()
        _become(request, fds)
        return True
    for descriptor in fds:
        os.close(descriptor)
    send(reply, {"pid": pid})
    if status is None:
        send(reply, {"returncode": _wait(pid)})
    else:
        threading.Thread(target=_tell_end, args=(pid, status), daemon=True).start()
    return False


def _wait(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _tell_end(pid: int, status: socket.socket) -> None:
    """A spawned run's exit status, on its own socket, when it ends (others are served meanwhile)."""
    with status:
        send(status, {"returncode": _wait(pid)})


def _become(request: Mapping[str, object], fds: Sequence[int]) -> None:
    """This child is now `python -m hermes_tui.cli ARGS` in the request's directory, environment and
    pipes, with the standard streams a fresh interpreter makes for them."""
    for target, descriptor in enumerate(fds):
        os.dup2(descriptor, target)
        os.close(descriptor)
    cwd, env, args = request["cwd"], request["env"], request["args"]
    assert isinstance(cwd, str) and isinstance(env, dict) and isinstance(args, list)
    if request.get("session"):
        os.setsid()
    os.chdir(cwd)
    if any(env.get(name) != os.environ.get(name) for name in CA_STORE):
        importlib.import_module("agent.core.tls")._CONTEXTS.clear()  # made for the warm process's trust
    os.environ.clear()
    os.environ.update(env)
    sys.stdin = sys.__stdin__ = standard_stream(0, "r", sys.__stdin__)
    sys.stdout = sys.__stdout__ = standard_stream(1, "w", sys.__stdout__)
    sys.stderr = sys.__stderr__ = standard_stream(2, "w", sys.__stderr__)
    # `python -m` puts the working directory first on the path, then $PYTHONPATH; the module runs as
    # `__main__`, not as the copy imported above (runpy would warn of that copy on stderr).
    sys.path[:] = [
        cwd,
        *(entry for entry in env.get("PYTHONPATH", "").split(os.pathsep) if entry),
        *_SITE_PATH,
    ]
    sys.argv = ["-m", *args]
    sys.modules.pop("hermes_tui.cli", None)
    runpy.run_module("hermes_tui.cli", run_name="__main__", alter_sys=True)


def standard_stream(fd: int, mode: str, like: TextIO | None, *, unbuffered: bool = False) -> TextIO:
    """A standard stream on `fd` as a fresh interpreter makes it: this interpreter's encoding and error
    handler for it, line-buffered on a terminal (stderr always); written through with `unbuffered` (`-u`)."""
    raw = io.FileIO(fd, mode, closefd=False)
    layer: io.RawIOBase | io.BufferedIOBase = raw
    if mode == "r":
        layer = io.BufferedReader(raw)
    elif not unbuffered:
        layer = io.BufferedWriter(raw)
    return io.TextIOWrapper(
        layer,  # type: ignore[arg-type]  # a raw writer is what `-u` gives sys.stdout too
        encoding=like.encoding if like is not None else "utf-8",
        errors=like.errors if like is not None else "strict",
        line_buffering=fd == 2 or os.isatty(fd),
        write_through=unbuffered,
    )


# ------------------------------------------------------------------------------------------- the caller


class _Warm:
    """This worker's warm process, the socket to it, and where a pane's program asks it for an app."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        # Listening before the process starts: a pane's program may connect while it still imports.
        self.panes = os.path.join(tempfile.mkdtemp(prefix="hermes-warm-"), "panes")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.panes)
        listener.listen()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.cli_process", str(theirs.fileno()), str(listener.fileno())],
            pass_fds=[theirs.fileno(), listener.fileno()],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdin=subprocess.DEVNULL,
            cwd=ROOT,
        )
        theirs.close()
        listener.close()
        self.sock = ours

    def alive(self) -> bool:
        return self.process.poll() is None


_warm: _Warm | None = None
_lock = threading.Lock()


def _warm_process() -> _Warm:
    """This worker's warm process, started at the first need (or again if it ended); call with `_lock`."""
    global _warm
    if _warm is None or not _warm.alive():
        _warm = _Warm()
    return _warm


def panes_socket() -> str:
    """Where `tests/e2e/pane_app.py` asks this worker's warm process to fork `hermes-tui` onto its terminal
    (the warm process listens there once it has imported what it preloads)."""
    with _lock:
        return _warm_process().panes


def run_cli(
    args: Sequence[str],
    *,
    cwd: Path | str | None = None,
    env: Mapping[str, str],
    input: str | None = None,  # as subprocess.run names it
    timeout: float = 90,
) -> subprocess.CompletedProcess[str]:
    """`subprocess.run([python, "-m", "hermes_tui.cli", *args], cwd=, env=, input=, capture_output=True,
    text=True, timeout=)`, the command forked from this worker's warm process. No input is `/dev/null`."""
    command = [sys.executable, "-m", "hermes_tui.cli", *args]
    with _lock:
        warm = _warm_process()
        stdin_r, stdin_w = os.pipe() if input is not None else (os.open(os.devnull, os.O_RDONLY), -1)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            send(
                warm.sock,
                {"args": list(args), "cwd": str(cwd or os.getcwd()), "env": dict(env)},
                [stdin_r, out_w, err_w],
            )
        finally:
            for descriptor in (stdin_r, out_w, err_w):
                os.close(descriptor)
        started, _ = receive(warm.sock)
        if started is None:
            raise RuntimeError("the warm process for hermes-tui runs ended before it forked the command")
        pid = started["pid"]
        assert isinstance(pid, int)
        try:
            out, err = _communicate(stdin_w, input, out_r, err_r, time.monotonic() + timeout)
        except subprocess.TimeoutExpired as expired:
            os.kill(pid, signal.SIGKILL)
            receive(warm.sock)
            raise subprocess.TimeoutExpired(command, timeout, expired.output, expired.stderr) from None
        ended, _ = receive(warm.sock)
    if ended is None:
        raise RuntimeError("the warm process for hermes-tui runs ended while a command ran")
    returncode = ended["returncode"]
    assert isinstance(returncode, int)
    return subprocess.CompletedProcess(command, returncode, _text(out), _text(err))


@dataclass
class Spawned:
    """A `hermes-tui` run started by `spawn_cli`: its pid, and the socket on which one message tells its exit
    status when it ends (`ended`)."""

    pid: int
    status: socket.socket

    async def ended(self) -> int:
        """The exit status (as `Popen.returncode` has it), once the message came (on the running asyncio
        loop); the socket is closed after."""
        loop = asyncio.get_running_loop()
        self.status.setblocking(False)
        data = b""
        try:
            while (
                len(data) < _HEADER.size or len(data) < _HEADER.size + _HEADER.unpack(data[: _HEADER.size])[0]
            ):
                block = await loop.sock_recv(self.status, 1 << 12)
                if not block:
                    raise RuntimeError(f"the warm process ended before its run {self.pid} did")
                data += block
        finally:
            self.status.close()
        code = json.loads(data[_HEADER.size :])["returncode"]
        assert isinstance(code, int)
        return code


def spawn_cli(
    args: Sequence[str],
    *,
    cwd: Path | str,
    env: Mapping[str, str],
    stdin: int,
    stdout: int,
    stderr: int,
    preload: Sequence[str] = (),
) -> Spawned:
    """`python -m hermes_tui.cli ARGS` forked from this worker's warm process on the given descriptors (the
    caller closes its copies of the child's ends), running while the test goes on. `preload`: modules the
    warm process imports before it forks (once; they stay for the next runs)."""
    ours, theirs = socket.socketpair()
    with _lock:
        warm = _warm_process()
        try:
            send(
                warm.sock,
                {
                    "args": list(args),
                    "cwd": str(cwd),
                    "env": dict(env),
                    "spawn": True,
                    "preload": list(preload),
                },
                [stdin, stdout, stderr, theirs.fileno()],
            )
        finally:
            theirs.close()
        started, _ = receive(warm.sock)
    if started is None or not isinstance(started.get("pid"), int):
        ours.close()
        raise RuntimeError("the warm process for hermes-tui runs ended before it forked the command")
    return Spawned(int(started["pid"]), ours)  # type: ignore[call-overload]


def _text(data: bytes) -> str:
    """As `text=True` decodes (the locale's encoding, universal newlines)."""
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


def _communicate(
    stdin_w: int, input: str | None, out_r: int, err_r: int, deadline: float
) -> tuple[bytes, bytes]:
    """Write `input` (then close stdin) while reading stdout and stderr to their ends, by `deadline`."""
    if stdin_w >= 0:
        data = (input or "").encode()

        def feed() -> None:
            try:
                with open(stdin_w, "wb") as pipe:
                    pipe.write(data)
            except BrokenPipeError:
                pass

        threading.Thread(target=feed, daemon=True, name="cli-stdin").start()
    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    selector = selectors.DefaultSelector()
    for descriptor in chunks:
        selector.register(descriptor, selectors.EVENT_READ)
    try:
        open_ends = len(chunks)
        while open_ends:
            left = deadline - time.monotonic()
            if left <= 0:
                raise subprocess.TimeoutExpired([], 0, b"".join(chunks[out_r]), b"".join(chunks[err_r]))
            for key, _ in selector.select(left):
                descriptor = int(key.fd)
                block = os.read(descriptor, 1 << 16)
                if block:
                    chunks[descriptor].append(block)
                else:
                    selector.unregister(descriptor)
                    open_ends -= 1
    finally:
        selector.close()
        os.close(out_r)
        os.close(err_r)
    return b"".join(chunks[out_r]), b"".join(chunks[err_r])


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]))

"""xdist's workers forked from one process that imported the SDKs once.

A worker started as xdist starts it (`python -u -c BOOTSTRAP`, execnet's popen gateway) imports the
Anthropic, OpenAI, MCP and ACP SDKs, Textual and the app while it collects the suite: ~10 s of CPU on the
2-core CI machine, three quarters of it those imports (hundreds of pydantic models), six times over before
any test runs. Here the controller starts one warm process (`serve`) that imports them once, and each
worker's gateway runs this file as its `python` (`fork_workers` sets the spec's `python`): a small client
that hands its pipes, directory, environment and arguments to the warm process, which forks a child that
becomes the worker on those pipes as `python -u -c BOOTSTRAP` would (`_become`) and tells the client its
exit status when it ends. The client passes on a SIGTERM and exits with that status, so execnet sees an
ordinary worker process; killed, it takes its worker with it. A worker's collection then costs ~3 s.

Only libraries pytest does not rewrite are imported before the fork (a pytest plugin's package imported
early misses its assertion rewriting, and pytest warns). `anyio`, which the SDKs import and whose
distribution carries a plugin, is the one exception: its asserts are not the suite's, and the warning is
filtered in `pyproject.toml`. Without the warm process (it did not answer, or `HERMES_TEST_COLD_WORKERS=1`)
each client becomes the ordinary interpreter.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import os
import selectors
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))  # run as a script: `tests` importable for the framing below

from tests.cli_process import accept_request, receive, send, standard_stream  # noqa: E402

PRELOAD = (
    "anthropic",
    "openai",
    "mcp",
    "mcp.types",
    "mcp.client.session",
    "acp",
    "acp.schema",
    "acp.core",
    "boto3",
    "google.auth",
    "textual.app",
    "agent.api",
    "hermes_tui.app",
    "scripted",
)
"""What every worker imports while it collects (the test modules import them): the SDKs, Textual, the app."""
CLIENT = Path(__file__).resolve()
"""This file, run as each worker's `python`: `python warm_workers.py client PATH ARGS`."""
COLD = "HERMES_TEST_COLD_WORKERS"
"""Set to 1: every worker is an interpreter of its own, as xdist starts it."""


# ------------------------------------------------------------------------------------- the controller


def fork_workers(config: Any, specs: Sequence[Any]) -> None:
    """The warm process, started once for this run's workers; each popen worker's `python` is its client
    (`tests/conftest.py` calls this from xdist's `pytest_xdist_setupnodes`)."""
    popen = [spec for spec in specs if spec.popen and not spec.python]
    if not popen or os.environ.get(COLD) == "1":
        return
    warm = WarmProcess(PRELOAD)
    config.add_cleanup(warm.stop)
    client = shlex.join([sys.executable, str(CLIENT), "client", warm.path])
    for spec in popen:
        spec.python = client


class WarmProcess:
    """The warm process, importing `preload`, and the socket its clients connect to (`path`)."""

    def __init__(self, preload: Sequence[str]) -> None:
        self.directory = tempfile.mkdtemp(prefix="hermes-workers-")
        self.path = os.path.join(self.directory, "fork")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.path)  # listening before it imports: a client waits in `accept`, not in a retry
        listener.listen()
        self.process = subprocess.Popen(
            [sys.executable, str(CLIENT), "serve", str(listener.fileno()), *preload],
            pass_fds=[listener.fileno()],
            stdin=subprocess.PIPE,  # closed by `stop`, or by the controller's end however it ends
            cwd=ROOT,
        )
        listener.close()

    def stop(self) -> None:
        """After the workers ended (xdist waited for them): the warm process reaps what is left and ends."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        with contextlib.suppress(OSError):  # the warm process removes them as it ends; not if it was killed
            os.unlink(self.path)
            os.rmdir(self.directory)


# ------------------------------------------------------------------------------------- the warm process


def serve(listen_fd: int, preload: Sequence[str]) -> dict[str, Any] | None:
    """Import, then fork a worker per client until the controller closes stdin and every worker ended.
    Returns only in a child: the request it is to become. A client that ends before its worker (execnet
    kills a worker that does not stop in time: it kills the client) takes its worker with it."""
    for number in (signal.SIGINT, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(number, signal.SIG_IGN)  # the terminal's Ctrl+C is the workers' (and ours is `stop`)
    gc.disable()  # the imports make objects that live as long as the process: no passes over them
    for name in preload:
        try:
            importlib.import_module(name)
        except ImportError:  # an optional SDK not installed: the worker imports what it can, as before
            pass
    gc.freeze()
    gc.enable()
    listener = socket.socket(fileno=listen_fd)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(sys.stdin, selectors.EVENT_READ)
    workers: dict[int, socket.socket] = {}
    closing = False
    while not (closing and not workers):
        for key, _ in selector.select(timeout=0.2):
            if key.fileobj is sys.stdin:
                selector.unregister(sys.stdin)
                closing = True
            elif key.fileobj is listener:
                accepted = accept_request(listener)
                if accepted is None:
                    continue
                connection, request, fds = accepted
                pid = os.fork()
                if pid == 0:
                    selector.close()
                    listener.close()
                    for held in (connection, *workers.values()):
                        held.close()
                    _adopt(fds)
                    return request
                for descriptor in fds:
                    os.close(descriptor)
                send(connection, {"pid": pid})
                workers[pid] = connection
                selector.register(connection, selectors.EVENT_READ, pid)
            else:  # a client said nothing more after its pid: it is gone
                selector.unregister(key.fileobj)
                with contextlib.suppress(ProcessLookupError):
                    os.kill(key.data, signal.SIGKILL)
        _reap(workers, selector)
    path = Path(listener.getsockname())
    path.unlink()
    path.parent.rmdir()
    return None


def _reap(workers: dict[int, socket.socket], selector: selectors.BaseSelector) -> None:
    """Each worker that ended: its exit status to its client."""
    while workers:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            return
        connection = workers.pop(pid, None)
        if connection is not None:
            with contextlib.suppress(KeyError):
                selector.unregister(connection)
            with contextlib.suppress(OSError):
                send(connection, {"returncode": os.waitstatus_to_exitcode(status)})
            connection.close()


def _adopt(fds: Sequence[int]) -> None:
    for target, descriptor in enumerate(fds):
        os.dup2(descriptor, target)
        os.close(descriptor)


def _become(request: dict[str, Any]) -> None:
    """This child is now `python ARGS` (`-u -c BOOTSTRAP`) in the client's directory and environment, on its
    pipes, with the standard streams, path, signals and `__main__` a fresh interpreter gives it."""
    for name in [name for name in sys.modules if name == "tests" or name.startswith("tests.")]:
        del sys.modules[name]  # the framing above: the worker imports the suite's modules as its own
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    args: list[str] = request["args"]
    unbuffered = "-u" in args[: args.index("-c")]
    sys.stdin = sys.__stdin__ = standard_stream(0, "r", sys.__stdin__)
    sys.stdout = sys.__stdout__ = standard_stream(1, "w", sys.__stdout__, unbuffered=unbuffered)
    sys.stderr = sys.__stderr__ = standard_stream(2, "w", sys.__stderr__, unbuffered=unbuffered)
    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    code = args[args.index("-c") + 1]
    sys.argv = ["-c", *args[args.index("-c") + 2 :]]
    sys.path[0] = ""  # `-c`: the working directory first (xdist then sends the controller's path)
    main = types.ModuleType("__main__")
    sys.modules["__main__"] = main
    exec(compile(code, "<string>", "exec"), main.__dict__)


# ------------------------------------------------------------------------------------------- the client


def client(path: str, args: list[str]) -> int:
    """Be the worker's process for execnet: the warm process forks the worker on our pipes; we pass on the
    signals we get and end with its status. Without the warm process, become the interpreter itself."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(path)
        send(connection, {"cwd": os.getcwd(), "env": dict(os.environ), "args": args}, [0, 1, 2])
        reply, _ = receive(connection)
    except OSError:
        reply = None
    if reply is None:
        os.execv(sys.executable, [sys.executable, *args])
    pid = int(reply["pid"])
    # The terminal's signals reach the worker itself (one process group); one sent to us alone, ours.
    for number in (signal.SIGINT, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(number, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda signum, _frame: os.kill(pid, signum))
    ended, _ = receive(connection)
    if ended is None:  # the warm process died first: nothing can tell the status
        return 1
    returncode = int(ended["returncode"])
    if returncode < 0:  # killed by a signal: end the same way
        with contextlib.suppress(OSError):  # SIGKILL has no handler to take back
            signal.signal(-returncode, signal.SIG_DFL)
        os.kill(os.getpid(), -returncode)
    return returncode


if __name__ == "__main__":
    if sys.argv[1] == "client":
        sys.exit(client(sys.argv[2], sys.argv[3:]))
    request = serve(int(sys.argv[2]), sys.argv[3:])
    if request is not None:
        _become(request)

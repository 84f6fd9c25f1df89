"""The gate: a child that becomes its real program only once the app has registered its process group.

A child that other code starts (the MCP SDK starts every stdio server itself, in a session of its own) is
ours only once its process group is known and `SUPERVISOR.adopt`ed; a kill -9 of the app in between would
leave it, and whatever it started, running for ever. So such a child is started as the gate instead
(`Gate.argv`): a bare interpreter (standard library only, `supervisor.bare_python`) that

1. leads a session and process group of its own (it already does when started with
   `start_new_session=True`);
2. connects to the app's socket (in a private 0700 directory, which it then removes: a kill -9 of the
   app leaves no directory behind) and sends its pid;
3. waits for the app's one-byte go, sent once the group is registered with the supervisor, so with the
   reaper. When the app is gone first, the socket reads EOF (the app's end closes with it; its parent pid
   is checked too) and the gate exits without starting anything (sooner, the reaper stops it by the app's
   mark in its environment: `Supervisor.marked_env`);
4. undoes what starting Python changed in what the program inherits (SIGPIPE and SIGXFSZ ignored, a C
   locale's LC_CTYPE coerced, PEP 538), and becomes the real command with `execvp` (the command looked up
   on the PATH of its environment, as `subprocess` does; the same pid, stdin, stdout and stderr).

When the exec fails, its errno goes back on the socket (which the exec would have closed) and the gate
exits 127: `Gate.exec_error` gives the app the error a failed spawn would have raised.

The app's end (`Gate`) answers on its asyncio loop (`admit`). Linux only (`Gate.supported`): elsewhere
children are started as before.
"""

from __future__ import annotations

import _socket  # the gate's end: `socket` would add 10 ms (enum, selectors) to every start
import os
import signal
import sys

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the gate imports only what it runs with
if TYPE_CHECKING:
    import socket
    from collections.abc import Callable, Mapping, Sequence

__all__ = ["EXEC_FAILED", "Gate", "main"]

EXEC_FAILED = 127  # the gate's exit status when the command could not be run (a shell's "not found")
PARENT_CHECK = 0.1  # seconds between checks that the app is still its parent (EOF is the quick signal)
GO = b"1"
_UNSET = "-"  # the LC_CTYPE argument when the variable is not to be set


# ---------------------------------------------------------------------------------------------- the gate


def main(argv: list[str]) -> int:
    """`SOCKET PARENT_PID LC_CTYPE COMMAND [ARG...]`: wait for the go, then become COMMAND."""
    path, parent, lc_ctype, *command = argv
    if os.getpgrp() != os.getpid():
        os.setsid()
    channel = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)  # not inheritable: the exec closes it
    channel.settimeout(PARENT_CHECK)
    if not _let_go(channel, path, int(parent)):
        return 1
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):  # as `subprocess`'s restore_signals leaves them
        signal.signal(sig, signal.SIG_DFL)
    if lc_ctype == _UNSET:
        os.environ.pop("LC_CTYPE", None)
    else:
        os.environ["LC_CTYPE"] = lc_ctype[1:]
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        try:
            channel.sendall(f"{exc.errno}\n".encode())
        except OSError:
            pass
    return EXEC_FAILED


def _let_go(channel: _socket.socket, path: str, parent: int) -> bool:
    """Announce this process to the app and wait for its go; False when the app is gone (or said no)."""
    try:
        try:
            channel.connect(path)
        finally:  # connected or refused (the app is gone), the socket's name is not needed any more
            _remove(path)
        channel.sendall(f"{os.getpid()}\n".encode())
        while True:
            try:
                return channel.recv(1) == GO
            except TimeoutError:
                if os.getppid() != parent:
                    return False
    except OSError:
        return False


# ---------------------------------------------------------------------------------------------- the app's end


class Gate:
    """The app's end of one gated start: a listening socket in a private directory, the gate's argv, and
    `admit` to register the gate's group and let it go. A context manager (closing removes it all)."""

    @staticmethod
    def supported() -> bool:
        return sys.platform.startswith("linux")

    def __init__(self) -> None:
        import socket
        import tempfile

        self._dir = tempfile.mkdtemp(prefix="hermes-gate-")  # 0700
        self.path = os.path.join(self._dir, "s")
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._conn: socket.socket | None = None
        self._command = ""
        try:
            self._listener.bind(self.path)  # OSError for a path longer than AF_UNIX allows (a long TMPDIR)
            self._listener.listen(1)
            self._listener.setblocking(False)
        except OSError:
            self.close()
            raise

    def __enter__(self) -> Gate:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def argv(self, command: str, args: Sequence[str], env: Mapping[str, str]) -> list[str]:
        """The gate's command line for running `command args` in `env` (the environment it is given)."""
        from agent.children.supervisor import bare_python

        self._command = command
        lc_ctype = f"={env['LC_CTYPE']}" if "LC_CTYPE" in env else _UNSET
        return bare_python("gate", self.path, str(os.getpid()), lc_ctype, command, *args)

    async def admit(self, register: Callable[[int], None]) -> int:
        """Wait for the gate, `register(pgid)` its group, then let it go; its pgid. Raises ConnectionError
        when what connected is not our child leading its own group: that is not let go, but told no (its
        connection closed), so it exits."""
        import asyncio

        loop = asyncio.get_running_loop()
        conn, _ = await loop.sock_accept(self._listener)
        self._conn = conn
        data = b""
        while not data.endswith(b"\n") and len(data) < 32:
            chunk = await loop.sock_recv(conn, 32)
            if not chunk:
                break
            data += chunk
        pid = int(data) if data.strip().isdigit() else 0
        if pid <= 1 or not _leads_own_group_below_us(pid):
            self._conn = None
            conn.close()
            raise ConnectionError(f"the gate's process {data!r} is not our child leading its own group")
        register(pid)
        await loop.sock_sendall(conn, GO)
        return pid

    def exec_error(self) -> OSError | None:
        """After the program failed to start: why, when its exec failed (the error a failed spawn raises:
        FileNotFoundError for a missing command...); None when it ran, or nothing is known."""
        conn = self._conn
        if conn is None:
            return None
        try:
            conn.setblocking(False)
            data = conn.recv(32)
            code = int(data)
        except (OSError, ValueError):
            return None
        return OSError(code, os.strerror(code), self._command)  # OSError(errno, ...) is its subclass

    def close(self) -> None:
        for sock in (self._conn, self._listener):
            if sock is not None:
                sock.close()
        self._conn = None
        _remove(self.path)


def _remove(path: str) -> None:
    """The socket's name and its private directory (quiet when already gone: the gate and the app both
    remove them)."""
    for remove, name in ((os.unlink, path), (os.rmdir, os.path.dirname(path))):
        try:
            remove(name)
        except OSError:
            pass


def _leads_own_group_below_us(pid: int) -> bool:
    from agent.children.groups import stat_fields

    fields = stat_fields(pid)
    try:
        return fields is not None and int(fields[1]) == os.getpid() and int(fields[2]) == pid
    except (IndexError, ValueError):
        return False


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

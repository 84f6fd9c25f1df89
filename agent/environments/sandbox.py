"""The OS sandbox of the local backend (Codex's model, on bubblewrap): which mode, what it lets a command
write, the `bwrap` command line that enforces it, the check at start, and the line a failure it caused gets.

Modes (`sandbox.mode` in config.yaml, `--sandbox MODE`):

* `off` (the default): commands run with the user's full rights; nothing here is imported or probed.
* `read-only`: the whole file system is read-only for a command (its `/dev` and `/proc` are its own).
* `workspace-write`: only the working directory and the system temp dir are writable.

Either sandbox runs without network (`--unshare-net`: a fresh network namespace, loopback alone, so even a
server on the host's 127.0.0.1 is out of reach) unless `sandbox.network: true`. The command also gets its
own pid, IPC and UTS namespaces (it cannot see or signal the host's processes), no capabilities
(`--cap-drop ALL`: as root, bwrap would otherwise keep CAP_SYS_ADMIN and a `mount -o remount,rw /` inside
would undo the read-only root), and dies with the app (`--die-with-parent`). A read-only mount does not stop
a `connect()` to a Unix socket, and the daemons behind them act for the caller (Docker's socket, the
user's tmux server, D-Bus): a seccomp filter (`unix_socket_filter`) makes `socket(AF_UNIX, ...)` fail with
EPERM inside the sandbox, as Claude Code's sandbox does (socketpair, which reaches nothing, still works).

Why a sandbox cannot be had is one line (`SandboxUnavailable`), and the session does not start: a run the
user asked to sandbox never silently runs unsandboxed. The check (`require`) starts `bwrap` once per set of
flags per process.
"""

from __future__ import annotations

import contextlib
import os
import platform
import queue
import shutil
import struct
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TypeVar, cast

from agent.environments.base import EnvironmentUnavailable

T = TypeVar("T")

__all__ = [
    "BWRAP",
    "MODES",
    "Sandbox",
    "SandboxMode",
    "SandboxUnavailable",
    "normalize_mode",
    "require",
]

BWRAP = "bwrap"
BWRAP_PLACES = ("/usr/bin/bwrap", "/usr/local/bin/bwrap")  # where it is when PATH is short (cron, sudo)
PROBE_TIMEOUT = 10.0  # seconds; bwrap starts in milliseconds, a loaded machine may take longer


class SandboxMode(StrEnum):
    OFF = "off"
    READ_ONLY = "read-only"
    WORKSPACE_WRITE = "workspace-write"


MODES: tuple[str, ...] = tuple(m.value for m in SandboxMode)
_SPELLINGS = {"false": "off", "no": "off", "none": "off", "0": "off", "readonly": "read-only"}


def normalize_mode(value: object) -> str:
    """`workspace_write`, `Read-Only`, a YAML `off` (False) as the mode's name; anything else unchanged (the
    caller's validation names the modes)."""
    if value is False or value is None:
        return SandboxMode.OFF.value
    text = str(value).strip().lower().replace("_", "-")
    return _SPELLINGS.get(text, text)


def sandbox_label(mode: str, network: bool) -> str:
    """`sandbox workspace-write` (`+net` when it has the network): what the status bar and reports say."""
    return f"sandbox {mode}{' +net' if network else ''}"


class SandboxUnavailable(EnvironmentUnavailable):
    """The sandbox the user chose cannot be had here; the message is the one line they see, and the session
    does not start (as for a backend that cannot be used)."""


def _real(path: Path | str) -> Path:
    try:
        return Path(os.path.realpath(os.path.expanduser(str(path))))
    except (OSError, ValueError):
        return Path(os.path.abspath(str(path)))


def _under(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


@dataclass(frozen=True)
class Sandbox:
    """One session's sandbox. `workspace`: the session's working directory; `temp`: the system temp dir."""

    mode: SandboxMode
    workspace: Path
    network: bool = False
    temp: Path = field(default_factory=lambda: _real(tempfile.gettempdir()))
    bwrap: str = BWRAP

    def __post_init__(self) -> None:
        object.__setattr__(self, "workspace", _real(self.workspace))
        object.__setattr__(self, "temp", _real(self.temp))

    @property
    def writable_roots(self) -> tuple[Path, ...]:
        if self.mode is SandboxMode.WORKSPACE_WRITE:
            return tuple(dict.fromkeys((self.workspace, self.temp)))
        return ()

    @property
    def label(self) -> str:
        """The status bar's short label."""
        return sandbox_label(self.mode.value, self.network)

    def describe(self) -> str:
        """One line for `hermes-tui config`, `doctor` and the docs: what a command may do."""
        if self.mode is SandboxMode.READ_ONLY:
            writes = "writes nowhere"
        else:
            writes = "writes only in " + ", ".join(str(p) for p in self.writable_roots)
        net = "network allowed" if self.network else "no network"
        return f"{self.mode.value} (bubblewrap): {writes}; {net}"

    def prompt_line(self) -> str:
        """What the model is told (the system prompt): the bounds, and what happens past them."""
        if self.mode is SandboxMode.READ_ONLY:
            writes = "cannot write any file"
        else:
            writes = "can write only in " + " and ".join(str(p) for p in self.writable_roots)
        net = "have the network" if self.network else "have no network"
        return (
            f"terminal commands run in an OS sandbox ({self.mode.value}): they {writes} and {net}. A command "
            "that needs more asks the user, who may run it outside the sandbox; work inside these bounds "
            "where you can."
        )

    def allows_write(self, path: Path | str, cwd: Path | str | None = None) -> bool:
        """Whether a command in the sandbox may write `path` (relative to `cwd`, default the workspace).
        The sandbox's own `/dev` and `/proc` count as writable (`> /dev/null`)."""
        raw = Path(os.path.expanduser(str(path)))
        if not raw.is_absolute():
            raw = Path(cwd if cwd is not None else self.workspace) / raw
        real = _real(raw)
        if _under(real, Path("/dev")) or _under(real, Path("/proc/self")):
            return True
        return any(_under(real, root) for root in self.writable_roots)

    def flags(self) -> list[str]:
        """bwrap's options for this sandbox, without the working directory and the command."""
        args = [
            "--die-with-parent",
            "--unshare-all",  # user (where it can), ipc, pid, net, uts, cgroup
            *([] if not self.network else ["--share-net"]),
            "--cap-drop",
            "ALL",
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
        ]
        # parents first: a bind mounted later over a writable root's parent would hide it
        for root in sorted(self.writable_roots, key=lambda p: len(p.parts)):
            args += ["--bind", str(root), str(root)]
        return args

    def wrap(self, argv: list[str], cwd: Path | str, *, seccomp_fd: int | None = None) -> list[str]:
        """`argv` run inside this sandbox, starting in `cwd`; `seccomp_fd`: a descriptor the child inherits
        holding `unix_socket_filter()` (see `launch`)."""
        seccomp = ["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []
        return [self.bwrap, *self.flags(), *seccomp, "--chdir", os.path.abspath(cwd), "--", *argv]

    @contextlib.contextmanager
    def launch(self, argv: list[str], cwd: Path | str) -> Iterator[tuple[list[str], tuple[int, ...]]]:
        """(the bwrap command line, the descriptors to pass to it): start it inside the `with`; the
        descriptor of the seccomp filter is closed after."""
        program = unix_socket_filter()
        if program is None:
            yield self.wrap(argv, cwd), ()
            return
        read, write = os.pipe()  # bwrap reads the program to its end: one pipe per start
        try:
            os.write(write, program)  # ~100 bytes: far below a pipe's buffer
            os.close(write)
            write = -1
            yield self.wrap(argv, cwd, seccomp_fd=read), (read,)
        finally:
            os.close(read)
            if write >= 0:
                os.close(write)

    def start(self, argv: list[str], cwd: Path | str, popen: Callable[[list[str], tuple[int, ...]], T]) -> T:
        """`popen(bwrap command line, descriptors to pass)` for `argv` in this sandbox, called on the
        sandbox's starter thread (`_STARTER`): `--die-with-parent` is tied to the thread that forks bwrap,
        and the tool's worker thread ends long before a background process does."""

        def started() -> T:
            with self.launch(argv, cwd) as (full, fds):
                return popen(full, fds)

        return _STARTER.run(started)


class _Starter:
    """One thread, alive as long as the app, that forks every sandboxed process: bwrap's
    `--die-with-parent` (PR_SET_PDEATHSIG) fires when the *thread* that forked it ends, so a background
    process started from a turn's worker thread was killed as soon as that turn's tool call returned."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], object], Future[object]]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def run(self, job: Callable[[], T]) -> T:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="sandbox-starter", daemon=True)
                self._thread.start()
        done: Future[object] = Future()
        self._jobs.put((job, done))
        return cast(T, done.result())  # the job's own return value, typed by the caller's `job`

    def _serve(self) -> None:
        while True:
            job, done = self._jobs.get()
            try:
                done.set_result(job())
            except BaseException as exc:  # handed to the caller, which raises it
                done.set_exception(exc)


_STARTER = _Starter()


# ---- the seccomp filter: no Unix sockets -----------------------------------------------------------------

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_SOCKET_NR = {"x86_64": 41, "aarch64": 198}
_X32_BIT = 0x40000000
_AUDIT_ARCH_I386, _I386_SOCKET, _I386_SOCKETCALL, _SYS_SOCKET = 0x40000003, 359, 102, 1
_AF_UNIX, _EPERM = 1, 1
_LD_W_ABS, _JEQ_K, _RET_K = 0x20, 0x15, 0x06
_RET_ALLOW, _RET_EPERM = 0x7FFF0000, 0x00050000 | _EPERM
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (args[0]'s low half: little-endian)


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def unix_socket_filter(machine: str | None = None) -> bytes | None:
    """A classic-BPF seccomp program: `socket(AF_UNIX, ...)` fails with EPERM, everything else is allowed
    (on x86-64 the x32 and i386 entry points too: `socketcall(SYS_SOCKET)` is refused whatever its domain,
    since its arguments are behind a pointer). None on a machine it does not know."""
    machine = machine or platform.machine()
    if machine not in _AUDIT_ARCH:
        return None
    nr = _SOCKET_NR[machine]
    deny, allow = _insn(_RET_K, _RET_EPERM), _insn(_RET_K, _RET_ALLOW)
    native = [
        _insn(_LD_W_ABS, _NR),
        # socket, or (x86-64) x32's socket: check the domain; anything else is allowed
        _insn(_JEQ_K, nr, jt=1 if machine == "x86_64" else 0, jf=0 if machine == "x86_64" else 3),
        *([_insn(_JEQ_K, nr | _X32_BIT, jt=0, jf=3)] if machine == "x86_64" else []),
        _insn(_LD_W_ABS, _ARG0),
        _insn(_JEQ_K, _AF_UNIX, jt=0, jf=1),
        deny,
        allow,
    ]
    if machine != "x86_64":
        return b"".join([_insn(_LD_W_ABS, _ARCH), _insn(_JEQ_K, _AUDIT_ARCH[machine], jt=1), allow, *native])
    i386 = [
        _insn(_LD_W_ABS, _NR),
        _insn(_JEQ_K, _I386_SOCKET, jt=3),
        _insn(_JEQ_K, _I386_SOCKETCALL, jf=4),
        _insn(_LD_W_ABS, _ARG0),
        _insn(_JEQ_K, _SYS_SOCKET, jt=3, jf=2),  # socketcall(SYS_SOCKET): refused
        _insn(_LD_W_ABS, _ARG0),  # i386 socket(domain, ...)
        _insn(_JEQ_K, _AF_UNIX, jt=1),
        allow,
        deny,
    ]
    head = [
        _insn(_LD_W_ABS, _ARCH),
        _insn(_JEQ_K, _AUDIT_ARCH["x86_64"], jt=2),
        _insn(_JEQ_K, _AUDIT_ARCH_I386, jt=len(native) + 1),
        allow,
    ]
    return b"".join([*head, *native, *i386])


_PROBED: dict[tuple[str, ...], str] = {}  # flags -> "" (works) or why not
_PROBE_LOCK = threading.Lock()


def _probe(sandbox: Sandbox) -> str:
    """Why this sandbox cannot start here ("" when it can): bwrap runs `true` with the same flags."""
    key = tuple(sandbox.wrap(["true"], sandbox.workspace))
    with _PROBE_LOCK:
        if key in _PROBED:
            return _PROBED[key]
        try:
            with sandbox.launch(["true"], sandbox.workspace) as (argv, fds):
                done = subprocess.run(
                    argv,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=PROBE_TIMEOUT,
                    check=False,
                    pass_fds=fds,
                )
            why = "" if done.returncode == 0 else _first_line(done.stderr) or f"exit code {done.returncode}"
        except subprocess.TimeoutExpired:
            why = f"it did not start within {PROBE_TIMEOUT:g} s"
        except OSError as exc:
            why = exc.strerror or str(exc)
        _PROBED[key] = why
        return why


def _first_line(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text.splitlines()[0].strip() if text else ""


def require(mode: str, workspace: Path, *, network: bool = False) -> Sandbox | None:
    """The session's sandbox (None for `off`), checked to work here; `SandboxUnavailable` (one line, what
    is missing and how to fix it or choose `off` on purpose) when it cannot."""
    try:
        chosen = SandboxMode(normalize_mode(mode))
    except ValueError:
        raise SandboxUnavailable(
            f"Unknown sandbox mode {mode!r}: choose one of {', '.join(MODES)}."
        ) from None
    if chosen is SandboxMode.OFF:
        return None
    found = shutil.which(BWRAP) or next((p for p in BWRAP_PLACES if os.access(p, os.X_OK)), None)
    off = "or run with --sandbox off (sandbox.mode: off) to run commands unsandboxed on purpose"
    if found is None:
        raise SandboxUnavailable(
            f"sandbox {chosen.value}: bubblewrap (bwrap) is not installed; install it "
            f"(Debian/Ubuntu: apt install bubblewrap) {off}."
        )
    if not Path(workspace).is_dir():
        raise SandboxUnavailable(f"sandbox {chosen.value}: the working directory {workspace} does not exist.")
    sandbox = Sandbox(chosen, Path(workspace), network=network, bwrap=found)
    why = _probe(sandbox)
    if why:
        raise SandboxUnavailable(
            f"sandbox {chosen.value}: bwrap cannot start here ({why}); user namespaces may be disabled "
            f"(sysctl kernel.unprivileged_userns_clone=1) {off}."
        )
    return sandbox


# ---- what a failure inside the sandbox says ------------------------------------------------------------

_WRITE_REFUSED = ("Read-only file system", "[Errno 30]", "EROFS")
_NET_REFUSED = (
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Network is unreachable",
    "[Errno 101]",
    "Connection refused",
    "[Errno 111]",
    "Couldn't connect to server",
    "Failed to connect to",
    "unable to resolve host",
    "getaddrinfo",
)


def failure_note(output: str, sandbox: Sandbox) -> str:
    """The line a failed command's result gets when its output shows the sandbox refused it ("" when it
    does not): the user and the model learn why, and how to get past it."""
    notes = []
    if any(s in output for s in _WRITE_REFUSED):
        where = (
            "nothing is writable in a read-only sandbox"
            if sandbox.mode is SandboxMode.READ_ONLY
            else "only " + " and ".join(str(p) for p in sandbox.writable_roots) + " are writable"
        )
        notes.append(f"[sandbox {sandbox.mode.value}: a write outside the sandbox was refused ({where})]")
    if not sandbox.network and any(s in output for s in _NET_REFUSED):
        notes.append(
            f"[sandbox {sandbox.mode.value}: commands have no network (sandbox.network is false); "
            "the connection was refused by the sandbox]"
        )
    return "\n".join(notes)

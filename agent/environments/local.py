"""The local backend: commands and files on this machine, exactly as the tools ran them before the seam
(the shell in a process group of its own under the child supervisor; files through `os`). It holds no
process and costs nothing to make.

With a `sandbox` (`agent.environments.sandbox`, `sandbox.mode`) every command and helper it starts runs
inside bubblewrap; its label says so. The files the file tools write go through the approval gate, which
keeps them to the same bounds (`agent.approval.sandbox_bounds`). `without_sandbox()` is the same machine
without it, for the one call the user let out of the sandbox."""

from __future__ import annotations

import errno
import os
import shutil
import stat as stat_module
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Literal

from agent.children.groups import stop_groups
from agent.children.supervisor import SUPERVISOR
from agent.core.fileio import atomic_write_bytes
from agent.environments.base import DirEntry, FileInfo, Output
from agent.environments.shell import environment, shell

if TYPE_CHECKING:
    from agent.environments.base import Environment
    from agent.environments.sandbox import Sandbox

__all__ = ["LocalEnvironment", "outside_sandbox", "sandbox_of"]

_NOTHING_THERE = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.EBADF})


class LocalEnvironment:
    backend = "local"
    is_local = True

    def __init__(self, cwd: Path | None = None, *, sandbox: Sandbox | None = None) -> None:
        self.cwd = Path(cwd) if cwd is not None else Path.cwd()
        self.sandbox = sandbox
        self.label = sandbox.label if sandbox is not None else ""

    def without_sandbox(self) -> LocalEnvironment:
        """This machine with no sandbox: for one call the user approved outside it."""
        return LocalEnvironment(self.cwd)

    @property
    def home(self) -> Path:
        return Path.home()

    # ------------------------------------------------------------------ processes

    def spawn(
        self, command: str, *, cwd: Path, label: str, stdin: int, stdout: Output
    ) -> subprocess.Popen[bytes]:
        def popen(argv: list[str], fds: tuple[int, ...]) -> subprocess.Popen[bytes]:
            return SUPERVISOR.popen(
                argv,
                label=label,
                cwd=str(cwd),
                stdin=stdin,
                stdout=stdout,
                stderr=subprocess.STDOUT,
                env=environment(),
                pass_fds=fds,
            )

        return self._start([shell(), "-c", command], cwd, popen)

    def spawn_argv(
        self, argv: Sequence[str], *, cwd: Path, label: str, stdout: Output, stderr: Output
    ) -> subprocess.Popen[bytes]:
        # A helper the tool itself waits for and kills (ripgrep): not a group of its own, as before.
        def popen(full: list[str], fds: tuple[int, ...]) -> subprocess.Popen[bytes]:
            return subprocess.Popen(
                full, cwd=str(cwd), stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, pass_fds=fds
            )

        return self._start(list(argv), cwd, popen)

    def spawn_program(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        label: str,
        pass_fds: Sequence[int] = (),
    ) -> subprocess.Popen[bytes]:
        def popen(full: list[str], fds: tuple[int, ...]) -> subprocess.Popen[bytes]:
            return SUPERVISOR.popen(
                full,
                label=label,
                cwd=str(cwd),
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(*fds, *pass_fds),
            )

        return self._start(list(argv), cwd, popen)

    def _start(
        self,
        argv: list[str],
        cwd: Path,
        popen: Callable[[list[str], tuple[int, ...]], subprocess.Popen[bytes]],
    ) -> subprocess.Popen[bytes]:
        """`popen` of `argv`, or of it inside the sandbox (started there, with the descriptors it
        inherits)."""
        if self.sandbox is None:
            return popen(argv, ())
        return self.sandbox.start(argv, cwd, popen)

    def stop(self, procs: Sequence[subprocess.Popen[bytes]], grace: float) -> None:
        # The supervisor's children lead their own process group: its id is the leader's pid.
        stop_groups([SUPERVISOR.group(p.pid) for p in procs], grace)
        for proc in procs:
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass

    def finished(self, proc: subprocess.Popen[bytes], left_running: str) -> None:
        SUPERVISOR.ended(proc.pid)
        SUPERVISOR.relabel(proc.pid, left_running)

    def lost(self, proc: subprocess.Popen[bytes]) -> str | None:
        return None

    def which(self, program: str) -> bool:
        return shutil.which(program) is not None

    # ------------------------------------------------------------------ files

    def stat(self, path: Path) -> FileInfo | None:
        try:
            st = os.stat(path)
        except OSError as exc:
            if exc.errno in _NOTHING_THERE:  # what `Path.exists()` reads as "no" too
                return None
            raise
        if stat_module.S_ISREG(st.st_mode):
            kind: Literal["file", "dir", "other"] = "file"
        elif stat_module.S_ISDIR(st.st_mode):
            kind = "dir"
        else:
            kind = "other"
        return FileInfo(kind, st.st_size, stat_module.S_IMODE(st.st_mode))

    def open_read(self, path: Path) -> BinaryIO:
        return open(path, "rb")

    def write_bytes(self, path: Path, data: bytes) -> None:
        target = Path(os.path.realpath(path)) if path.is_symlink() else path
        atomic_write_bytes(target, data)

    def list_dir(self, path: Path) -> list[DirEntry]:
        with os.scandir(path) as it:
            entries = [DirEntry(e.name, e.is_dir(follow_symlinks=False)) for e in it]
        return sorted(entries, key=lambda e: e.name)

    def close(self) -> None:
        pass


def sandbox_of(environment: object) -> Sandbox | None:
    """The OS sandbox `environment`'s commands run in (None: none, or not a local environment)."""
    return environment.sandbox if isinstance(environment, LocalEnvironment) else None


def outside_sandbox(environment: Environment) -> Environment:
    """`environment` without its sandbox, for the one call the user approved outside it."""
    return environment.without_sandbox() if isinstance(environment, LocalEnvironment) else environment

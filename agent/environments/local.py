"""The local backend: commands and files on this machine, exactly as the tools ran them before the seam
(the shell in a process group of its own under the child supervisor; files through `os`). It holds no
process and costs nothing to make."""

from __future__ import annotations

import errno
import os
import shutil
import stat as stat_module
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from agent.children.groups import stop_groups
from agent.children.supervisor import SUPERVISOR
from agent.core.fileio import atomic_write_bytes
from agent.environments.base import DirEntry, FileInfo, Output
from agent.environments.shell import environment, shell

__all__ = ["LocalEnvironment"]

_NOTHING_THERE = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.EBADF})


class LocalEnvironment:
    backend = "local"
    label = ""
    is_local = True

    def __init__(self, cwd: Path | None = None) -> None:
        self.cwd = Path(cwd) if cwd is not None else Path.cwd()

    # ------------------------------------------------------------------ processes

    def spawn(
        self, command: str, *, cwd: Path, label: str, stdin: int, stdout: Output
    ) -> subprocess.Popen[bytes]:
        return SUPERVISOR.popen(
            [shell(), "-c", command],
            label=label,
            cwd=str(cwd),
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.STDOUT,
            env=environment(),
        )

    def spawn_argv(
        self, argv: Sequence[str], *, cwd: Path, label: str, stdout: Output, stderr: Output
    ) -> subprocess.Popen[bytes]:
        # A helper the tool itself waits for and kills (ripgrep): not a group of its own, as before.
        return subprocess.Popen(
            list(argv), cwd=str(cwd), stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr
        )

    def stop(self, procs: Sequence[subprocess.Popen[bytes]], grace: float) -> None:
        # The supervisor's children lead their own process group: its id is the leader's pid.
        stop_groups([p.pid for p in procs], grace)
        for proc in procs:
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass

    def finished(self, proc: subprocess.Popen[bytes], left_running: str) -> None:
        SUPERVISOR.ended(proc.pid)
        SUPERVISOR.relabel(proc.pid, left_running)

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
            kind = "file"
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

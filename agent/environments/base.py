"""The environment seam: what a tool may ask of the place where the session's commands run and its files
live. A Protocol, so the tools see one shape whether that place is this machine, a container or a host
over SSH; each backend is a module of its own (`local`, `docker`, `ssh`)."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, BinaryIO, Literal, Protocol

__all__ = ["DirEntry", "Environment", "EnvironmentUnavailable", "FileInfo", "Output"]

# What a spawned command's output goes to: a pipe (subprocess.PIPE), a file, or DEVNULL.
Output = int | IO[bytes]


@dataclass(frozen=True)
class FileInfo:
    """What a tool needs to know of a path before it reads or writes it (symlinks followed)."""

    kind: Literal["file", "dir", "other"]
    size: int
    mode: int  # permission bits


@dataclass(frozen=True)
class DirEntry:
    name: str
    is_dir: bool  # a directory itself, not a link to one


class EnvironmentUnavailable(Exception):
    """The configured backend cannot be used. `str()` is the one line the user reads: the backend, what
    is missing, and how to fix it or how to choose `local` on purpose. The session does not start."""


class Environment(Protocol):
    """Where one session's commands run and its files are read and written.

    Paths are absolute paths *in the environment* (`ToolContext.resolve` makes them from the model's).
    Processes are `subprocess.Popen` objects of this machine: the command itself (local) or the client
    that runs it there (`ssh`, `docker exec`), always registered with the child supervisor, with stdout
    and stderr merged. `stop` ends the command where it runs, its whole process group.
    """

    backend: str
    """The configuration's name for it: `local`, `docker`, `ssh`."""
    label: str
    """A short label for the status bar and reports (`ssh user@host`, `docker image`); "" for local."""
    is_local: bool
    """Whether its paths are this machine's: code that can only work on local files checks it."""
    cwd: Path
    """The working directory commands start in (in the environment)."""

    @property
    def home(self) -> Path:
        """The home directory there: what `~` in a path the model gives means."""
        ...

    # ------------------------------------------------------------------ processes

    def spawn(
        self, command: str, *, cwd: Path, label: str, stdin: int, stdout: Output
    ) -> subprocess.Popen[bytes]:
        """Start `bash -c command` in `cwd` with a dumb terminal environment, in a process group of its own
        there; stderr goes where stdout goes. Raises OSError when it cannot start."""
        ...

    def spawn_argv(
        self, argv: Sequence[str], *, cwd: Path, label: str, stdout: Output, stderr: Output
    ) -> subprocess.Popen[bytes]:
        """Start a helper program (ripgrep for `search_files`) with stdin from /dev/null. Raises OSError."""
        ...

    def spawn_program(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        label: str,
        pass_fds: Sequence[int] = (),
    ) -> subprocess.Popen[bytes]:
        """Start a program of the tools' own (execute_code's Python) with exactly the variables `env`, stdin
        from /dev/null, stdout and stderr as two pipes, in a process group of its own; `pass_fds`: this
        process's descriptors it inherits (its tool channel, in a sandbox). Raises OSError."""
        ...

    def stop(self, procs: Sequence[subprocess.Popen[bytes]], grace: float) -> None:
        """SIGTERM what each command started, where it runs, SIGKILL what is left after `grace`; all at
        once. Reaps the local processes."""
        ...

    def finished(self, proc: subprocess.Popen[bytes], left_running: str) -> None:
        """The command exited by itself: what it left running stays registered, labelled `left_running`."""
        ...

    def lost(self, proc: subprocess.Popen[bytes]) -> str | None:
        """One line when `proc` ended because the environment went away under it (a dropped connection, a
        stopped container), which the next command restores; None when it did not."""
        ...

    def which(self, program: str) -> bool:
        """Whether `program` is on the environment's PATH."""
        ...

    # ------------------------------------------------------------------ files

    def stat(self, path: Path) -> FileInfo | None:
        """What `path` is (links followed), or None when nothing is there. Raises OSError otherwise."""
        ...

    def open_read(self, path: Path) -> BinaryIO:
        """The file's bytes, to read once from the start. Raises OSError (FileNotFoundError, ...)."""
        ...

    def write_bytes(self, path: Path, data: bytes) -> None:
        """Replace the file atomically (readers see the old or the new bytes), keeping its mode; parents
        are created; a symlink is followed (its target is replaced). Raises OSError."""
        ...

    def list_dir(self, path: Path) -> list[DirEntry]:
        """The directory's entries, sorted by name. Raises OSError."""
        ...

    # ------------------------------------------------------------------ lifetime

    def close(self) -> None:
        """End what the environment holds (a container, a connection). Idempotent; nothing of the
        session's runs there afterwards."""
        ...

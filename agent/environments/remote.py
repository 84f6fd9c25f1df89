"""What the ssh and docker backends share: commands and files somewhere this machine reaches through a
client program (`ssh ... host`, `docker exec ... container`), every operation one short `sh` script there.

A command runs as an `sh -c` script that writes its process group to a file in the session's private
directory *there* and `exec`s the command (sshd and `docker exec` start each command in a session of its
own): Esc, a timeout and the end of the session signal that whole group where it runs (`stop`), not just
the local client. The files are read with `cat`, written
atomically (a temp file beside the target, its mode kept, `mv` over it) and listed with a shell loop: a
POSIX `sh` and coreutils (or busybox) are all a host or an image needs.

A subclass says how to run an argv there (`client_argv`) and keeps its connection or container alive
(`ensure_ready`, `lost`); the client processes are children of the supervisor like any command.
"""

from __future__ import annotations

import errno
import io
import shlex
import subprocess
import threading
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from agent.children.groups import KILL_GRACE, stop_groups
from agent.children.supervisor import SUPERVISOR
from agent.environments.base import DirEntry, EnvironmentUnavailable, FileInfo, Output
from agent.environments.shell import DUMB_TERMINAL

__all__ = ["RemoteEnvironment", "remote_os_error"]

OPERATION_TIMEOUT = 60.0  # seconds a file operation may take before it fails
MAX_READ_BYTES = 256 * 1024 * 1024  # a file read whole through the client: past this it is refused

_STAT = r"""
p=$1
if [ -d "$p" ]; then echo dir
elif [ -f "$p" ]; then printf 'file %s\n' "$(wc -c < "$p" 2>/dev/null)"
elif [ -e "$p" ]; then echo other
else echo none
fi
"""
_WRITE = r"""
set -e
p=$1
if [ -L "$p" ]; then p=$(readlink -f -- "$p"); fi
d=$(dirname -- "$p")
mkdir -p -- "$d"
t=$(mktemp "$d/.hermes-write.XXXXXX")
trap 'rm -f -- "$t"' EXIT
cat > "$t"
if [ -e "$p" ]; then m=$(stat -c %a -- "$p"); else m=$(printf '%o' $(( 0666 & ~$(umask) ))); fi
chmod "$m" "$t"
mv -f -- "$t" "$p"
trap - EXIT
"""
_LIST = r"""
cd -- "$1" || exit 1
for f in * .*; do
  case "$f" in .|..) continue ;; esac
  [ -e "$f" ] || [ -L "$f" ] || continue
  if [ -d "$f" ] && [ ! -L "$f" ]; then printf 'd/%s\0' "$f"; else printf 'f/%s\0' "$f"; fi
done
"""
# Stop the process groups whose pid files are given: SIGTERM, up to the grace in tenths, SIGKILL.
_STOP = r"""
tenths=$1; shift
groups=
for f in "$@"; do
  p=$(cat -- "$f" 2>/dev/null) || continue
  case "$p" in ''|*[!0-9]*) continue ;; esac
  [ "$p" -gt 1 ] || continue
  kill -TERM "-$p" 2>/dev/null && groups="$groups $p"
done
i=0
while [ -n "$groups" ] && [ "$i" -lt "$tenths" ]; do
  alive=
  for p in $groups; do kill -0 "-$p" 2>/dev/null && alive="$alive $p"; done
  groups=$alive
  [ -n "$groups" ] || break
  sleep 0.1; i=$((i + 1))
done
for p in $groups; do kill -KILL "-$p" 2>/dev/null; done
rm -f -- "$@"
"""


def remote_os_error(message: str, path: PurePosixPath | Path) -> OSError:
    """An OSError of the right kind for what a remote `cat`/`mkdir`/`mv` said on stderr."""
    text = message.strip().splitlines()[-1] if message.strip() else "failed"
    for needle, code in (
        ("No such file", errno.ENOENT),
        ("Permission denied", errno.EACCES),
        ("Is a directory", errno.EISDIR),
        ("Not a directory", errno.ENOTDIR),
        ("Read-only file system", errno.EROFS),
        ("No space left", errno.ENOSPC),
    ):
        if needle in text:
            return OSError(code, needle if code != errno.ENOENT else "No such file or directory", str(path))
    return OSError(errno.EIO, text, str(path))


class RemoteEnvironment:
    """The part of an environment that only needs "run this argv there"."""

    is_local = False
    backend = "remote"
    label = ""

    def __init__(self, cwd: Path, *, env: Mapping[str, str] | None = None) -> None:
        self.cwd = cwd
        self.variables = {**DUMB_TERMINAL, **(env or {})}  # set for every command, on top of its own
        self.shell = "sh"  # bash when it is there (`probe`)
        self.home = Path("/")  # $HOME there (`probe`): what `~` in a model's path means
        self.private = f"/tmp/.hermes-tui-{uuid.uuid4().hex[:12]}"  # pid files, there
        self._lock = threading.Lock()
        self._pidfiles: dict[int, str] = {}  # local client pid -> its command's pid file there
        self._closed = False

    # ------------------------------------------------------------------ what a subclass provides

    def client_argv(self, argv: Sequence[str], *, stdin: bool = False) -> list[str]:
        """The local command line that runs `argv` there (stdin forwarded when `stdin`)."""
        raise NotImplementedError

    def ensure_ready(self) -> None:
        """Make sure the connection or container is up (reconnecting, restarting); EnvironmentUnavailable
        when it cannot be."""

    def lost(self, proc: subprocess.Popen[bytes]) -> str | None:
        """One line when `proc` ended because the connection or the container went away (None: it did
        not)."""
        return None

    def close_transport(self) -> None:
        """End the connection or the container (after the session's processes there were stopped)."""

    # ------------------------------------------------------------------ set-up

    def probe(self) -> None:
        """Check that a command runs there, learn its shell, make the private directory: one round trip.
        EnvironmentUnavailable with what went wrong when it does not."""
        script = (
            f"mkdir -p -m 700 {shlex.quote(self.private)} && "
            'if command -v bash >/dev/null 2>&1; then echo bash; else echo sh; fi; echo "${HOME:-/}"'
        )
        try:
            done = self._run(["sh", "-c", script], timeout=OPERATION_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise EnvironmentUnavailable(f"{self.label}: a probe command could not run ({exc})") from exc
        if done.returncode != 0:
            reason = _last_line(done.stderr) or f"exit code {done.returncode}"
            raise EnvironmentUnavailable(f"{self.label}: a probe command failed: {reason}")
        shell, _, home = done.stdout.decode("utf-8", "replace").partition("\n")
        self.shell = "bash" if shell.strip() == "bash" else "sh"
        self.home = Path(home.strip() or "/")

    # ------------------------------------------------------------------ processes

    def _command_script(self, command: str, cwd: Path, pidfile: str) -> str:
        variables = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.variables.items())
        # The file holds the process group the command runs in there (sshd and `docker exec` start it as
        # a session of its own; a login shell that forks before `sh` shares it with us, which is ours too).
        group = "read -r _ _ _ _ g _ < /proc/$$/stat 2>/dev/null || g=$(ps -o pgid= -p $$)"
        # A watch beside it: when what started it there ends (sshd's connection, when the app is killed
        # and its master with it), the command's group is stopped instead of running on unseen, and its
        # file goes (first: the watch is in that group too).
        file, folder = shlex.quote(pidfile), shlex.quote(self.private)
        watch = (
            "p=$PPID; c=$$; ( while kill -0 $p 2>/dev/null && kill -0 $c 2>/dev/null; do sleep 1; done; "
            f'if ! kill -0 $p 2>/dev/null; then rm -f -- {file}; rmdir -- {folder}; kill -TERM "-$g"; fi '
            ") </dev/null >/dev/null 2>&1 &"
        )
        return (
            f"{group}; echo $g > {file}; cd -- {shlex.quote(str(cwd))} || exit 1; {watch} "
            f"exec env {variables} {self.shell} -c {shlex.quote(command)}"
        )

    def spawn(
        self, command: str, *, cwd: Path, label: str, stdin: int, stdout: Output
    ) -> subprocess.Popen[bytes]:
        self._ready_or_oserror()
        pidfile = f"{self.private}/{uuid.uuid4().hex[:12]}.pid"
        argv = self.client_argv(
            ["sh", "-c", self._command_script(command, cwd, pidfile)], stdin=stdin != subprocess.DEVNULL
        )
        proc = SUPERVISOR.popen(
            argv, label=f"{label} ({self.label})", stdin=stdin, stdout=stdout, stderr=subprocess.STDOUT
        )
        with self._lock:
            self._pidfiles[proc.pid] = pidfile
        return proc

    def spawn_argv(
        self, argv: Sequence[str], *, cwd: Path, label: str, stdout: Output, stderr: Output
    ) -> subprocess.Popen[bytes]:
        self._ready_or_oserror()
        remote = ["sh", "-c", 'cd -- "$1" && shift && exec "$@"', "sh", str(cwd), *argv]
        return subprocess.Popen(
            self.client_argv(remote), stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr
        )

    def spawn_program(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: Mapping[str, str],
        label: str,
        pass_fds: Sequence[int] = (),
    ) -> subprocess.Popen[bytes]:
        raise OSError(
            errno.ENOTSUP, f"{label} runs on this machine only, not with the {self.backend} backend"
        )

    def stop(self, procs: Sequence[subprocess.Popen[bytes]], grace: float) -> None:
        with self._lock:
            pidfiles = [self._pidfiles.pop(p.pid) for p in procs if p.pid in self._pidfiles]
        if pidfiles:
            self._stop_there(pidfiles, grace)
        # The local clients (gone by now, mostly).
        stop_groups([SUPERVISOR.group(p.pid) for p in procs], KILL_GRACE)
        for proc in procs:
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass

    def finished(self, proc: subprocess.Popen[bytes], left_running: str) -> None:
        # What the command left running there keeps its pid file, stopped with the rest at close; a group
        # that is gone loses it now (its pid may be another process's by the time the session ends).
        SUPERVISOR.ended(proc.pid)
        with self._lock:
            pidfile = self._pidfiles.pop(proc.pid, None)
        if pidfile is None:
            return
        script = 'p=$(cat -- "$1" 2>/dev/null) && kill -0 "-$p" 2>/dev/null || rm -f -- "$1"'
        try:
            self._run(["sh", "-c", script, "sh", pidfile], timeout=15)
        except (OSError, subprocess.TimeoutExpired):
            pass

    def _stop_there(self, pidfiles: Sequence[str], grace: float) -> None:
        argv = ["sh", "-c", _STOP, "sh", str(max(1, int(grace * 10))), *pidfiles]
        try:
            self._run(argv, timeout=grace + 15)
        except (OSError, subprocess.TimeoutExpired):
            pass  # the connection is gone: so is the way to them; the transport's end takes the rest

    def which(self, program: str) -> bool:
        try:
            done = self._run(["sh", "-c", 'command -v -- "$1" >/dev/null 2>&1', "sh", program])
        except (OSError, subprocess.TimeoutExpired):
            return False
        return done.returncode == 0

    # ------------------------------------------------------------------ files

    def stat(self, path: Path) -> FileInfo | None:
        done = self._file_op(["sh", "-c", _STAT, "sh", str(path)], path)
        words = done.stdout.decode("utf-8", "replace").split()
        kind = words[0] if words else "none"
        if kind == "none":
            return None
        if kind == "file":
            size = int(words[1]) if len(words) > 1 and words[1].isdigit() else 0
            return FileInfo("file", size, 0)
        return FileInfo("dir" if kind == "dir" else "other", 0, 0)

    def open_read(self, path: Path) -> BinaryIO:
        done = self._file_op(["sh", "-c", 'exec cat -- "$1"', "sh", str(path)], path)
        if len(done.stdout) > MAX_READ_BYTES:
            raise OSError(errno.EFBIG, "File too large to read through the environment", str(path))
        return io.BytesIO(done.stdout)

    def write_bytes(self, path: Path, data: bytes) -> None:
        self._file_op(["sh", "-c", _WRITE, "sh", str(path)], path, data=data)

    def list_dir(self, path: Path) -> list[DirEntry]:
        done = self._file_op(["sh", "-c", _LIST, "sh", str(path)], path)
        entries = []
        for item in done.stdout.split(b"\0"):
            if len(item) > 2:
                name = item[2:].decode("utf-8", "surrogateescape")
                entries.append(DirEntry(name, item[:1] == b"d"))
        return sorted(entries, key=lambda e: e.name)

    def _file_op(
        self, argv: list[str], path: Path, *, data: bytes | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        self._ready_or_oserror()
        try:
            done = self._run(argv, data=data, timeout=OPERATION_TIMEOUT)
        except subprocess.TimeoutExpired as exc:
            raise OSError(
                errno.ETIMEDOUT, f"no answer from {self.label} within {OPERATION_TIMEOUT:.0f} s", str(path)
            ) from exc
        if done.returncode != 0:
            raise remote_os_error(done.stderr.decode("utf-8", "replace") or self._why_failed(), path)
        return done

    def _why_failed(self) -> str:
        return f"the {self.backend} connection failed"

    def _run(
        self, argv: Sequence[str], *, data: bytes | None = None, timeout: float = OPERATION_TIMEOUT
    ) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            self.client_argv(argv, stdin=data is not None),
            input=data,
            stdin=None if data is not None else subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
        )

    def _ready_or_oserror(self) -> None:
        if self._closed:
            raise OSError(errno.ESHUTDOWN, f"the {self.backend} environment is closed")
        try:
            self.ensure_ready()
        except EnvironmentUnavailable as exc:
            raise OSError(errno.ECONNREFUSED, str(exc)) from exc

    # ------------------------------------------------------------------ lifetime

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            pidfiles = list(self._pidfiles.values())
            self._pidfiles.clear()
        try:
            # Everything the session started there, what commands left running included, then the folder.
            script = f'for f in {shlex.quote(self.private)}/*.pid; do [ -e "$f" ] && echo "$f"; done'
            listed = self._run(["sh", "-c", script], timeout=15).stdout.decode("utf-8", "replace").split()
            everything = list(dict.fromkeys([*pidfiles, *listed]))
            if everything:
                self._stop_there(everything, KILL_GRACE)
            self._run(["rm", "-rf", "--", self.private], timeout=15)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.close_transport()


def _last_line(data: bytes) -> str:
    lines = [line.strip() for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1] if lines else ""

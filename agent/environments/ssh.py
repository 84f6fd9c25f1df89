"""The ssh backend: commands and files on another host, through the system's OpenSSH client.

One ControlMaster connection per session (`ssh -M -N`, a child of the supervisor, so the reaper closes it
however the app ends); its socket is in a private folder of this session (mode 0700, under /tmp: a socket
path has at most 107 bytes). Every command and file operation is a client on that socket (`-S`), so it
costs no new login. `BatchMode=yes`: the app never asks for a password or a passphrase in the middle of
the screen (a key, an agent or a config entry does it); an unknown host key is accepted the first time and
checked after (Hermes' `StrictHostKeyChecking=accept-new`). A connection that dies is started again before
the next command; the command that was running when it died says so in one line.

Why OpenSSH and not asyncssh/paramiko: it is what the user's `~/.ssh/config`, keys, agent, known hosts,
jump hosts and Kerberos already work with, multiplexing is built in, and it adds no dependency.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path

from agent.children.supervisor import SUPERVISOR
from agent.environments.base import EnvironmentUnavailable
from agent.environments.remote import RemoteEnvironment

__all__ = ["SshEnvironment"]

CONNECT_TIMEOUT = 10  # seconds, ssh's ConnectTimeout
READY_TIMEOUT = 20.0  # seconds for the master to be up (login included)
FIX = "or choose `terminal.backend: local` on purpose"


class SshEnvironment(RemoteEnvironment):
    backend = "ssh"

    def __init__(
        self,
        host: str,
        *,
        user: str = "",
        port: int = 22,
        key: str = "",
        cwd: str = "",
        env: dict[str, str] | None = None,
    ) -> None:
        self.host, self.user, self.port, self.key = host, user, port, key
        target = f"{user}@{host}" if user else host
        self.label = f"ssh {target}" + (f":{port}" if port != 22 else "")
        self._wanted_cwd = cwd
        super().__init__(Path(cwd or "/"), env=env)
        _sweep_stale_folders()
        self._folder = Path(
            tempfile.mkdtemp(prefix="hermes-ssh-", dir="/tmp" if os.path.isdir("/tmp") else None)
        )
        self.socket = self._folder / "cm"
        self._master: subprocess.Popen[bytes] | None = None
        self._master_errors: deque[str] = deque(maxlen=20)
        self._connect_lock = threading.Lock()
        self._dropped: set[int] = set()  # clients whose connection was lost (said once each)

    # ------------------------------------------------------------------ opening

    def open(self) -> None:
        """Connect, check a command runs, find the working directory. EnvironmentUnavailable (one line)."""
        if not self.host:
            raise EnvironmentUnavailable(
                f"terminal.backend is ssh but terminal.ssh_host is not set: set it, {FIX}"
            )
        if shutil.which("ssh") is None:
            raise EnvironmentUnavailable(
                "terminal.backend is ssh but the OpenSSH client (ssh) is not installed: install "
                f"openssh-client, {FIX}"
            )
        if self.key and not Path(self.key).expanduser().is_file():
            raise EnvironmentUnavailable(
                f"{self.label}: terminal.ssh_key {self.key} is not a file: fix it, {FIX}"
            )
        self.ensure_ready()
        self.probe()
        self.cwd = Path(self._remote_cwd())

    def _remote_cwd(self) -> str:
        """terminal.cwd there: an absolute path as it is; `~`, `~/x` and a relative path from the remote
        home; nothing: the remote home (Hermes' default for ssh)."""
        wanted = self._wanted_cwd or "~"
        relative = wanted.removeprefix("~").lstrip("/") or "." if not wanted.startswith("/") else wanted
        done = self._run(["sh", "-c", 'cd && cd -- "$1" 2>/dev/null && pwd', "sh", relative])
        where = done.stdout.decode("utf-8", "replace").strip()
        if done.returncode != 0 or not where:
            raise EnvironmentUnavailable(
                f"{self.label}: terminal.cwd {wanted} does not exist there: fix it, {FIX}"
            )
        return where

    def _base_argv(self) -> list[str]:
        argv = ["ssh", "-o", f"ControlPath={self.socket}", "-o", "BatchMode=yes"]
        argv += ["-o", "StrictHostKeyChecking=accept-new", "-o", f"ConnectTimeout={CONNECT_TIMEOUT}"]
        if self.port != 22:
            argv += ["-p", str(self.port)]
        if self.key:
            argv += ["-i", str(Path(self.key).expanduser())]
        if self.user:
            argv += ["-l", self.user]
        return argv

    def ensure_ready(self) -> None:
        with self._connect_lock:
            if self._master is not None and self._master.poll() is None and self.socket.exists():
                return
            self._start_master()

    def _start_master(self) -> None:
        if self._master is not None:
            SUPERVISOR.stop(self._master.pid)
        try:
            self.socket.unlink()
        except FileNotFoundError:
            pass
        argv = [*self._base_argv(), "-M", "-N", "-o", "ControlPersist=no"]
        argv += [
            "-o",
            "ServerAliveInterval=15",
            "-o",
            "ServerAliveCountMax=3",
            "-o",
            "ExitOnForwardFailure=yes",
        ]
        try:
            master = SUPERVISOR.popen(
                [*argv, self.host],
                label=f"ssh connection ({self.label})",
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
        except OSError as exc:
            raise EnvironmentUnavailable(f"{self.label}: ssh could not start ({exc}); {FIX}") from exc
        self._master = master
        self._master_errors.clear()
        threading.Thread(
            target=self._drain_errors, args=(master,), name="ssh-master-stderr", daemon=True
        ).start()
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if master.poll() is not None:
                break
            if self.socket.exists() and self._check():
                return
            time.sleep(0.05)
        SUPERVISOR.stop(master.pid)
        master.wait()
        time.sleep(0.05)  # the stderr reader's last lines
        reason = next((line for line in reversed(self._master_errors) if line), "") or "no connection"
        raise EnvironmentUnavailable(
            f"{self.label}: cannot connect: {reason}. Check the host, the key and "
            f"that `ssh {self.host}` works without a prompt, {FIX}"
        )

    def _drain_errors(self, master: subprocess.Popen[bytes]) -> None:
        assert master.stderr is not None
        for raw in master.stderr:
            self._master_errors.append(raw.decode("utf-8", "replace").strip())

    def _check(self) -> bool:
        """Whether the master answers on its socket."""
        try:
            done = subprocess.run(
                [*self._base_argv(), "-O", "check", self.host],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=10,
            )
        except (OSError, subprocess.TimeoutExpired):
            return False
        return done.returncode == 0

    # ------------------------------------------------------------------ the seam's parts

    def client_argv(self, argv: Sequence[str], *, stdin: bool = False) -> list[str]:
        remote = " ".join(shlex.quote(a) for a in argv)
        return [
            *self._base_argv(),
            "-o",
            "ControlMaster=no",
            *([] if stdin else ["-n"]),
            self.host,
            "--",
            remote,
        ]

    def lost(self, proc: subprocess.Popen[bytes]) -> str | None:
        if proc.returncode != 255:  # ssh's own failures; a command's codes are its own
            return None
        master = self._master
        # A dropped master may not have exited yet: it is asked (only after a 255).
        if master is None or master.poll() is not None or not self._check():
            where = self.label.removeprefix("ssh ")
            return f"[the ssh connection to {where} was lost during the command; the next command reconnects]"
        return None

    def close_transport(self) -> None:
        master, self._master = self._master, None
        if master is not None:
            try:
                subprocess.run(
                    [*self._base_argv(), "-O", "exit", self.host],
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    timeout=5,
                )
            except (OSError, subprocess.TimeoutExpired):
                pass
            SUPERVISOR.stop(master.pid)
            try:
                master.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        shutil.rmtree(self._folder, ignore_errors=True)


STALE_AFTER = 60.0  # seconds: an empty connection folder older than this belongs to no live session


def _sweep_stale_folders() -> None:
    """The empty connection folders of sessions that ended without closing (the app killed -9: the reaper
    ends the master, which takes its socket with it, but not the folder). `rmdir` removes only an empty
    one, and a live session's holds its socket."""
    root = Path("/tmp")
    try:
        candidates = [p for p in root.iterdir() if p.name.startswith("hermes-ssh-")]
    except OSError:
        return
    now = time.time()
    for folder in candidates:
        try:
            info = folder.stat()
            if now - info.st_mtime > STALE_AFTER and info.st_uid == os.getuid():
                folder.rmdir()
        except OSError:
            continue

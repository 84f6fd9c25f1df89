"""The docker backend: commands and files in a container, through the `docker` CLI (a real Docker, or
Podman behind its socket) or `podman` itself when that is what is installed.

One container per session, started once (`docker run` of the image with a shell that only waits) and
entered by every command (`docker exec`). The `docker run` client stays attached for the container's life
and is a child of the supervisor: when the app ends in any way, kill -9 included, the reaper's SIGTERM to
that client is forwarded to the container (`--sig-proxy`, the default), whose waiting shell exits, and the
container stops (and, started with `--rm`, is removed). At the end of a session the same happens in order.
With `container_persistent` (Hermes' default) the container is named for the working directory and the
image and kept, stopped: the next session in that directory starts it again with everything that was
installed or written in it. A container that stops while a command runs is said in one line and started
again before the next command.

Hermes' keys: `docker_image`, `docker_volumes`, `docker_env`, `docker_forward_env`, `env_passthrough`,
`docker_mount_cwd_to_workspace`, `docker_network`, `docker_extra_args`, `docker_run_as_host_user`,
`container_cpu`, `container_memory`, `container_persistent`.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import threading
import time
import uuid
from collections import deque
from collections.abc import Mapping, Sequence
from pathlib import Path

from agent.children.supervisor import SUPERVISOR
from agent.config.terminal import TerminalSettings
from agent.environments.base import EnvironmentUnavailable
from agent.environments.remote import RemoteEnvironment

__all__ = ["DockerEnvironment", "container_engine"]

READY_LINE = b"hermes-tui-container-ready"
START_TIMEOUT = 300.0  # seconds for the container to be up (a first pull of the image included)
FIX = "or choose `terminal.backend: local` on purpose"
# The container's first process: says it is ready, then waits; SIGTERM (from the attached client) ends it.
_WAIT = f'trap "exit 0" TERM INT HUP; echo {READY_LINE.decode()}; while :; do sleep 3600 & wait $!; done'
# Hermes' hardening (tools/environments/docker.py), the tmpfs sizes included.
_SECURITY = [
    "--cap-drop", "ALL", "--cap-add", "DAC_OVERRIDE", "--cap-add", "CHOWN", "--cap-add", "FOWNER",
    "--cap-add", "KILL", "--security-opt", "no-new-privileges",
    "--tmpfs", "/tmp:rw,nosuid,size=512m", "--tmpfs", "/var/tmp:rw,noexec,nosuid,size=256m",
]  # fmt: skip
_PRIVDROP = ["--cap-add", "SETUID", "--cap-add", "SETGID"]


def container_engine() -> str | None:
    """`docker` when it is installed and its daemon answers, else `podman` when installed, else None (with
    a `docker` that has no daemon and no podman: that docker, so the error names what is missing)."""
    docker = shutil.which("docker")
    if docker is not None:
        try:
            answered = subprocess.run(
                [docker, "version", "--format", "{{.Server.Version}}"], capture_output=True, timeout=15
            )
        except (OSError, subprocess.TimeoutExpired):
            answered = None
        if answered is not None and answered.returncode == 0:
            return docker
    podman = shutil.which("podman")
    return podman or docker


class DockerEnvironment(RemoteEnvironment):
    backend = "docker"

    def __init__(
        self, settings: TerminalSettings, *, host_cwd: Path, environ: Mapping[str, str] | None = None
    ) -> None:
        self.settings = settings
        self.host_cwd = host_cwd
        self.label = f"docker {settings.docker_image}"
        environ = os.environ if environ is None else environ
        forwarded = {
            k: environ[k] for k in (*settings.docker_forward_env, *settings.env_passthrough) if environ.get(k)
        }
        self.container_env = {**settings.docker_env, **forwarded}
        default = "/workspace" if settings.docker_mount_cwd_to_workspace else "/root"
        wanted = (
            settings.cwd if settings.cwd.startswith("/") else default
        )  # a host-relative path means nothing there
        super().__init__(Path(wanted))
        self.engine = ""
        persistent = settings.container_persistent
        key = f"{host_cwd}\0{settings.docker_image}\0{settings.docker_mount_cwd_to_workspace}"
        suffix = (
            hashlib.sha256(key.encode()).hexdigest()[:12]
            if persistent
            else f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        )
        self.name = f"hermes-tui-{suffix}"
        self._holder: subprocess.Popen[bytes] | None = None
        self._holder_errors: deque[str] = deque(maxlen=30)
        self._start_lock = threading.Lock()
        self._shared = (
            False  # the persistent container was already running (another session's): not ours to stop
        )

    # ------------------------------------------------------------------ opening

    def open(self) -> None:
        engine = container_engine()
        if engine is None:
            raise EnvironmentUnavailable(
                f"terminal.backend is docker but neither docker nor podman is installed: install one, {FIX}"
            )
        self.engine = engine
        self.ensure_ready()
        self.probe()
        if self.settings.cwd.startswith("/") or self.settings.docker_mount_cwd_to_workspace:
            done = self._run(["sh", "-c", 'mkdir -p -- "$1"', "sh", str(self.cwd)])
            if done.returncode != 0:
                raise EnvironmentUnavailable(
                    f"{self.label}: terminal.cwd {self.cwd} cannot be made there: fix it, {FIX}"
                )

    def run_argv(self) -> list[str]:
        """`docker run` for the session's container (without the image's command)."""
        s = self.settings
        argv = [self.engine, "run", "--name", self.name, "--label", "hermes-tui=1"]
        if not s.container_persistent:
            argv.append("--rm")
        argv += _SECURITY
        if s.docker_run_as_host_user:
            argv += ["--user", f"{os.getuid()}:{os.getgid()}"]
        else:
            argv += _PRIVDROP
        if s.container_cpu > 0:
            argv += ["--cpus", f"{s.container_cpu:g}"]
        if s.container_memory > 0:
            argv += ["--memory", f"{s.container_memory}m"]
        if not s.docker_network:
            argv.append("--network=none")
        volumes = [v.strip() for v in s.docker_volumes if isinstance(v, str) and ":" in v]
        if s.docker_mount_cwd_to_workspace and not any(":/workspace" in v for v in volumes):
            volumes.insert(0, f"{self.host_cwd}:/workspace")
        for volume in volumes:
            argv += ["-v", volume]
        for key, value in self.container_env.items():
            argv += ["-e", f"{key}={value}"]
        argv += list(s.docker_extra_args)
        return [*argv, "--entrypoint", "sh", s.docker_image, "-c", _WAIT]

    def ensure_ready(self) -> None:
        with self._start_lock:
            if self._shared or (self._holder is not None and self._holder.poll() is None and self._running()):
                return
            self._start()

    def _running(self) -> bool:
        done = subprocess.run(
            [self.engine, "inspect", "-f", "{{.State.Running}}", self.name], capture_output=True, timeout=30
        )
        return done.returncode == 0 and done.stdout.strip() == b"true"

    def _start(self) -> None:
        if self._holder is not None:
            SUPERVISOR.stop(self._holder.pid)
            self._holder = None
        argv = self.run_argv()
        if self.settings.container_persistent:
            state = subprocess.run(
                [self.engine, "inspect", "-f", "{{.State.Running}}", self.name],
                capture_output=True,
                timeout=30,
            )
            if state.returncode == 0 and state.stdout.strip() == b"true":
                self._shared = True  # another session of this directory has it running: use it, leave it
                return
            if state.returncode == 0:
                argv = [self.engine, "start", "-a", self.name]  # kept from an earlier session
        try:
            holder = SUPERVISOR.popen(
                argv,
                label=f"container {self.name} ({self.label})",
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as exc:
            raise EnvironmentUnavailable(
                f"{self.label}: {self.engine} could not start ({exc}); {FIX}"
            ) from exc
        self._holder = holder
        self._holder_errors.clear()
        ready = threading.Event()
        threading.Thread(
            target=self._watch, args=(holder, ready), name="container-holder", daemon=True
        ).start()
        threading.Thread(
            target=self._drain_errors, args=(holder,), name="container-stderr", daemon=True
        ).start()
        deadline = time.monotonic() + START_TIMEOUT
        while not ready.wait(0.05):
            if holder.poll() is not None or time.monotonic() > deadline:
                SUPERVISOR.stop(holder.pid)
                holder.wait()
                time.sleep(0.05)  # the stderr reader's last lines
                raise EnvironmentUnavailable(
                    f"{self.label}: the container did not start: {self._reason()}; {FIX}"
                )

    def _watch(self, holder: subprocess.Popen[bytes], ready: threading.Event) -> None:
        assert holder.stdout is not None
        for line in holder.stdout:
            if READY_LINE in line:
                ready.set()

    def _drain_errors(self, holder: subprocess.Popen[bytes]) -> None:
        assert holder.stderr is not None
        for raw in holder.stderr:
            self._holder_errors.append(raw.decode("utf-8", "replace").strip())

    def _reason(self) -> str:
        lines = [line for line in self._holder_errors if line]
        if not lines:
            return "no reason given"
        text = re.sub(r"^(Error: |docker: )", "", lines[-1])
        if "Cannot connect to the Docker daemon" in text or "docker daemon" in text.lower():
            return f"{text} (is the Docker daemon running?)"
        return text

    # ------------------------------------------------------------------ the seam's parts

    def client_argv(self, argv: Sequence[str], *, stdin: bool = False) -> list[str]:
        return [self.engine, "exec", *(["-i"] if stdin else []), self.name, *argv]

    def lost(self, proc: subprocess.Popen[bytes]) -> str | None:
        if proc.returncode in (0, None) or self._shared:
            return None
        holder = self._holder
        # The holding client may not have seen the container stop yet: the engine is asked (only for a
        # command that failed).
        if holder is None or holder.poll() is not None or not self._running():
            return f"[the container {self.name} stopped during the command; the next command starts it again]"
        return None

    def _why_failed(self) -> str:
        return f"{self.engine} exec into {self.name} failed"

    def close_transport(self) -> None:
        holder, self._holder = self._holder, None
        if holder is None or self._shared:
            return
        SUPERVISOR.stop(holder.pid)  # SIGTERM, forwarded to the container: it stops (and goes, with --rm)
        try:
            holder.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        # The client may be gone before the engine finished: make sure, without waiting on its grace.
        subprocess.run([self.engine, "stop", "-t", "1", self.name], capture_output=True, timeout=30)
        if not self.settings.container_persistent:
            subprocess.run([self.engine, "rm", "-f", self.name], capture_output=True, timeout=30)

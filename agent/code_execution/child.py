"""The script's process: a child Python in the session's working directory, in its own process group,
watched for its end, the time limit and the interrupt, its output kept within Hermes' caps.

stdout keeps its first 40% and last 60% of `MAX_STDOUT_BYTES` (a script's final print is what matters
most), counting what was dropped; stderr keeps its head. The environment is the parent's without
anything that looks like a secret (Hermes' rule: the script reaches tools through the channel, never with
the agent's keys). Killing takes the whole group: what the script started dies with it. The group is the
supervisor's (`agent.children`) while it runs, so it is stopped also when the app dies mid-script.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from agent.children.groups import KILL_GRACE

if TYPE_CHECKING:
    from agent.environments import Environment

__all__ = ["MAX_STDERR_BYTES", "MAX_STDOUT_BYTES", "ScriptOutcome", "child_environment", "run_script"]

MAX_STDOUT_BYTES = 50_000
MAX_STDERR_BYTES = 10_000
POLL_SLICE = 0.05
READER_GRACE = 3.0

_SAFE_PREFIXES = (
    "PATH", "HOME", "USER", "LANG", "LC_", "TERM", "TMPDIR", "TMP", "TEMP", "SHELL", "LOGNAME", "XDG_",
    "PYTHONPATH", "VIRTUAL_ENV", "CONDA",
)  # fmt: skip
_SECRET_PARTS = (
    "KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "PASSWD", "AUTH", "DSN", "WEBHOOK", "CREDS", "BEARER",
    "APIKEY",
)  # fmt: skip
_HERMES_ALLOWED = frozenset({"HERMES_HOME", "HERMES_PROFILE", "HERMES_CONFIG", "HERMES_ENV"})


@dataclass(frozen=True)
class ScriptOutcome:
    status: str  # success | error | timeout | interrupted
    exit_code: int
    stdout: str  # the head and tail, with Hermes' truncation note between them when cut
    stdout_total: int
    stdout_captured: int
    stderr: str
    duration: float

    @property
    def truncated(self) -> bool:
        return self.stdout_total > self.stdout_captured


def child_environment(
    source: dict[str, str], *, modules: Path, socket_path: Path, token: str, rpc_fd: int | None = None
) -> dict[str, str]:
    """The script's environment: the safe part of `source`, the channel's address (or, in the OS sandbox,
    the descriptor of its end: `rpc_fd`), `modules` importable."""
    env: dict[str, str] = {}
    for name, value in source.items():
        if any(part in name.upper() for part in _SECRET_PARTS):
            continue
        if name.startswith(_SAFE_PREFIXES) or name in _HERMES_ALLOWED:
            env[name] = value
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(modules), env.get("PYTHONPATH", "")) if p)
    env.update(
        {
            "HERMES_RPC_SOCKET": str(socket_path),
            "HERMES_RPC_TOKEN": token,
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONIOENCODING": "utf-8",
            "PYTHONUTF8": "1",
            "PYTHONUNBUFFERED": "1",
        }
    )
    if rpc_fd is not None:
        env["HERMES_RPC_FD"] = str(rpc_fd)
    return env


def child_python() -> str:
    """The active virtualenv's python (project dependencies resolve), else our own (Hermes' project mode)."""
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        root = os.environ.get(var, "").strip()
        for name in ("python", "python3"):
            candidate = Path(root, "bin", name)
            if root and candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return sys.executable


class _HeadTail:
    """A stream's first `head` bytes and last `tail` bytes, and how many there were."""

    def __init__(self, head: int, tail: int) -> None:
        self.head_limit, self.tail_limit = head, tail
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data or self.tail_limit <= 0:
            return
        self.tail.append(data)
        self.tail_size += len(data)
        while self.tail and self.tail_size - len(self.tail[0]) >= self.tail_limit:
            self.tail_size -= len(self.tail.popleft())

    def text(self) -> tuple[str, int]:
        tail = b"".join(self.tail)[-self.tail_limit :] if self.tail_limit > 0 else b""
        captured = len(self.head) + len(tail)
        if self.total <= captured:
            return (bytes(self.head) + tail).decode("utf-8", errors="replace"), self.total
        omitted = self.total - captured
        note = f"\n\n... [OUTPUT TRUNCATED - {omitted:,} bytes omitted out of {self.total:,} total] ...\n\n"
        return self.head.decode("utf-8", errors="replace") + note + tail.decode(
            "utf-8", errors="replace"
        ), captured


def _drain(pipe: IO[bytes], sink: _HeadTail) -> None:
    try:
        while data := os.read(pipe.fileno(), 65536):
            sink.feed(data)
    except (OSError, ValueError):
        pass


def run_script(
    script: Path,
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    interrupt: threading.Event,
    environment: Environment,
    pass_fds: tuple[int, ...] = (),
) -> ScriptOutcome:
    """Run `script` to its end, its time limit or the interrupt, whichever comes first. `pass_fds`: the
    descriptors it inherits (its tool channel's end, in the OS sandbox)."""
    started = time.monotonic()
    proc = environment.spawn_program(
        [child_python(), str(script)], cwd=cwd, env=env, label="execute_code script", pass_fds=pass_fds
    )
    assert proc.stdout is not None and proc.stderr is not None
    out = _HeadTail(int(MAX_STDOUT_BYTES * 0.4), MAX_STDOUT_BYTES - int(MAX_STDOUT_BYTES * 0.4))
    err = _HeadTail(MAX_STDERR_BYTES, 0)
    readers = [
        threading.Thread(target=_drain, args=(proc.stdout, out), daemon=True, name="execute_code-stdout"),
        threading.Thread(target=_drain, args=(proc.stderr, err), daemon=True, name="execute_code-stderr"),
    ]
    for reader in readers:
        reader.start()
    status = "success"
    deadline = started + timeout
    while True:
        try:
            proc.wait(timeout=POLL_SLICE)
            break
        except subprocess.TimeoutExpired:
            pass
        if interrupt.is_set():
            status = "interrupted"
            break
        if time.monotonic() >= deadline:
            status = "timeout"
            break
    # Also after a clean exit: whatever the script left running in its group goes with it.
    environment.stop([proc], KILL_GRACE)
    environment.finished(proc, "execute_code script")
    for reader in readers:
        reader.join(READER_GRACE)
    stdout, captured = out.text()
    stderr, _ = err.text()
    exit_code = proc.returncode if proc.returncode is not None else -1
    if status == "success" and exit_code != 0:
        status = "error"
    return ScriptOutcome(status, exit_code, stdout, out.total, captured, stderr, time.monotonic() - started)

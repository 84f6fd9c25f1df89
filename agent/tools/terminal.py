"""The `terminal` tool: run a shell command in the session's working directory.

The command runs in its own process group (so an interrupt or a timeout can kill everything it started),
with stdin from /dev/null and a dumb terminal environment (no pagers, no colours). Output is read by a
thread as it is produced, cleaned (escape sequences and control characters removed) and streamed to the
UI through `ctx.emit_output`; the result keeps at most `OUTPUT_CAP` characters (40% head, 60% tail).
"""

from __future__ import annotations

import codecs
import math
import os
import select
import subprocess
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from agent.toolkit.registry import Tool, ToolContext, ToolResult
from agent.toolkit.truncate import HEAD_FRACTION, join_head_tail
from agent.tools.shell_process import StreamCleaner, clean_output

__all__ = ["TERMINAL_TOOL", "TOOLS", "TerminalArgs", "clean_output", "run_terminal"]
_StreamCleaner = StreamCleaner  # the name the tests have used

if TYPE_CHECKING:
    from collections.abc import Callable

    from agent.environments import Environment

DEFAULT_TIMEOUT = 180
MAX_TIMEOUT = 600
OUTPUT_CAP = 50_000
# The output itself gets slightly less, so that the whole result (marker, notes, exit line) stays within
# OUTPUT_CAP and the executor's own 50,000-character budget never cuts it a second time.
OUTPUT_BODY_CAP = OUTPUT_CAP - 400
# Live output streamed to the UI stops after this many characters (the result still keeps head + tail):
# a runaway `yes` must not flood the event queue with gigabytes.
STREAM_LIMIT = 1_000_000
POLL_INTERVAL = 0.05
KILL_GRACE = 2.0  # SIGTERM -> SIGKILL
# After the shell exits (or is killed), how long to wait for the output pipe to reach EOF. Processes left in
# the background that still hold the pipe would otherwise keep the call open forever.
READER_GRACE = 0.5
EXIT_INTERRUPTED = 130
EXIT_TIMEOUT = 124


class TerminalArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")

    command: str = Field(
        description=(
            "The shell command to run (bash -c). Runs non-interactively: stdin is empty, there is no TTY, "
            "pagers are disabled. Chain steps with && and use flags like -y / --no-pager for tools that "
            "would otherwise prompt."
        )
    )
    timeout: int | None = Field(
        default=None,
        description=(
            f"Seconds before the command is killed (default: the terminal.timeout setting, "
            f"{DEFAULT_TIMEOUT} unless set; maximum {MAX_TIMEOUT}). "
            "On timeout the whole process group is killed and exit code 124 is reported."
        ),
    )
    workdir: str | None = Field(
        default=None,
        description=(
            "Directory to run in, relative to the session's working directory (or absolute). "
            "Defaults to the session's working directory. Prefer this over `cd dir && ...`."
        ),
    )
    background: bool = Field(
        default=False,
        description=(
            "Start the command in the background and return at once with a process id and its first lines "
            "(servers, watchers, long builds). Manage it with the process tool; its stdin is a pipe you can "
            "write to. It keeps running across turns and is stopped when hermes-tui exits."
        ),
    )


DESCRIPTION = (
    "Run a shell command on the user's machine and return its combined stdout/stderr and exit code. "
    "Use it to build, test, run scripts, use git, install packages and inspect the system. Prefer "
    "read_file / search_files / write_file / patch for reading, searching and editing files. "
    f"Output longer than {OUTPUT_CAP:,} characters is cut in the middle (start and end kept): filter noisy "
    "output (grep, head, tail, --quiet). Commands must not wait for input. For a long-running process (a dev "
    "server, a watcher) use background=true and the process tool, not `&`."
)


class _HeadTailBuffer:
    """Keeps the whole output while it is small, then only its head and its tail: memory stays bounded."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.head_len = int(cap * HEAD_FRACTION)
        self.tail_len = cap - self.head_len
        self.total = 0
        self._head: str | None = None
        self._parts: list[str] = []
        self._size = 0

    def add(self, text: str) -> None:
        if not text:
            return
        self.total += len(text)
        self._parts.append(text)
        self._size += len(text)
        if self._size > 2 * self.cap + 65536:
            joined = "".join(self._parts)
            if self._head is None:
                self._head = joined[: self.head_len]
                joined = joined[self.head_len :]
            tail = joined[-self.tail_len :]
            self._parts = [tail]
            self._size = len(tail)

    @property
    def truncated(self) -> bool:
        return self.total > self.cap

    def text(self) -> str:
        body = "".join(self._parts)
        if self._head is None:
            if len(body) <= self.cap:
                return body
            head, rest = body[: self.head_len], body[self.head_len :]
        else:
            head, rest = self._head, body
        tail = rest[-self.tail_len :]
        return join_head_tail(head, tail, self.total - len(head) - len(tail))


class _OutputReader(threading.Thread):
    """Reads the merged stdout/stderr pipe until EOF, cleaning, collecting and streaming each chunk.

    `detach()` makes it stop collecting and streaming (the call is returning); it keeps draining the pipe
    in the background until EOF so that background processes still writing to it are not killed by SIGPIPE.
    """

    def __init__(self, fd: int, emit: Callable[[str], None], cap: int) -> None:
        super().__init__(name="terminal-output", daemon=True)
        self._fd = fd
        self._emit = emit
        self.buffer = _HeadTailBuffer(cap)
        self._lock = threading.Lock()
        self._detached = False
        self.eof = threading.Event()
        self._streamed = 0
        self._stream_stopped = False

    def run(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        cleaner = StreamCleaner()
        poller = select.poll()  # not select.select: that fails for descriptors above FD_SETSIZE
        poller.register(self._fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        try:
            while True:
                try:
                    ready = poller.poll(POLL_INTERVAL * 1000)
                except InterruptedError:
                    continue
                except OSError:
                    break
                if not ready:
                    continue
                try:
                    data = os.read(self._fd, 65536)
                except OSError:
                    break
                if not data:
                    break
                if self._detached:
                    continue  # draining for background processes only
                self._handle(cleaner.feed(decoder.decode(data)))
            self._handle(cleaner.feed(decoder.decode(b"", final=True)) + cleaner.flush())
        finally:
            try:
                os.close(self._fd)
            except OSError:
                pass
            self.eof.set()

    def _handle(self, text: str) -> None:
        if not text:
            return
        with self._lock:
            if self._detached:
                return
            self.buffer.add(text)
        if self._stream_stopped:
            return
        if self._streamed + len(text) > STREAM_LIMIT:
            self._stream_stopped = True
            self._safe_emit(
                text[: max(0, STREAM_LIMIT - self._streamed)]
                + "\n[... live output paused: too much output; the result keeps its start and end ...]\n"
            )
            return
        self._streamed += len(text)
        self._safe_emit(text)

    def _safe_emit(self, text: str) -> None:
        try:
            self._emit(text)
        except Exception:
            pass

    def detach(self) -> None:
        with self._lock:
            self._detached = True


# --------------------------------------------------------------------------------------------------------
# The handler


def configured_timeout(ctx: ToolContext) -> int:
    """The session's default for a command the model gave no timeout: `terminal.timeout` (whole seconds,
    at least 1)."""
    if ctx.settings is None:
        return DEFAULT_TIMEOUT
    return max(1, math.ceil(ctx.settings.terminal_timeout))


def run_terminal(args: TerminalArgs, ctx: ToolContext) -> ToolResult:
    command = args.command
    if not command.strip():
        return ToolResult.error("The command is empty.")
    notes: list[str] = []
    timeout = _timeout(args, ctx, notes)
    cwd = ctx.cwd
    if args.workdir:
        cwd = ctx.resolve(args.workdir)
        try:
            info = ctx.env.stat(cwd)
        except OSError as exc:
            return ToolResult.error(f"workdir cannot be checked: {cwd}: {exc.strerror or exc}")
        problem = "does not exist" if info is None else "" if info.kind == "dir" else "is not a directory"
        if problem:
            return ToolResult.error(f"workdir {problem}: {cwd}")
    env = ctx.env
    if ctx.approvals is not None:
        verdict = ctx.approvals.review_command(command, tool_name="terminal", cwd=cwd)
        if not verdict.allowed:
            return ToolResult(content=verdict.message, status="denied", data={"decision": verdict.decision})
        if verdict.outside_sandbox:  # the user let this one call out of the OS sandbox
            from agent.environments.local import outside_sandbox

            env = outside_sandbox(env)
            notes.append("[ran outside the sandbox: the user approved it for this call]")
    if ctx.interrupt.is_set():
        return ToolResult(content="[Command not run: interrupted by user]", status="cancelled")
    ctx.checkpoint()  # approved and about to run: save what it may change
    if args.background:
        from agent.tools.processes import start_background

        return start_background(command, cwd, ctx, env)
    return _run_foreground(command, cwd, timeout, notes, ctx, env)


def _timeout(args: TerminalArgs, ctx: ToolContext, notes: list[str]) -> int:
    """The command's timeout in seconds, within 1..MAX_TIMEOUT (a note says when it was clamped)."""
    timeout = args.timeout if args.timeout is not None else configured_timeout(ctx)
    if timeout > MAX_TIMEOUT:
        notes.append(f"[timeout {timeout} s exceeds the maximum; clamped to {MAX_TIMEOUT} s]")
        return MAX_TIMEOUT
    if timeout < 1:
        notes.append(f"[timeout {timeout} s is too small; using 1 s]")
        return 1
    return timeout


def _run_foreground(
    command: str, cwd: Path, timeout: int, notes: list[str], ctx: ToolContext, env: Environment
) -> ToolResult:
    try:
        proc = env.spawn(
            command,
            label=f"terminal command `{command}`",
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
        )
    except OSError as exc:
        return ToolResult.error(f"could not start the shell in {cwd}: {exc}")

    assert proc.stdout is not None
    # The reader owns the descriptor from here on (it closes it at EOF); Popen must not close it under it.
    fd = os.dup(proc.stdout.fileno())
    proc.stdout.close()
    reader = _OutputReader(fd, ctx.emit_output, OUTPUT_BODY_CAP)
    reader.start()
    started = time.monotonic()
    outcome = _wait(proc, ctx.interrupt, started + timeout)
    if outcome != "exited":
        env.stop([proc], KILL_GRACE)
    reader.eof.wait(READER_GRACE)
    lingering = not reader.eof.is_set()
    reader.detach()
    # What the command left running in the background (`cmd &`) stays under the supervisor, which stops
    # it when the app ends; the command itself is done.
    env.finished(proc, f"what `{command}` left running")
    if outcome == "exited":
        lost = env.lost(proc)
        if lost:
            notes.append(lost)
    data: dict[str, Any] = {
        "duration": round(time.monotonic() - started, 3),
        "truncated": reader.buffer.truncated,
        "output_chars": reader.buffer.total,
        "cwd": str(cwd),
    }
    output = reader.buffer.text()
    if outcome == "exited" and proc.returncode:
        notes = [*_sandbox_note(env, output), *notes]
    return _result(outcome, proc, output, lingering, timeout, notes, data)


def _sandbox_note(env: Environment, output: str) -> list[str]:
    """The line a failed command gets when the OS sandbox refused it (a write, a connection)."""
    from agent.environments.local import sandbox_of

    sandbox = sandbox_of(env)
    if sandbox is None:
        return []
    from agent.environments.sandbox import failure_note

    note = failure_note(output, sandbox)
    return [note] if note else []


def _wait(proc: subprocess.Popen[bytes], interrupt: threading.Event, deadline: float) -> str:
    """How the command ended: exited, interrupted (Esc) or timeout."""
    while True:
        if proc.poll() is not None:
            return "exited"
        if interrupt.is_set():
            return "interrupted"
        if time.monotonic() >= deadline:
            return "timeout"
        interrupt.wait(POLL_INTERVAL)


def _result(
    outcome: str,
    proc: subprocess.Popen[bytes],
    output: str,
    lingering: bool,
    timeout: int,
    notes: list[str],
    data: dict[str, Any],
) -> ToolResult:
    """What the model reads: the output, why it ended, notes, and `[exit code: N]`."""
    lines = [output.rstrip("\n")] if output.strip() else []
    if outcome == "interrupted":
        exit_code = EXIT_INTERRUPTED
        lines.append("[Command interrupted by user]")
    elif outcome == "timeout":
        exit_code = EXIT_TIMEOUT
        lines.append(f"[Command timed out after {timeout} s]")
    else:
        rc = proc.returncode if proc.returncode is not None else -1
        exit_code = 128 - rc if rc < 0 else rc  # killed by signal N -> 128 + N, like a shell
        if not output.strip():
            lines.append("[no output]")
        if lingering:
            lines.append(
                "[note: background processes still hold the output pipe; their further output is not "
                "captured. Redirect background output to a file: cmd > out.log 2>&1 &]"
            )
    lines.extend(notes)
    lines.append(f"[exit code: {exit_code}]")
    data = {"exit_code": exit_code, **data}
    if outcome == "interrupted":
        data["interrupted"] = True
        return ToolResult(content="\n".join(lines), status="cancelled", data=data)
    if outcome == "timeout":
        data["timed_out"] = True
    # A command that exits non-zero (or timed out) failed: its panel opens, the preview says so. What the
    # model reads is the same either way: the output and `[exit code: N]`.
    return ToolResult(content="\n".join(lines), status="ok" if exit_code == 0 else "error", data=data)


TERMINAL_TOOL = Tool(
    name="terminal",
    toolset="terminal",
    description=DESCRIPTION,
    args_model=TerminalArgs,
    handler=run_terminal,
    summary_arg="command",
)

TOOLS = [TERMINAL_TOOL]

"""Background processes: `terminal(background=true)` and the `process` tool that manages them.

A background command runs like a foreground one (bash -c, its own process group, a dumb terminal, output
cleaned of escapes) but the call returns at once with an id and the first lines. The process outlives the
turn: a reader thread keeps its output (the last `LOG_CAP` characters, by line, with absolute line numbers
so `log` offsets stay meaningful after old lines are dropped) and a waiter thread records its exit.

`PROCESSES` is the process-wide registry. The app (and `-z`) calls `shutdown()` when it exits: every group
still alive is sent SIGTERM, then SIGKILL, all at once; `note_left_running()` then tells each session which
of its processes were stopped, so a resumed session (and its model) knows why `proc_3` is gone. Each
process is a child of `agent.children.supervisor`, which stops it however else the app ends (an
exception, a signal, kill -9).

Except on purpose: a command matching an entry of `terminal.keep_on_exit` (a substring, as Claude Code lets
a background shell be kept) is *kept*: released from the supervisor as soon as it starts (so no exit path,
kill -9 included, stops it), its output written to a log file instead of a pipe to the app (a pipe would
kill it with SIGPIPE at its first line after the app is gone, a dev server's next request log), and the
quit says it was kept and where its output goes.
"""

from __future__ import annotations

import builtins
import codecs
import itertools
import os
import select
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent.children.groups import KILL_GRACE, Group, group_alive, identify, stop_groups
from agent.children.supervisor import SUPERVISOR
from agent.core.humanize import format_elapsed
from agent.toolkit.registry import Tool, ToolContext, ToolResult
from agent.tools.shell_process import StreamCleaner

if TYPE_CHECKING:
    from agent.environments import Environment
    from agent.store import SessionStoreProtocol

LOG_CAP = 2_000_000  # characters of output kept per process (the oldest lines go first)
FIRST_LINES = 20  # lines of output the starting call returns
STARTUP_WAIT = 1.0  # seconds the starting call waits for first output (less when the process exits)
STARTUP_SETTLE = 0.2  # after the first output, how long to collect more before returning
DEFAULT_WAIT = 60
MAX_WAIT = 600
DEFAULT_LOG_LINES = 200
WRITE_TIMEOUT = 5.0
OUTPUT_DRAIN_SECONDS = 2.0  # how long an exit waits for the output pipe to reach EOF

Status = Literal["running", "exited", "killed"]


class OutputLog:
    """The output of one process as lines, bounded; thread-safe. Line numbers count from the first line
    ever written, so `lines(offset)` means the same line before and after old lines are dropped."""

    def __init__(self, cap: int = LOG_CAP) -> None:
        self.cap = cap
        self._lines: deque[str] = deque()
        self._partial = ""
        self._size = 0
        self.dropped = 0  # lines dropped from the front
        self.total_chars = 0
        self._lock = threading.Lock()
        self.changed = threading.Condition(self._lock)
        self.closed = threading.Event()  # the pipe reached EOF: every byte the process wrote is in

    def add(self, text: str) -> None:
        if not text:
            return
        with self._lock:
            self.total_chars += len(text)
            pieces = (self._partial + text).split("\n")
            self._partial = pieces.pop()
            for line in pieces:
                self._lines.append(line)
                self._size += len(line) + 1
            while self._size > self.cap and self._lines:
                self._size -= len(self._lines.popleft()) + 1
                self.dropped += 1
            self.changed.notify_all()

    @property
    def line_count(self) -> int:
        """Lines written so far (the unfinished last line included)."""
        with self._lock:
            return self.dropped + len(self._lines) + (1 if self._partial else 0)

    def lines(self, offset: int | None = None, limit: int = DEFAULT_LOG_LINES) -> tuple[int, list[str]]:
        """(first line number, lines): from `offset` on, or the last `limit` lines when offset is None."""
        with self._lock:
            kept = [*self._lines, *([self._partial] if self._partial else [])]
            end = self.dropped + len(kept)
            start = max(self.dropped, end - limit) if offset is None else max(self.dropped, offset)
            chosen = kept[start - self.dropped : start - self.dropped + limit]
            return start, chosen


@dataclass
class BackgroundProcess:
    id: str
    command: str
    cwd: str
    session_id: str
    pid: int
    started: float  # time.time()
    proc: subprocess.Popen[bytes]
    output: OutputLog
    exit_code: int | None = None
    ended: float | None = None
    killed: bool = False
    stdin_open: bool = True
    kept: Path | None = None  # kept running after the app (`terminal.keep_on_exit`): its log file
    environment: Environment | None = None  # where it runs (None: this machine)
    group: Group | None = None  # its process group, known by its leader's start time too (None: by `pid`)

    @property
    def local_group(self) -> Group | int:
        """What to stop (on this machine) by: never a group its number names after this one ended."""
        return self.group if self.group is not None else self.pid

    @property
    def status(self) -> Status:
        if self.exit_code is None:
            return "running"
        return "killed" if self.killed else "exited"

    @property
    def runtime(self) -> float:
        return (self.ended or time.time()) - self.started

    def info(self) -> ProcessInfo:
        return ProcessInfo(
            id=self.id,
            command=self.command,
            cwd=self.cwd,
            session_id=self.session_id,
            pid=self.pid,
            status=self.status,
            exit_code=self.exit_code,
            runtime=self.runtime,
            lines=self.output.line_count,
            kept=str(self.kept) if self.kept is not None else "",
        )


@dataclass(frozen=True)
class ProcessInfo:
    """A snapshot of one process, for `/ps` and the `list` action."""

    id: str
    command: str
    cwd: str
    session_id: str
    pid: int
    status: Status
    exit_code: int | None
    runtime: float
    lines: int
    kept: str = ""  # the log file of a process kept running after the app, else ""

    def line(self) -> str:
        state = self.status if self.exit_code is None else f"{self.status} ({self.exit_code})"
        return f"{self.id}  {state}  {format_elapsed(self.runtime)}  pid {self.pid}  {self.command}"

    def stopped_line(self) -> str:
        """What a quit says about it (on stderr, once the terminal is back)."""
        return f"stopped background process {self.id}: {self.command}"

    def kept_line(self) -> str:
        """What a quit says about one it leaves running on purpose."""
        return (
            f"kept background process {self.id} running (terminal.keep_on_exit): {self.command} "
            f"(pid {self.pid}, output in {self.kept})"
        )


class ProcessRegistry:
    """Every background process of this app run. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._procs: dict[str, BackgroundProcess] = {}
        self._ids = itertools.count(1)

    # ------------------------------------------------------------------ starting

    def spawn(
        self,
        command: str,
        *,
        cwd: Path,
        session_id: str,
        environment: Environment | None = None,
        keep_in: Path | None = None,
    ) -> BackgroundProcess:
        """Start `command` in its own process group with a stdin pipe; raises OSError if it cannot.

        With `keep_in` (a directory) it is kept running after the app: its output goes to a log file there
        and the supervisor lets it go (see the module doc)."""
        with self._lock:
            pid = f"proc_{next(self._ids)}"
        log_path: Path | None = None
        output: int | IO[bytes] = subprocess.PIPE
        if keep_in is not None:
            keep_in.mkdir(parents=True, exist_ok=True, mode=0o700)
            log_path = keep_in / f"background-{os.getpid()}-{pid}.log"
            # Private like the other logs (output can hold anything); ours is closed once the child has it.
            output = os.fdopen(os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb")
            os.chmod(log_path, 0o600)  # a file left by an earlier run keeps its mode otherwise
        if environment is None:
            from agent.environments.local import LocalEnvironment

            environment = LocalEnvironment(cwd)
        try:
            proc = environment.spawn(
                command,
                label=f"background process {pid}: {command}",
                cwd=cwd,
                stdin=subprocess.PIPE,
                stdout=output,
            )
        finally:
            if not isinstance(output, int):
                output.close()
        if log_path is not None:
            SUPERVISOR.release(proc.pid)  # kept on purpose: no exit path stops it
        with self._lock:
            bg = BackgroundProcess(
                id=pid,
                command=command,
                cwd=str(cwd),
                session_id=session_id,
                pid=proc.pid,
                started=time.time(),
                proc=proc,
                output=OutputLog(),
                kept=log_path,
                environment=environment,
                group=identify(proc.pid),  # not yet reaped: the leader's start time is this child's
            )
            self._procs[pid] = bg
        if log_path is not None:
            reader = threading.Thread(
                target=_tail_log, args=(log_path, bg), name=f"{pid}-output", daemon=True
            )
        else:
            assert proc.stdout is not None
            fd = os.dup(proc.stdout.fileno())
            proc.stdout.close()
            reader = threading.Thread(
                target=_read_output, args=(fd, bg.output), name=f"{pid}-output", daemon=True
            )
        reader.start()
        threading.Thread(target=self._wait_exit, args=(bg,), name=f"{pid}-wait", daemon=True).start()
        return bg

    def _wait_exit(self, bg: BackgroundProcess) -> None:
        rc = bg.proc.wait()
        # Its last words may still be in the pipe: an exit is reported with them. (Bounded: a child it left
        # running in the background can hold the pipe open for as long as it lives.)
        bg.output.closed.wait(OUTPUT_DRAIN_SECONDS)
        with bg.output.changed:
            bg.exit_code = 128 - rc if rc < 0 else rc
            bg.ended = time.time()
            bg.output.changed.notify_all()
        SUPERVISOR.ended(bg.pid)  # what it left running stays registered (and in `running()`)

    # ------------------------------------------------------------------ queries

    def get(self, process_id: str) -> BackgroundProcess | None:
        with self._lock:
            return self._procs.get(process_id.strip())

    def list(self) -> list[ProcessInfo]:
        with self._lock:
            procs = list(self._procs.values())
        return [p.info() for p in procs]

    # `builtins.list`: inside the class body, `list` names the method above.
    def running(self) -> builtins.list[BackgroundProcess]:
        with self._lock:
            procs = list(self._procs.values())
        return [p for p in procs if p.exit_code is None or group_alive(p.local_group)]

    # ------------------------------------------------------------------ actions

    def wait(self, bg: BackgroundProcess, timeout: float, interrupt: threading.Event | None = None) -> bool:
        """Block until the process exits (True), the timeout passes or the interrupt is set (False)."""
        deadline = time.monotonic() + timeout
        with bg.output.changed:
            while bg.exit_code is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or (interrupt is not None and interrupt.is_set()):
                    return False
                bg.output.changed.wait(min(0.1, remaining))
        return True

    def kill(self, bg: BackgroundProcess) -> bool:
        """SIGTERM the whole group, SIGKILL what is left after the grace period. False if nothing ran."""
        if not group_alive(bg.local_group) and bg.exit_code is not None:
            return False
        bg.killed = bg.exit_code is None or bg.killed
        _stop_groups([bg])
        self.wait(bg, KILL_GRACE)  # the waiter thread records the exit code
        return True

    def write(self, bg: BackgroundProcess, data: str, *, close: bool = False) -> str | None:
        """Send `data` to stdin (then close it when asked); an error message, or None."""
        stdin = bg.proc.stdin
        if stdin is None or not bg.stdin_open:
            return "its stdin is closed"
        if bg.exit_code is not None:
            return "it has exited"
        payload = data.encode("utf-8", errors="replace")
        fd = stdin.fileno()
        deadline = time.monotonic() + WRITE_TIMEOUT
        try:
            while payload:
                _, ready, _ = select.select([], [fd], [], max(0.0, deadline - time.monotonic()))
                if not ready:
                    return f"it did not read its input within {WRITE_TIMEOUT:.0f} s"
                written = os.write(fd, payload[:65536])
                payload = payload[written:]
            if close:
                stdin.close()
                bg.stdin_open = False
        except (BrokenPipeError, OSError) as exc:
            bg.stdin_open = False
            return f"writing failed ({exc.strerror or exc})"
        return None

    def shutdown(self) -> builtins.list[ProcessInfo]:
        """Stop every process group still alive (all at once) but the kept ones; the snapshots of those
        that were stopped."""
        alive = [bg for bg in self.running() if bg.kept is None]
        for bg in alive:
            bg.killed = bg.exit_code is None or bg.killed
        _stop_groups(alive)
        for bg in alive:
            self.wait(bg, KILL_GRACE)
        return [bg.info() for bg in alive]

    def kept_running(self) -> builtins.list[ProcessInfo]:
        """The processes kept running after the app (`terminal.keep_on_exit`) that still run."""
        return [bg.info() for bg in self.running() if bg.kept is not None]

    def forget(self) -> None:
        """Drop finished processes from the list (tests; a long app run could call it too)."""
        with self._lock:
            self._procs = {k: p for k, p in self._procs.items() if p.exit_code is None}


PROCESSES = ProcessRegistry()


def _read_output(fd: int, log: OutputLog) -> None:
    add = _decode_into(log)
    try:
        while True:
            try:
                data = os.read(fd, 65536)
            except InterruptedError:
                continue
            except OSError:
                break
            if not data:
                break
            add(data, False)
        add(b"", True)
    finally:
        log.closed.set()
        try:
            os.close(fd)
        except OSError:
            pass


def _decode_into(log: OutputLog) -> Callable[[bytes, bool], None]:
    """A feeder of raw output into `log`: UTF-8 decoded incrementally, escapes cleaned as a pipe's are."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    cleaner = StreamCleaner()

    def add(data: bytes, final: bool) -> None:
        """Decode, clean and keep `data`; `final` flushes what the decoder and the cleaner held."""
        text = cleaner.feed(decoder.decode(data, final=final))
        log.add(text + cleaner.flush() if final else text)

    return add


def _tail_log(path: Path, bg: BackgroundProcess, poll: float = 0.1) -> None:
    """A kept process's output, read from its log file as it grows, until it has exited."""
    add = _decode_into(bg.output)
    try:
        with open(path, "rb") as log_file:
            while True:
                data = log_file.read(65536)
                if data:
                    add(data, False)
                    continue
                if bg.proc.poll() is not None:
                    add(log_file.read(), True)
                    break
                time.sleep(poll)
    except OSError:
        pass
    finally:
        bg.output.closed.set()


def _stop_groups(procs: list[BackgroundProcess]) -> None:
    """SIGTERM every group (where it runs), wait up to KILL_GRACE for all of them together, SIGKILL the
    survivors; the supervisor forgets them."""
    local = [bg for bg in procs if bg.environment is None or bg.environment.is_local]
    stop_groups([bg.local_group for bg in local], KILL_GRACE)
    elsewhere: dict[int, tuple[Environment, list[subprocess.Popen[bytes]]]] = {}
    for bg in procs:
        if bg.environment is not None and not bg.environment.is_local:
            elsewhere.setdefault(id(bg.environment), (bg.environment, []))[1].append(bg.proc)
    for environment, running in elsewhere.values():
        environment.stop(running, KILL_GRACE)
    for bg in procs:
        try:
            bg.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        SUPERVISOR.release(bg.pid)
        if bg.proc.stdin is not None:
            try:
                bg.proc.stdin.close()
            except OSError:
                pass


def note_left_running(store: SessionStoreProtocol | None, stopped: list[ProcessInfo]) -> None:
    """Tell each session which of its background processes were still running when the app exited (and
    were stopped): a note in its transcript, which a resumed session shows and its model reads."""
    if store is None:
        return
    from agent.core.messages import Message

    by_session: dict[str, list[ProcessInfo]] = {}
    for info in stopped:
        if info.session_id:
            by_session.setdefault(info.session_id, []).append(info)
    for session_id, infos in by_session.items():
        listed = "; ".join(f"{i.id} `{i.command}` (ran {format_elapsed(i.runtime)})" for i in infos)
        note = f"[Background processes left running when hermes-tui exited were stopped: {listed}]"
        meta = {"synthetic": "processes", "processes": [i.id for i in infos]}
        try:
            store.append_message(session_id, Message(role="user", content=note, meta=meta))
        except Exception:
            pass  # the session row is gone: nobody will resume it


# --------------------------------------------------------------------------------------------------------
# Starting one (terminal's background mode)


def keep_on_exit(command: str, names: list[str]) -> bool:
    """Whether the user asked to keep `command` running after the app (`terminal.keep_on_exit`): one of
    `names` appears in it (blank entries name nothing)."""
    return any(name.strip() and name.strip() in command for name in names)


def start_background(
    command: str, cwd: Path, ctx: ToolContext, environment: Environment | None = None
) -> ToolResult:
    """`terminal(command, background=true)` once approved: start it, return the id and the first lines.
    `environment`: where (default: the session's; without its sandbox when the user let the call out)."""
    registry = registry_of(ctx)
    names = ctx.settings.terminal_keep_on_exit if ctx.settings is not None else []
    keep = ctx.env.is_local and keep_on_exit(command, names)  # elsewhere it ends with the environment
    keep_in = ctx.hermes_home / "tui" / "logs" if keep else None
    try:
        bg = registry.spawn(
            command, cwd=cwd, session_id=ctx.session_id, environment=environment or ctx.env, keep_in=keep_in
        )
    except OSError as exc:
        return ToolResult.error(f"could not start the shell in {cwd}: {exc}")
    deadline = time.monotonic() + STARTUP_WAIT
    with bg.output.changed:
        while bg.exit_code is None and bg.output.total_chars == 0 and not ctx.interrupt.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            bg.output.changed.wait(min(0.05, remaining))
    if bg.exit_code is None and bg.output.total_chars:
        registry.wait(bg, STARTUP_SETTLE, ctx.interrupt)
    first, lines = bg.output.lines(0, FIRST_LINES)
    more = bg.output.line_count - first - len(lines)
    parts = [f"Started background process {bg.id} (pid {bg.pid}): {command}"]
    if lines:
        parts.append("First output:\n" + "\n".join(lines))
        if more > 0:
            parts.append(f"[... {more} more lines: process(action='log', id='{bg.id}') ...]")
    else:
        parts.append("[no output yet]")
    if bg.exit_code is not None:
        parts.append(f"[it has already exited with code {bg.exit_code}]")
    else:
        until = (
            f"keeps running after hermes-tui exits (terminal.keep_on_exit names it; output in {bg.kept})"
            if bg.kept is not None
            else "is stopped when hermes-tui exits"
        )
        parts.append(
            f"[running. Check on it with process(action='poll', id='{bg.id}'), wait for it with "
            f"action='wait', stop it with action='kill'. It keeps running across turns and {until}.]"
        )
    data = {"process_id": bg.id, "pid": bg.pid, "background": True, "cwd": str(cwd)}
    if bg.exit_code is not None:
        data["exit_code"] = bg.exit_code
    return ToolResult(content="\n".join(parts), data=data)


def registry_of(ctx: ToolContext) -> ProcessRegistry:
    """The registry a call uses: the session's own when it has one (tests), else the process-wide one."""
    registry = ctx.state.processes
    return registry if isinstance(registry, ProcessRegistry) else PROCESSES


# --------------------------------------------------------------------------------------------------------
# The process tool


class ProcessArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")

    action: Literal["list", "poll", "log", "wait", "kill", "write"] = Field(
        description=(
            "list: every background process; poll: status and the latest output; log: output lines "
            "from `offset` (default: the last `limit`); wait: block until it exits or `timeout` passes; "
            "kill: stop it and everything it started; write: send `data` to its stdin."
        )
    )
    id: str | None = Field(default=None, description="The process id from terminal (proc_1); not for list.")
    offset: int | None = Field(default=None, ge=0, description="log: the first line number (0-based).")
    limit: int = Field(default=DEFAULT_LOG_LINES, ge=1, le=5000, description="log: how many lines.")
    timeout: int = Field(
        default=DEFAULT_WAIT,
        ge=1,
        description=f"wait: seconds to wait (default {DEFAULT_WAIT}, max {MAX_WAIT}).",
    )
    data: str | None = Field(default=None, description="write: the text to send (add \\n to end a line).")
    close_stdin: bool = Field(default=False, description="write: close stdin afterwards (end of input).")


PROCESS_DESCRIPTION = (
    "Manage background processes started with terminal(background=true): list them, poll one for its status "
    "and new output, read its log with an offset, wait for it to exit (with a timeout), kill it (its whole "
    "process group), or write to its stdin. Processes keep running across turns."
)


def _status_line(bg: BackgroundProcess) -> str:
    state = bg.status if bg.exit_code is None else f"{bg.status}, exit code {bg.exit_code}"
    return f"{bg.id} ({state}, {format_elapsed(bg.runtime)}, {bg.output.line_count} lines): {bg.command}"


def run_process(args: ProcessArgs, ctx: ToolContext) -> ToolResult:
    registry = registry_of(ctx)
    if args.action == "list":
        infos = registry.list()
        if not infos:
            return ToolResult(content="No background processes.")
        return ToolResult(content="\n".join(i.line() for i in infos), data={"processes": len(infos)})
    if not args.id:
        return ToolResult.error(f"process(action='{args.action}') needs the process id (from terminal).")
    bg = registry.get(args.id)
    if bg is None:
        known = ", ".join(i.id for i in registry.list()) or "none"
        return ToolResult.error(f"no background process {args.id!r} (known: {known}).")
    data = {"process_id": bg.id, "status": bg.status}
    if args.action == "poll":
        return ToolResult(content=f"{_status_line(bg)}\n{_tail_block(bg)}", data={**data, **_exit(bg)})
    if args.action == "log":
        start, lines = bg.output.lines(args.offset, args.limit)
        total = bg.output.line_count
        head = f"{_status_line(bg)}\nLines {start}-{start + len(lines)} of {total}"
        if bg.output.dropped and (args.offset is not None and args.offset < bg.output.dropped):
            head += f" (lines before {bg.output.dropped} were dropped: only the last output is kept)"
        body = "\n".join(lines) if lines else "[no lines there]"
        return ToolResult(content=f"{head}:\n{body}", data={**data, **_exit(bg)})
    if args.action == "wait":
        timeout = min(args.timeout, MAX_WAIT)
        note = f" (timeout clamped to {MAX_WAIT} s)" if args.timeout > MAX_WAIT else ""
        exited = registry.wait(bg, timeout, ctx.interrupt)
        if exited:
            text = f"{bg.id} exited with code {bg.exit_code}{note}.\n{_tail_block(bg)}"
        elif ctx.interrupt.is_set():
            stopped = f"Stopped waiting for {bg.id}: interrupted."
            return ToolResult(content=stopped, status="cancelled", data=data)
        else:
            text = f"{bg.id} is still running after {timeout} s{note}.\n{_tail_block(bg)}"
        return ToolResult(content=text, data={**data, "status": bg.status, **_exit(bg)})
    if args.action == "kill":
        if not registry.kill(bg):
            return ToolResult(content=f"{bg.id} had already exited (code {bg.exit_code}).", data=data)
        return ToolResult(
            content=f"Killed {bg.id} and its process group (exit code {bg.exit_code}).\n{_tail_block(bg)}",
            data={**data, "status": bg.status, **_exit(bg)},
        )
    if args.data is None and not args.close_stdin:
        return ToolResult.error("process(action='write') needs `data` (or close_stdin=true).")
    problem = registry.write(bg, args.data or "", close=args.close_stdin)
    if problem:
        return ToolResult.error(f"could not write to {bg.id}: {problem}.")
    sent = len(args.data or "")
    closed = " and closed its stdin" if args.close_stdin else ""
    return ToolResult(content=f"Sent {sent} characters to {bg.id}{closed}.", data=data)


def _tail_block(bg: BackgroundProcess, lines: int = 30) -> str:
    start, tail = bg.output.lines(None, lines)
    if not tail:
        return "[no output]"
    return f"Last output (from line {start}):\n" + "\n".join(tail)


def _exit(bg: BackgroundProcess) -> dict[str, int]:
    return {"exit_code": bg.exit_code} if bg.exit_code is not None else {}


PROCESS_TOOL = Tool(
    name="process",
    toolset="terminal",
    description=PROCESS_DESCRIPTION,
    args_model=ProcessArgs,
    handler=run_process,
    summary_arg="id",
)

TOOLS = [PROCESS_TOOL]

"""What a user sees while a reply streams: hermes-tui in a real terminal (tmux 120x40) against anchors.

Each workload is a Markdown reply generated on the fly (headings, paragraphs, lists, code, tables), ending
in a unique last word, played by the project's scripted server in a process of its own (so its CPU is not
counted). In ONE run, on the same stream, it measures:

- the bare `openai` SDK consuming the stream, no UI (anchors/sdk_consumer.py);
- a bare Textual app streaming with `Markdown.get_stream()` (anchors/textual_markdown_app.py), in tmux;
- hermes-tui, in tmux, launched as a user would (a temp HERMES_HOME, the scripted server as its model).

For the two terminal apps it reads the screen with `tmux capture-pane` (polled every ~20 ms; that cost lands
in tmux, not in the app, and is measured and printed), the bytes written to the terminal with
`tmux pipe-pane`, and CPU as utime+stime of the app's process tree from /proc. Printed per workload:
CPU core-seconds per second of streaming (Enter -> last word on screen), Enter -> last word on screen
(ratio to the SDK), KiB/s written to the terminal, last byte sent by the server -> on screen, Enter ->
request on the wire (a warm app: first frame + a settle time + its CPU gone quiet before typing), the
longest time the screen went without changing (the status clock ticks, so a frozen app shows), key echo
latency (a few letters typed mid-stream, three times, until they show in the prompt: the slowest), peak
RSS; and launch -> prompt visible. Enter -> request after a quick launch: a message typed 0.5 s after the
prompt shows (what the app builds after its first frame is then still being built), and a second one typed
0.5 s after the first reply, with the app's CPU between the first Enter and its request.

`--history 300` also plays 300 short turns (a tool call every third) in one hermes-tui session, typed in
tmux like the rest (~3 min), then a workload again: the 301st turn compared with the first, and the RSS
after it. (This replaces benchmarks/stream_bench.py, which measured the same in a headless app: headless
hides the cost of drawing to a terminal, it reported 3.4x where a terminal showed 7.4x.)

Nothing reaches the network: the app, the anchors and the server talk over 127.0.0.1 only, in a scrubbed
environment (no proxy variables, HOME and HERMES_HOME in a temp dir). The tmux server (its own socket) and
every process are cleaned up on exit.

Run against any checkout (the scripted server always comes from this file's checkout):
    python benchmarks/terminal_stream.py                          # this checkout, its .venv
    python benchmarks/terminal_stream.py --project ~/src/other-checkout   # another checkout, its .venv
    python benchmarks/terminal_stream.py --only burst --subjects tui --threads
    python benchmarks/terminal_stream.py --only quick --subjects tui --launches 7    # ~40 s
Options: --python (the interpreter for the app and anchors), --app-cmd (how to launch the app), --quick.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import random
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
CLK_TCK = os.sysconf("SC_CLK_TCK")
WIDTH, HEIGHT = 120, 40
LAST_WORD = "zebraquartzend"
ECHOES = ("qjxzv", "wkpfy", "bvhqg")
"""Typed mid-stream, one burst each, at a quarter, half and three quarters of a paced stream (a burst:
0.3, 0.9 and 1.5 s after its first delta); the key echo reported is the slowest of the three, since the
goal (within 0.1 s) is about every key, not the average one."""
ECHO_AT = (0.25, 0.5, 0.75)
BURST_ECHO_AT = (0.3, 0.9, 1.5)
TYPED = "benchgo"

# --------------------------------------------------------------------------------------------------
# The reply


_WORDS = [
    *("agent", "stream", "token", "model", "reply", "terminal", "panel", "widget", "render", "layout"),
    *("markdown", "table", "column", "session", "search", "approval", "command", "history", "buffer"),
    *("thread", "event", "queue", "worker", "cursor", "scroll", "anchor", "frame", "budget"),
]


def make_markdown(words: int, seed: int = 7) -> str:
    """About `words` words of realistic Markdown, ending in a paragraph whose last word is LAST_WORD."""
    rng = random.Random(seed)
    parts: list[str] = []
    count = section = 0

    def sentence(n: int) -> str:
        return " ".join(rng.choice(_WORDS) for _ in range(n)).capitalize() + "."

    while count < words:
        section += 1
        parts.append(f"## Section {section}")
        for _ in range(3):
            n = min(rng.randint(40, 90), max(words - count, 1))
            parts.append(sentence(n))
            count += n
            if count >= words:
                break
        if count < words:
            items = rng.randint(3, 6)
            parts.append("\n".join(f"- **{rng.choice(_WORDS)}**: {sentence(8)}" for _ in range(items)))
            count += items * 9
        if section % 3 == 0 and count < words:
            code = "\n".join(f"def {rng.choice(_WORDS)}_{i}(x):\n    return x + {i}" for i in range(4))
            parts.append(f"```python\n{code}\n```")
            count += 24
        if section % 5 == 0 and count < words:
            rows = "\n".join(f"| {rng.choice(_WORDS)} | {i} |" for i in range(5))
            parts.append(f"| name | value |\n|---|---|\n{rows}")
            count += 15
    parts.append(f"That is all; the last word is {LAST_WORD}.")
    return "\n\n".join(parts) + "\n"


def word_chunks(text: str) -> list[str]:
    """One chunk per word (with its trailing whitespace): what a paced model sends."""
    return re.findall(r"\S+\s*", text)


@dataclass(frozen=True)
class Workload:
    key: str
    title: str
    words: int
    rate: float | None  # chunks per second; None = as fast as possible
    chunk_chars: int = 4  # for the burst: chunks of a token's size

    def call(self) -> dict[str, Any]:
        text = make_markdown(self.words)
        if self.rate is None:
            return {"text": text, "chunk_size": self.chunk_chars}
        return {"chunks": word_chunks(text), "delay": 1.0 / self.rate}

    def chunk_count(self) -> int:
        call = self.call()
        if "chunks" in call:
            return len(call["chunks"])
        return -(-len(call["text"]) // self.chunk_chars)

    @property
    def expected_seconds(self) -> float | None:
        return None if self.rate is None else self.chunk_count() / self.rate


WORKLOADS = {
    "50cps": Workload("50cps", "1,500 words at 50 chunks/s", 1500, 50.0),
    "200cps": Workload("200cps", "600 words at 200 chunks/s", 600, 200.0),
    "burst": Workload("burst", "20,000 words as fast as possible", 20_000, None),
}
QUICK = {
    "50cps": Workload("50cps", "500 words at 50 chunks/s", 500, 50.0),
    "200cps": Workload("200cps", "600 words at 200 chunks/s", 600, 200.0),
    "burst": Workload("burst", "8,000 words as fast as possible", 8_000, None),
}


def history_calls(turns: int) -> list[dict[str, Any]]:
    """Short turns as a session accumulates them: a little Markdown, a file read every third turn."""
    calls: list[dict[str, Any]] = []
    for i in range(turns):
        if i % 3 == 0:
            calls.append({"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]})
        calls.append(
            {
                "text": f"Turn {i}. Done, here is a short summary:\n\n- one thing\n- another thing\n\n"
                f"`ok` turn{i}done",
                "chunk_size": 8,
            }
        )
    return calls


# --------------------------------------------------------------------------------------------------
# The scripted server, in its own process


def serve(scenario_path: str) -> int:
    """`--serve`: play the scenario; print the port, then one JSON line per request and per answer."""
    sys.path.insert(0, str(ROOT))
    from scripted import ScriptedServer

    lock = threading.Lock()

    def emit(obj: dict[str, Any]) -> None:
        with lock:
            sys.stdout.write(json.dumps(obj) + "\n")
            sys.stdout.flush()

    scenario = json.loads(Path(scenario_path).read_text(encoding="utf-8"))
    kwargs: dict[str, Any] = {"on_request": lambda r: emit({"request": r.time, "index": r.call_index})}
    try:
        server = ScriptedServer(
            scenario, on_answered=lambda r, t: emit({"answered": t, "index": r.call_index}), **kwargs
        )
    except TypeError:  # an older scripted server without on_answered: "last byte -> screen" is n/a
        server = ScriptedServer(scenario, **kwargs)
    with server:
        emit({"port": server.port})
        sys.stdin.read()  # until the benchmark closes our stdin
    return 0


class ServerProcess:
    """The scripted server in a child process; its request/answer times arrive on a pipe."""

    def __init__(self, calls: list[dict[str, Any]], tmp: Path) -> None:
        path = tmp / f"scenario-{time.monotonic_ns()}.json"
        path.write_text(json.dumps({"name": "bench", "model": "bench", "calls": calls}), encoding="utf-8")
        self.requests: list[tuple[float, int | None]] = []
        self.answers: list[tuple[float, int | None]] = []
        self._cond = threading.Condition()
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--serve", str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=_scrubbed_env({}),
        )
        _CHILDREN.append(self.proc)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the scripted server did not start")
        self.port = int(json.loads(line)["port"])
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def openai_base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            obj = json.loads(line)
            with self._cond:
                if "request" in obj:
                    self.requests.append((obj["request"], obj["index"]))
                elif "answered" in obj:
                    self.answers.append((obj["answered"], obj["index"]))
                self._cond.notify_all()

    def wait_requests(self, n: int, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: len(self.requests) >= n, timeout)

    def answered_at(self, index: int) -> float | None:
        with self._cond:
            return next((t for t, i in self.answers if i == index), None)

    def request_at(self, index: int) -> float | None:
        with self._cond:
            return next((t for t, i in self.requests if i == index), None)

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
                self.proc.wait(timeout=3)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


# --------------------------------------------------------------------------------------------------
# Processes: CPU, RSS, threads


_CHILDREN: list[subprocess.Popen[Any]] = []


def _stat_fields(path: str) -> list[str] | None:
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            raw = f.read()
    except OSError:
        return None
    # The command name is in parentheses and may contain spaces: split after the last ')'.
    return raw[raw.rindex(")") + 2 :].split()


def process_cpu(pid: int) -> float:
    """utime+stime of `pid` (all its threads) and of its waited-for children, in seconds."""
    fields = _stat_fields(f"/proc/{pid}/stat")
    if fields is None:
        return 0.0
    # fields[0] is the state (field 3): utime is field 14, stime 15, cutime 16, cstime 17.
    return sum(int(x) for x in fields[11:15]) / CLK_TCK


def tree_cpu(pid: int) -> float:
    """CPU of `pid` and every live descendant (subprocesses a tool or plugin started)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat_fields(f"/proc/{entry}/stat")
            if fields is not None:
                parents[int(entry)] = int(fields[1])
    tree, frontier = {pid}, [pid]
    while frontier:
        parent = frontier.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in tree:
                tree.add(child)
                frontier.append(child)
    return sum(process_cpu(p) for p in tree)


def thread_cpu(pid: int) -> dict[int, float]:
    out: dict[int, float] = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        fields = _stat_fields(f"/proc/{pid}/task/{tid}/stat")
        if fields is not None:
            out[int(tid)] = (int(fields[11]) + int(fields[12])) / CLK_TCK
    return out


def thread_names(pid: int) -> dict[int, str]:
    """Python thread names by native id, from `py-spy dump` (empty when py-spy is missing or refused)."""
    if shutil.which("py-spy") is None:
        return {}
    try:
        out = subprocess.run(
            ["py-spy", "dump", "--pid", str(pid)], capture_output=True, text=True, timeout=10
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return {int(m[1]): m[2] for m in re.finditer(r'^Thread (\d+) \([^)]*\): "([^"]*)"', out, re.M)}


def peak_rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def _scrubbed_env(extra: dict[str, str]) -> dict[str, str]:
    """No proxies, no API keys, no user config: only what a program needs to run in a terminal."""
    keep = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL") if k in os.environ}
    keep.setdefault("LANG", "C.UTF-8")
    return {**keep, **extra}


# --------------------------------------------------------------------------------------------------
# tmux


class Tmux:
    """A private tmux server (own socket, no user config, no status line: the pane is 120x40)."""

    def __init__(self, socket: str) -> None:
        self.socket = socket
        self.run("new-session", "-d", "-s", "idle", "-x", str(WIDTH), "-y", str(HEIGHT), "sleep 86400")
        for option in (
            ("status", "off"),
            ("escape-time", "0"),
            ("remain-on-exit", "on"),
            ("default-terminal", "tmux-256color"),
        ):
            self.run("set-option", "-g", *option)
        pid, _, path = self.run("display-message", "-p", "-t", "idle", "#{pid} #{socket_path}").partition(" ")
        self.server_pid = int(pid)
        self.socket_path = Path(path.strip())

    def run(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args], capture_output=True, text=True
        )
        if check and done.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def kill(self) -> None:
        self.run("kill-server", check=False)
        self.socket_path.unlink(missing_ok=True)  # tmux leaves it behind


class Pane:
    def __init__(self, tmux: Tmux, name: str, command: str) -> None:
        self.tmux, self.name = tmux, name
        tmux.run("new-session", "-d", "-s", name, "-x", str(WIDTH), "-y", str(HEIGHT), command)
        self.pid = int(tmux.run("display-message", "-p", "-t", name, "#{pane_pid}").strip())
        self._capture = ["tmux", "-L", tmux.socket, "capture-pane", "-p", "-t", name]

    def capture(self) -> str:
        return subprocess.run(self._capture, capture_output=True, text=True).stdout

    def type(self, text: str) -> None:
        self.tmux.run("send-keys", "-t", self.name, "-l", text)

    def key(self, key: str) -> None:
        self.tmux.run("send-keys", "-t", self.name, key)

    def pipe_to(self, path: Path) -> None:
        self.tmux.run("pipe-pane", "-t", self.name, "-o", f"cat >> {shlex.quote(str(path))}")

    def dead(self) -> bool:
        return (
            self.tmux.run("display-message", "-p", "-t", self.name, "#{pane_dead}", check=False).strip()
            == "1"
        )

    def close(self) -> None:
        if not self.dead():
            self.key("C-q")
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and not self.dead():
                time.sleep(0.05)
        self.tmux.run("kill-session", "-t", self.name, check=False)

    def wait_for(self, ok: Callable[[str], bool], timeout: float, what: str) -> tuple[float, str]:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.capture()
            if ok(screen):
                return time.monotonic(), screen
            if self.dead():
                break
            time.sleep(0.01)
        raise RuntimeError(
            f"{self.name}: {what} did not happen within {timeout:.0f} s; the screen:\n{screen}"
        )


def wait_warm(pid: int, settle: float, timeout: float = 30.0) -> None:
    """A warm app: `settle` seconds after its first frame AND done with what it does after it (loading the
    SDK in the background takes far longer than usual on a busy machine): its CPU over 0.3 s under 10%."""
    time.sleep(settle)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before = tree_cpu(pid)
        time.sleep(0.3)
        if tree_cpu(pid) - before < 0.03:
            return


def measure_poll_cost(tmux: Tmux, pane: Pane, n: int = 100) -> float:
    """CPU seconds one capture-pane costs (the tmux client we spawn + the tmux server)."""
    children0 = os.times().children_user + os.times().children_system
    server0 = process_cpu(tmux.server_pid)
    for _ in range(n):
        pane.capture()
    children = os.times().children_user + os.times().children_system - children0
    return (children + process_cpu(tmux.server_pid) - server0) / n


# --------------------------------------------------------------------------------------------------
# One streamed reply watched on screen


@dataclass
class Result:
    subject: str
    workload: str
    enter_to_last: float | None = None
    cpu_per_s: float | None = None
    kib_per_s: float | None = None
    last_byte_to_screen: float | None = None
    enter_to_request: float | None = None
    longest_gap: float | None = None
    key_echo: float | None = None
    peak_rss: float | None = None
    launch: float | None = None
    polls_per_s: float | None = None
    threads: list[tuple[str, float]] = field(default_factory=list)
    note: str = ""


@dataclass
class Subject:
    key: str
    label: str
    command: Callable[[str, Path], str]  # (base_url, tmp dir) -> shell command for the pane
    ready_text: str


def watch_reply(
    pane: Pane,
    server: ServerProcess,
    call_index: int,
    result: Result,
    workload: Workload,
    *,
    poll: float,
    timeout: float,
    pipe: Path,
    want_threads: bool,
) -> None:
    """Type, press Enter, and watch the screen until LAST_WORD shows; fill `result`."""
    pane.type(TYPED)
    pane.wait_for(lambda s: TYPED in s, 10, "typed text echo")
    names: dict[int, str] = {}
    threads0 = thread_cpu(pane.pid) if want_threads else {}
    threads_last = dict(threads0)
    bytes0 = pipe.stat().st_size if pipe.exists() else 0
    cpu0 = tree_cpu(pane.pid)
    enter = time.monotonic()
    pane.key("Enter")
    previous = pane.capture()
    last_change = enter
    longest = 0.0
    polls = 0
    echo_sent: list[float] = []  # when each of ECHOES was typed
    echoes: list[float] = []  # how long each took to show
    first_reply: float | None = None
    expected = workload.expected_seconds
    deadline = enter + timeout
    while True:
        now = time.monotonic()
        if now > deadline:
            raise RuntimeError(f"{result.subject}: the last word did not show within {timeout:.0f} s")
        screen = pane.capture()
        seen = time.monotonic()
        polls += 1
        if screen != previous:
            longest = max(longest, seen - last_change)
            last_change = seen
            previous = screen
            if first_reply is None and server.request_at(call_index) is not None:
                first_reply = seen
        if want_threads:
            threads_last.update(thread_cpu(pane.pid))
            if not names and first_reply is not None:
                names = thread_names(pane.pid)
        if len(echoes) < len(echo_sent) and ECHOES[len(echoes)] in screen:
            echoes.append(seen - echo_sent[len(echoes)])
        if LAST_WORD in screen:
            cpu = tree_cpu(pane.pid) - cpu0
            break
        if len(echo_sent) < len(ECHOES) and len(echoes) == len(echo_sent) and first_reply is not None:
            n = len(echo_sent)
            start = server.request_at(call_index) or first_reply
            due = start + expected * ECHO_AT[n] if expected else first_reply + BURST_ECHO_AT[n]
            if seen >= due:
                pane.type(ECHOES[n])
                echo_sent.append(time.monotonic())
        if pane.dead():
            raise RuntimeError(f"{result.subject} exited mid-stream; the screen:\n{screen}")
        time.sleep(max(0.0, poll - (time.monotonic() - now)))
    window = seen - enter
    longest = max(longest, seen - last_change)
    result.enter_to_last = window
    result.cpu_per_s = cpu / window
    result.longest_gap = longest
    result.polls_per_s = polls / window
    time.sleep(0.3)  # let pipe-pane's cat catch up
    result.kib_per_s = ((pipe.stat().st_size if pipe.exists() else 0) - bytes0) / 1024 / window
    requested = server.request_at(call_index)
    result.enter_to_request = None if requested is None else requested - enter
    answered = server.answered_at(call_index)
    result.last_byte_to_screen = None if answered is None else seen - answered
    result.key_echo = max(echoes) if echoes else None
    if not echo_sent:
        result.note = "key echo not measured: the stream was over first"
    elif len(echoes) < len(echo_sent):
        result.note = "typed keys had not shown when the stream ended"
    elif len(echoes) < len(ECHOES):
        result.note = f"key echo measured {len(echoes)} of {len(ECHOES)} times: the stream was over first"
    result.peak_rss = peak_rss_mb(pane.pid)
    if want_threads:
        total = sum(threads_last[t] - threads0.get(t, 0.0) for t in threads_last)
        rows = sorted(
            ((names.get(t, f"tid {t}"), threads_last[t] - threads0.get(t, 0.0)) for t in threads_last),
            key=lambda r: -r[1],
        )
        result.threads = [(n, c / total if total else 0.0) for n, c in rows if c > 0]


def run_terminal(
    tmux: Tmux,
    subject: Subject,
    workload: Workload,
    tmp: Path,
    args: argparse.Namespace,
    *,
    history: int = 0,
) -> Result:
    calls = [*history_calls(history), workload.call()]
    server = ServerProcess(calls, tmp)
    label = subject.key if not history else f"{subject.key}@{history}"
    result = Result(label, workload.key)
    pane_name = f"{label}-{workload.key}-{time.monotonic_ns()}"
    pipe = tmp / f"{pane_name}.out"
    launched = time.monotonic()
    pane = Pane(tmux, pane_name, subject.command(server.openai_base_url, tmp))
    try:
        ready, _ = pane.wait_for(lambda s: subject.ready_text in s, 60, "the first screen")
        result.launch = ready - launched
        wait_warm(pane.pid, args.settle)
        for turn in range(history):
            if turn and turn % 50 == 0:
                print(f"    turn {turn} of {history}", file=sys.stderr, flush=True)
            pane.type(f"question {turn}")
            pane.key("Enter")
            pane.wait_for(lambda s, t=turn: f"turn{t}done" in s, 60, f"history turn {turn}")
        if history:
            wait_warm(pane.pid, args.settle)
        pane.pipe_to(pipe)
        watch_reply(
            pane,
            server,
            len(calls) - 1,
            result,
            workload,
            poll=args.poll,
            timeout=args.timeout,
            pipe=pipe,
            want_threads=args.threads and subject.key == "tui",
        )
    finally:
        pane.close()
        server.stop()
        if args.keep_output and pipe.exists():
            shutil.copy(pipe, Path(args.keep_output) / f"{subject.key}-{workload.key}.out")
    return result


def measure_launches(
    tmux: Tmux, subject: Subject, tmp: Path, n: int, settle: float
) -> tuple[list[float], list[float]]:
    """`n` times: launch -> prompt visible, then (after `settle`) Enter -> request on the wire of the first
    message, a short reply. The two latencies a user feels before any streaming."""
    server = ServerProcess([{"text": f"short reply {LAST_WORD}."}] * n, tmp)
    launch, first_enter = [], []
    try:
        for i in range(n):
            launched = time.monotonic()
            pane = Pane(tmux, f"launch-{subject.key}-{i}", subject.command(server.openai_base_url, tmp))
            try:
                ready, _ = pane.wait_for(lambda s: subject.ready_text in s, 60, "the first screen")
                launch.append(ready - launched)
                wait_warm(pane.pid, settle)
                pane.type(TYPED)
                pane.wait_for(lambda s: TYPED in s, 10, "typed text echo")
                enter = time.monotonic()
                pane.key("Enter")
                if not server.wait_requests(i + 1, 30):
                    raise RuntimeError(f"{subject.key}: no request within 30 s of Enter")
                first_enter.append(server.requests[i][0] - enter)
                pane.wait_for(lambda s: LAST_WORD in s, 30, "the short reply")
            finally:
                pane.close()
    finally:
        server.stop()
    return launch, first_enter


QUICK_TYPE_AFTER = 0.5
"""A quick user: the first message is typed this long after the prompt shows, not after the app settled."""


@dataclass
class QuickLaunches:
    """Enter -> request of the first and the second message, and the app's CPU over the first's wait (the
    work still left between Enter and the request: less at the mercy of a loaded machine than the wait)."""

    first: list[float] = field(default_factory=list)
    second: list[float] = field(default_factory=list)
    first_cpu: list[float] = field(default_factory=list)


def measure_quick_launches(tmux: Tmux, subject: Subject, tmp: Path, n: int) -> QuickLaunches:
    """`n` times: launch, type a message QUICK_TYPE_AFTER seconds after the prompt shows, and time Enter ->
    its request on the wire (what the app still builds after its first frame lands here); then, once that
    reply is on screen, a second message (the same, with the app's first-turn work behind it)."""
    server = ServerProcess([{"text": f"short reply {LAST_WORD}."}] * (2 * n), tmp)
    out = QuickLaunches()
    try:
        for i in range(n):
            pane = Pane(tmux, f"quick-{subject.key}-{i}", subject.command(server.openai_base_url, tmp))
            try:
                ready, _ = pane.wait_for(lambda s: subject.ready_text in s, 60, "the first screen")
                time.sleep(max(0.0, ready + QUICK_TYPE_AFTER - time.monotonic()))
                for k, latencies in enumerate((out.first, out.second)):
                    word = f"{TYPED}{k}"
                    pane.type(word)
                    pane.wait_for(lambda s, w=word: w in s, 10, "typed text echo")
                    cpu = tree_cpu(pane.pid)
                    enter = time.monotonic()
                    pane.key("Enter")
                    if not server.wait_requests(2 * i + k + 1, 30):
                        raise RuntimeError(f"{subject.key}: no request within 30 s of Enter")
                    if k == 0:
                        out.first_cpu.append(tree_cpu(pane.pid) - cpu)  # a little after: the read's delay
                    latencies.append(server.requests[2 * i + k][0] - enter)
                    shown, _ = pane.wait_for(
                        lambda s, c=k + 1: s.count(LAST_WORD) >= c, 30, "the short reply"
                    )
                    time.sleep(max(0.0, shown + QUICK_TYPE_AFTER - time.monotonic()))
            finally:
                pane.close()
    finally:
        server.stop()
    return out


def run_sdk(workload: Workload, tmp: Path, python: str) -> Result:
    server = ServerProcess([workload.call()], tmp)
    result = Result("sdk", workload.key)
    proc = subprocess.Popen(
        [python, str(HERE / "anchors" / "sdk_consumer.py"), server.openai_base_url, LAST_WORD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=_scrubbed_env({"HOME": str(tmp)}),
    )
    _CHILDREN.append(proc)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            raise RuntimeError("the SDK anchor did not start")
        proc.stdin.write("go\n")
        proc.stdin.flush()
        out = json.loads(proc.stdout.readline())
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
        server.stop()
    if not out["complete"]:
        result.note = "the SDK did not receive the whole reply"
    result.enter_to_last = out["finished"] - out["started"]
    result.cpu_per_s = out["cpu"] / result.enter_to_last
    answered = server.answered_at(0)
    result.last_byte_to_screen = None if answered is None else out["finished"] - answered
    result.enter_to_request = (server.request_at(0) or out["started"]) - out["started"]
    return result


# --------------------------------------------------------------------------------------------------
# The table


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "s":
        return f"{value:.2f} s" if value < 10 else f"{value:.1f} s"
    if unit == "ms":
        return f"{value * 1000:.0f} ms"
    if unit == "core":
        return f"{value:.2f}"
    if unit == "KiB/s":
        return f"{value:.0f}"
    if unit == "MB":
        return f"{value:.0f} MB"
    return f"{value:.2f}"


def _ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b <= 0:
        return "-"
    return f"{a / b:.2f}x"


METRICS: list[tuple[str, str, str]] = [
    ("cpu_per_s", "CPU core-s per s of streaming", "core"),
    ("enter_to_last", "Enter -> last word on screen", "s"),
    ("kib_per_s", "KiB/s written to the terminal", "KiB/s"),
    ("last_byte_to_screen", "last byte sent -> on screen", "s"),
    ("enter_to_request", "Enter -> request on the wire", "s"),
    ("longest_gap", "longest time without a screen change", "s"),
    ("key_echo", "key echo mid-stream (slowest of 3)", "ms"),
    ("peak_rss", "peak RSS", "MB"),
]
RSS_GOAL_MB = 150
"""Issue 18: peak RSS after a 20,000-word reply (Hermes' classic CLI: 150 MB)."""
SDK_RATIOS = {"cpu_per_s", "enter_to_last"}
"""The SDK is a floor for these two; its other numbers (request latency, its own last byte) are printed
as context, a ratio to them would say nothing."""


def print_table(workload: Workload, results: dict[str, Result], labels: dict[str, str]) -> None:
    order = [k for k in results]
    print(f"\n## {workload.title} ({workload.chunk_count():,} chunks)")
    head = ["metric", *(labels.get(k, k) for k in order)]
    ratios: list[tuple[str, str, str]] = []
    if "tui" in results and "sdk" in results:
        ratios.append(("tui/SDK", "tui", "sdk"))
    if "tui" in results and "bare" in results:
        ratios.append(("tui/bare", "tui", "bare"))
    for k in order:
        if k.startswith("tui@") and "tui" in results:
            ratios.append((f"{k}/tui", k, "tui"))
    head += [r[0] for r in ratios]
    rows = [head]
    for attr, name, unit in METRICS:
        row = [name, *(_fmt(getattr(results[k], attr), unit) for k in order)]
        row += [
            "-"
            if b == "sdk" and attr not in SDK_RATIOS
            else _ratio(getattr(results[a], attr), getattr(results[b], attr))
            for _, a, b in ratios
        ]
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    for n, row in enumerate(rows):
        print(
            "  ".join(
                cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row)
            )
        )
        if n == 0:
            print("  ".join("-" * w for w in widths))
    for k in order:
        r = results[k]
        extra = f"  (screen polled {r.polls_per_s:.0f}/s)" if r.polls_per_s else ""
        if r.note or extra:
            print(f"  {labels.get(k, k)}: {r.note}{extra}")
        if r.threads:
            shares = ", ".join(f"{name} {share:.0%}" for name, share in r.threads[:5])
            print(f"  {labels.get(k, k)} CPU by thread: {shares}")


# --------------------------------------------------------------------------------------------------
# Main


def _default_python(project: Path) -> str:
    venv = project / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def build_subjects(args: argparse.Namespace, project: Path, python: str) -> dict[str, Subject]:
    def base_env(tmp: Path, home: Path) -> str:
        env = _scrubbed_env(
            {
                "HOME": str(home),
                "HERMES_HOME": str(home / "hermes"),
                "TERM": "tmux-256color",
                "COLORTERM": "truecolor",
            }
        )
        return "env -i " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())

    def tui(base_url: str, tmp: Path) -> str:
        home = Path(tempfile.mkdtemp(prefix="home-", dir=tmp))
        (home / "hermes" / "tui").mkdir(parents=True)
        (home / "hermes" / "tui" / "config.yaml").write_text("auto_title: false\n", encoding="utf-8")
        work = home / "work"
        work.mkdir()
        (work / "notes.txt").write_text("some notes\n" * 20, encoding="utf-8")
        app = args.app_cmd.format(python=shlex.quote(python))
        flags = f"--base-url {base_url} --model bench --provider custom --api-key bench"
        flags += f" --cwd {shlex.quote(str(work))}"
        return f"cd {shlex.quote(str(project))} && exec {base_env(tmp, home)} {app} {flags}"

    def bare(base_url: str, tmp: Path) -> str:
        home = Path(tempfile.mkdtemp(prefix="home-", dir=tmp))
        script = shlex.quote(str(HERE / "anchors" / "textual_markdown_app.py"))
        run = f"{shlex.quote(python)} {script} {base_url}"
        return f"cd {shlex.quote(str(home))} && exec {base_env(tmp, home)} {run}"

    return {
        "bare": Subject("bare", "bare Textual", bare, "Ask the bare app"),
        "tui": Subject("tui", "hermes-tui", tui, args.ready_text),
    }


def _cleanup(tmux: Tmux | None, tmp: Path) -> None:
    for proc in _CHILDREN:
        if proc.poll() is None:
            proc.kill()
    if tmux is not None:
        tmux.kill()
    shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--project", default=str(ROOT), help="the checkout whose app is measured")
    parser.add_argument("--python", help="interpreter for the app and anchors (default: PROJECT/.venv)")
    parser.add_argument(
        "--app-cmd", default="{python} -m hermes_tui.cli", help="how to launch the app ({python} is replaced)"
    )
    parser.add_argument("--ready-text", default="Message Hermes", help="text that shows the app's prompt")
    parser.add_argument(
        "--only",
        default="launch,quick,50cps,200cps,burst",
        help="rows: launch (launch and Enter -> request, warm), quick (Enter -> request after a quick "
        "launch), and the workloads 50cps,200cps,burst",
    )
    parser.add_argument("--subjects", default="sdk,bare,tui", help="sdk,bare,tui")
    parser.add_argument(
        "--history", type=int, default=0, help="also measure after N earlier turns (e.g. 300)"
    )
    parser.add_argument("--history-workload", default="burst", help="the workload after the history")
    parser.add_argument("--quick", action="store_true", help="smaller workloads (a smoke run)")
    parser.add_argument(
        "--keep-output", metavar="DIR", help="copy the bytes each app wrote to the terminal into DIR"
    )
    parser.add_argument("--threads", action="store_true", help="hermes-tui's CPU by thread (py-spy names)")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds after the first frame")
    parser.add_argument("--launches", type=int, default=5, help="launches timed per terminal subject")
    parser.add_argument("--poll", type=float, default=0.02, help="screen poll interval")
    parser.add_argument("--timeout", type=float, default=300.0, help="per reply")
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args.serve)
    if shutil.which("tmux") is None:
        print("terminal_stream: needs tmux (Debian package 'tmux')", file=sys.stderr)
        return 2
    project = Path(args.project).resolve()
    python = args.python or _default_python(project)
    table = QUICK if args.quick else WORKLOADS
    only = [k for k in args.only.split(",") if k]
    unknown = [k for k in only if k not in table and k not in ("launch", "quick")]
    if unknown:
        parser.error(f"--only: unknown row {', '.join(unknown)}")
    chosen = [table[k] for k in only if k in table]
    wanted = [s for s in args.subjects.split(",") if s]
    tmp = Path(tempfile.mkdtemp(prefix="terminal-stream-"))
    tmux: Tmux | None = None
    atexit.register(lambda: _cleanup(tmux, tmp))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        tmux = Tmux(f"bench-{os.getpid()}")
        subjects = build_subjects(args, project, python)
        labels = {"sdk": "bare SDK", "bare": "bare Textual", "tui": "hermes-tui"}
        idle = Pane(tmux, "poll-cost", "sleep 86400")
        poll_cost = measure_poll_cost(tmux, idle)
        git = subprocess.run(
            ["git", "-C", str(project), "log", "-1", "--format=%h %s"], capture_output=True, text=True
        ).stdout.strip()
        print(f"project {project} ({git})\npython  {python}\napp     {args.app_cmd}")
        version = subprocess.run(["tmux", "-V"], capture_output=True, text=True).stdout.strip()
        print(
            f"terminal {WIDTH}x{HEIGHT} ({version}); "
            f"one capture-pane costs {poll_cost * 1000:.1f} ms CPU in tmux (not counted in the app); "
            f"{os.cpu_count()} cores"
        )
        if args.launches > 0 and "launch" in only:
            print(
                "\n## launch -> prompt visible, and the first Enter -> request on the wire after "
                f"{args.settle:g} s\n## (median of {args.launches} launches; fastest in brackets)"
            )
            medians: dict[str, tuple[float, float]] = {}
            for key in (k for k in wanted if k in subjects):
                launch, first = measure_launches(tmux, subjects[key], tmp, args.launches, args.settle)
                medians[key] = (statistics.median(launch), statistics.median(first))
                print(
                    f"  {labels[key]:<14} launch {medians[key][0]:.2f} s ({min(launch):.2f} s)   "
                    f"first Enter -> request {medians[key][1]:.3f} s ({min(first):.3f} s)"
                )
            if "bare" in medians and "tui" in medians:
                ratios = [medians["tui"][i] / medians["bare"][i] for i in (0, 1)]
                print(f"  hermes-tui / bare Textual: launch {ratios[0]:.2f}x, first Enter {ratios[1]:.2f}x")
        if args.launches > 0 and "quick" in only:
            print(
                f"\n## Enter -> request after a quick launch (typed {QUICK_TYPE_AFTER:g} s after the prompt "
                f"shows), and a second message\n## typed {QUICK_TYPE_AFTER:g} s after the first reply "
                f"(median of {args.launches} launches; fastest in brackets)"
            )
            for key in (k for k in wanted if k in subjects):
                quick = measure_quick_launches(tmux, subjects[key], tmp, args.launches)
                first, second = quick.first, quick.second
                print(
                    f"  {labels[key]:<14} first Enter -> request {statistics.median(first):.3f} s "
                    f"({min(first):.3f} s)   second {statistics.median(second):.3f} s ({min(second):.3f} s)"
                )
                print(
                    f"  {'':<14} each first: {', '.join(f'{x:.3f}' for x in first)}; the app's CPU meanwhile "
                    f"{statistics.median(quick.first_cpu):.2f} s (median)"
                )
        for workload in chosen:
            results: dict[str, Result] = {}
            for key in wanted:
                print(f"  running {labels.get(key, key)} on {workload.title}...", file=sys.stderr, flush=True)
                if key == "sdk":
                    results["sdk"] = run_sdk(workload, tmp, python)
                else:
                    results[key] = run_terminal(tmux, subjects[key], workload, tmp, args)
            if args.history and workload.key == args.history_workload and "tui" in wanted:
                print(f"  running hermes-tui after {args.history} turns...", file=sys.stderr, flush=True)
                results[f"tui@{args.history}"] = run_terminal(
                    tmux, subjects["tui"], workload, tmp, args, history=args.history
                )
                labels[f"tui@{args.history}"] = f"tui, turn {args.history + 1}"
            print_table(workload, results, labels)
            if workload.key == "burst" and "tui" in results and results["tui"].peak_rss is not None:
                anchor = results["bare"].peak_rss if "bare" in results else None
                verdict = "meets" if results["tui"].peak_rss <= RSS_GOAL_MB else "MISSES"
                print(
                    f"  peak RSS after the {workload.words:,}-word reply: "
                    f"hermes-tui {results['tui'].peak_rss:.0f} MB (bare Textual {_fmt(anchor, 'MB')})   "
                    f"goal <= {RSS_GOAL_MB} MB ({verdict})"
                )
    finally:
        _cleanup(tmux, tmp)
        tmux = None
    return 0


if __name__ == "__main__":
    sys.exit(main())

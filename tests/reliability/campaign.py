"""The reliability campaign: trials of each fault kind, each checked against the invariants a user relies on.

Invariants after any fault: the database passes `integrity_check`; every write the store had committed is
still there (messages lost = committed rows missing); after the next open no session is left "active", no
reply partial, no tool call without a result; streamed text the file lacks spans at most about a second
(text lost, measured on the child's own clock between the first unsaved delta and the last one received).

`tests/reliability/test_reliability.py` runs a few trials of each kind in the suite; the long run is
`python benchmarks/reliability.py --trials N`, which prints the table. Kinds: `kill9_stream`, `kill9_tool`
(kill -9 at a random moment of that phase), `provider` (the fault matrix, both wire protocols, `-z`),
`two_writers` (a second process continuing a session another one is writing), `storage` (each storage
fault, `-z`), `fuzz` (prompt and tool output bytes), `orphans_*` (`tests/reliability/orphans.py`: kill -9,
SIGTERM, SIGHUP and SIGINT of the TUI and of `-z` with background processes running: nothing left).
"""

from __future__ import annotations

import itertools
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent.core.messages import strip_surrogates
from agent.store.opening import open_store
from scripted import ScriptedServer
from tests.cli_process import run_cli
from tests.reliability.procs import Proc, descendants, listed, outliving

ROOT = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("child.py")
APIS = ("openai", "anthropic")
REAPED_WITHIN = 10.0  # seconds: the reaper's grace between SIGTERM and SIGKILL, with room on a loaded machine


@dataclass
class Trial:
    kind: str
    failures: list[str] = field(default_factory=list)
    messages_lost: int = 0
    text_lost_s: float = 0.0


@dataclass
class Row:
    kind: str
    trials: int = 0
    failures: int = 0
    messages_lost: int = 0
    text_lost_s: float = 0.0
    examples: list[str] = field(default_factory=list)

    def add(self, trial: Trial) -> None:
        self.trials += 1
        self.failures += bool(trial.failures)
        self.messages_lost += trial.messages_lost
        self.text_lost_s = max(self.text_lost_s, trial.text_lost_s)
        if trial.failures and len(self.examples) < 3:
            self.examples.append("; ".join(trial.failures))


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"HERMES_HOME": str(home), "PYTHONPATH": str(ROOT), "NO_PROXY": "127.0.0.1,localhost"})
    return env


def check_store(db: Path, trial: Trial) -> None:
    """The invariants every fault must leave true (see the module doc), recorded as the trial's failures."""
    if not db.exists():
        return
    raw = sqlite3.connect(db)
    try:
        verdict = raw.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        raw.close()
    if verdict != "ok":
        trial.failures.append(f"integrity_check: {verdict}")
        return
    store = open_store(db)  # repairs what a dead process left open
    try:
        for info in store.list_sessions():
            loaded = store.load(info.id)
            if info.status == "active":
                trial.failures.append(f"session {info.id} still active")
            if any(m.partial for m in loaded.messages):
                trial.failures.append(f"session {info.id} keeps a partial reply")
            answered = {m.tool_call_id for m in loaded.messages if m.role == "tool"}
            for message in loaded.messages:
                for call in message.tool_calls:
                    if call.id not in answered:
                        trial.failures.append(f"tool call {call.id} has no result")
    finally:
        store.close()


# ---------------------------------------------------------------------------------------------- kill -9

_KILL_SCENARIO = {
    "name": "kill",
    "calls": [
        {
            "text": "tick " * 150,
            "chunk_size": 5,
            "delay": 0.01,
            "tool_calls": [
                {"name": "terminal", "arguments": {"command": "sleep 1.5; echo one"}},
                {"name": "terminal", "arguments": {"command": "sleep 1.5; echo two"}},
            ],
        },
        {"text": "tock " * 400, "chunk_size": 5, "delay": 0.01},
    ],
}


class _ChildLog:
    """Reads the child's report lines as they come (a full pipe would stall the child)."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self._thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self._thread.start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            with self.changed:
                self.lines.append(line.split())
                self.changed.notify_all()
        with self.changed:
            self.lines.append(["eof"])
            self.changed.notify_all()

    def wait_for(self, predicate: Callable[[list[str]], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not any(predicate(line) for line in self.lines):
                left = deadline - time.monotonic()
                if left <= 0 or (self.lines and self.lines[-1] == ["eof"]):
                    return False
                self.changed.wait(left)
            return True

    def join(self) -> None:
        self._thread.join(timeout=10)


def kill9_trial(kind: str, rng: random.Random, api: str = "openai") -> Trial:
    """Run the child turn, kill -9 it at a random moment of the phase `kind` names, check the file."""
    trial = Trial(kind)
    with tempfile.TemporaryDirectory(prefix="hermes-rel-") as tmp, ScriptedServer(_KILL_SCENARIO) as server:
        home, cwd = Path(tmp) / "home", Path(tmp) / "cwd"
        cwd.mkdir(parents=True)
        url = server.anthropic_base_url if api == "anthropic" else server.openai_base_url
        proc = subprocess.Popen(
            [sys.executable, str(CHILD), str(home), str(cwd), url, api],
            env=_env(home),
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        log = _ChildLog(proc)
        try:
            if kind == "kill9_tool":
                reached = log.wait_for(lambda line: line[:1] == ["tool"], 60)
                delay = rng.uniform(0.0, 1.4)
            else:
                reached = log.wait_for(lambda line: line[:1] == ["text"], 60)
                delay = rng.uniform(0.05, 2.5)
            if not reached:
                trial.failures.append(f"the child never reached its phase: {proc.stderr.read()[-300:]}")
                return trial
            time.sleep(delay)  # the fault's moment: random by design, not a wait for a condition
            started = descendants(proc.pid)  # the tool's commands and the reaper, which outlives the child
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
            _check_reaped(started, trial)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=10)
            log.join()
        _lost(home / "tui" / "state.db", log.lines, trial)
        check_store(home / "tui" / "state.db", trial)
    return trial


def _check_reaped(started: list[Proc], trial: Trial) -> None:
    """Everything the killed child started ends within REAPED_WITHIN: the reaper stops the tool's commands
    (SIGTERM, then SIGKILL after its grace) and writes the leftovers file into the home, so the trial's
    folder can only be removed once it is done."""
    left = outliving(started, REAPED_WITHIN)
    if left:
        trial.failures.append(f"alive {REAPED_WITHIN:g} s after kill -9: {listed(left)}")


def _lost(db: Path, lines: list[list[str]], trial: Trial) -> None:
    """Committed rows missing from the file, and the span of streamed text it lacks (see the module doc)."""
    saved: dict[int, int] = {}
    for line in lines:
        if line[:1] in (["saved"], ["checkpoint"]):
            saved[int(line[1])] = max(saved.get(int(line[1]), 0), int(line[2]))
    if not db.exists():
        trial.messages_lost = len(saved)
        return
    raw = sqlite3.connect(db)
    try:
        stored = {row[0]: len(row[1]) for row in raw.execute("SELECT id, content FROM messages")}
    finally:
        raw.close()
    trial.messages_lost = sum(1 for rid, chars in saved.items() if stored.get(rid, -1) < chars)
    # The reply streaming when the kill came: its deltas after the last stored length were lost.
    deltas = []
    for line in reversed(lines):
        if line[:1] == ["tool"]:
            break
        if line[:1] == ["text"]:
            deltas.append((int(line[1]), float(line[2])))
    if not deltas:
        return
    deltas.reverse()
    last_row = max(stored) if stored else None
    kept = stored.get(last_row, 0) if last_row is not None else 0
    unsaved = [t for chars, t in deltas if chars > kept]
    if unsaved:
        trial.text_lost_s = unsaved[-1] - unsaved[0]


# ---------------------------------------------------------------------------------------------- -z faults


def _headless(
    home: Path, cwd: Path, args: list[str], timeout: float = 90
) -> subprocess.CompletedProcess[str]:
    return run_cli(args, cwd=cwd, env=_env(home), timeout=timeout)


def _one_line_exit(proc: subprocess.CompletedProcess[str], trial: Trial, code: int, needle: str) -> None:
    if "Traceback" in proc.stderr:
        trial.failures.append(f"traceback: {proc.stderr.strip().splitlines()[-1]}")
    if proc.returncode != code:
        trial.failures.append(f"exit {proc.returncode}, expected {code}: {proc.stderr.strip()[-200:]}")
    if needle not in proc.stderr:
        trial.failures.append(f"{needle!r} not in {proc.stderr.strip()[-200:]!r}")


PROVIDER_FAULTS: dict[str, tuple[dict[str, object], int, str]] = {
    # name: (the failing call, exit code, what stderr must say)
    "429": ({"fault": {"status": 429, "message": "slow down"}}, 1, "hermes-tui: "),
    "500": ({"fault": {"status": 500, "message": "boom"}}, 1, "hermes-tui: "),
    "401": ({"fault": {"status": 401, "message": "bad key"}}, 1, "hermes-tui: "),
    "cut": ({"text": "half a reply " * 20, "fault": {"kind": "cut", "after_chunks": 8}}, 1, "hermes-tui: "),
}


def provider_trial(fault: str, api: str) -> Trial:
    trial = Trial("provider")
    call, code, needle = PROVIDER_FAULTS[fault]
    scenario = {"name": fault, "calls": [call]}
    with tempfile.TemporaryDirectory(prefix="hermes-rel-") as tmp, ScriptedServer(scenario) as server:
        home, cwd = Path(tmp) / "home", Path(tmp)
        url = server.anthropic_base_url if api == "anthropic" else server.openai_base_url
        provider = "anthropic" if api == "anthropic" else "custom"
        _write(home / "tui" / "config.yaml", b"max_retries: 0\n")  # the first failure is the last
        args = [
            "-z",
            "hi",
            "--provider",
            provider,
            "--base-url",
            url,
            "--model",
            "scripted",
            "--api-key",
            "k",
        ]
        proc = _headless(home, cwd, args)
        _one_line_exit(proc, trial, code, needle)
        check_store(home / "tui" / "state.db", trial)
    return trial


def two_writers_trial() -> Trial:
    """A `-c` while another process streams into the same session: refused in one line, rows not mixed."""
    trial = Trial("two_writers")
    with tempfile.TemporaryDirectory(prefix="hermes-rel-") as tmp, ScriptedServer(_KILL_SCENARIO) as server:
        home, cwd = Path(tmp) / "home", Path(tmp) / "cwd"
        cwd.mkdir(parents=True)
        proc = subprocess.Popen(
            [sys.executable, str(CHILD), str(home), str(cwd), server.openai_base_url, "openai"],
            env=_env(home),
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        log = _ChildLog(proc)
        try:
            if not log.wait_for(lambda line: line[:1] == ["text"], 60):
                trial.failures.append("the writer never streamed")
                return trial
            second = _headless(home, cwd, ["-z", "me too", "--demo", "-c"])
            _one_line_exit(second, trial, 1, "is open in another hermes-tui")
        finally:
            proc.kill()
            proc.wait(timeout=10)
            log.join()
        check_store(home / "tui" / "state.db", trial)
        store = open_store(home / "tui" / "state.db")
        try:
            for info in store.list_sessions():
                roles = [m.role for m in store.load(info.id).messages]
                if any(a == b == "user" for a, b in itertools.pairwise(roles)):
                    trial.failures.append(f"interleaved rows: {roles}")
        finally:
            store.close()
    return trial


def _newer_schema(db: Path) -> None:
    from agent.store import SessionStore

    SessionStore(db).close()
    raw = sqlite3.connect(db)
    raw.execute("INSERT INTO schema_version (version, applied_at) VALUES (99, 0)")
    raw.commit()
    raw.close()


STORAGE_FAULTS: dict[str, tuple[Callable[[Path], None], str]] = {
    "home_is_file": (lambda home: home.write_text("x"), "is a file"),
    "garbage_db": (lambda home: _write(home / "tui" / "state.db", os.urandom(16384)), "hermes-tui doctor"),
    "text_db": (lambda home: _write(home / "tui" / "state.db", b"not a database\n" * 500), "doctor"),
    "truncated_header": (lambda home: _write(home / "tui" / "state.db", b"SQLite format 3\x00"), "doctor"),
    "newer_schema": (lambda home: _newer_schema(home / "tui" / "state.db"), "schema version 99"),
}


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def storage_trial(fault: str) -> Trial:
    trial = Trial("storage")
    make, needle = STORAGE_FAULTS[fault]
    with tempfile.TemporaryDirectory(prefix="hermes-rel-") as tmp:
        home = Path(tmp) / "home"
        if fault != "home_is_file":
            home.mkdir()
        make(home)
        before = (home / "tui" / "state.db").read_bytes() if (home / "tui" / "state.db").is_file() else None
        proc = _headless(home, Path(tmp), ["-z", "hi", "--demo"])
        _one_line_exit(proc, trial, 1, needle)
        if len(proc.stderr.strip().splitlines()) != 1:
            trial.failures.append(f"not one line: {proc.stderr.strip()!r}")
        if (
            before is not None
            and fault != "newer_schema"
            and (home / "tui" / "state.db").read_bytes() != before
        ):
            trial.failures.append("the damaged file was written to")
    return trial


# ---------------------------------------------------------------------------------------------- fuzz


def _random_text(rng: random.Random) -> str:
    alphabet = [chr(c) for c in (*range(0, 0x20), 0x7F, *range(0x80, 0xA0), 0x202E, 0xFEFF, 0xD800)]
    alphabet += list("abc [bold]x[/] \x1b[31m \x1b]52;c;QQ==\x07 é 漢 🙂 \\ ' \" $(rm) `x`")
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 200)))


def fuzz_trial(rng: random.Random) -> Trial:
    """A prompt and a tool output of arbitrary characters: the turn completes and the file holds both."""
    from agent.core.ui import NullUI
    from agent.session.session import Session
    from agent.store import SessionStore
    from scripted import scripted_settings

    trial = Trial("fuzz")
    prompt = _random_text(rng) or "x"
    output = _random_text(rng)
    with tempfile.TemporaryDirectory(prefix="hermes-rel-") as tmp:
        home, cwd = Path(tmp) / "home", Path(tmp)
        (cwd / "out.bin").write_bytes(output.encode("utf-8", "surrogatepass") + rng.randbytes(64))
        calls = [
            {"tool_calls": [{"name": "terminal", "arguments": {"command": "cat out.bin"}}]},
            {"text": strip_surrogates(output)},
        ]
        with ScriptedServer({"name": "fuzz", "calls": calls}) as server:
            settings = scripted_settings(server, model="scripted", hermes_home=home, cwd=cwd, yolo=True)
            store = SessionStore(home / "tui" / "state.db")
            agent = Session(settings, ui=NullUI(), store=store)
            try:
                result = agent.run_conversation(prompt)
                if result.exit_reason != "completed":
                    trial.failures.append(f"exit {result.exit_reason}: {result.error}")
                stored = store.load(result.session_id).messages
                if stored[0].content != strip_surrogates(prompt):
                    trial.failures.append("the prompt was not stored as typed")
                if len(stored) != 4:
                    trial.failures.append(f"{len(stored)} rows, expected 4")
            except Exception as exc:
                trial.failures.append(f"{type(exc).__name__}: {exc}")
            finally:
                agent.close()
                store.close()
        check_store(home / "tui" / "state.db", trial)
    return trial


# ---------------------------------------------------------------------------------------------- the run


def campaign(trials: int, seed: int = 20) -> list[Row]:
    """`trials` of each kill -9 kind and of fuzz; the provider, two-writer and storage matrices once per
    `max(1, trials // 10)` rounds (each round covers every case)."""
    rng = random.Random(seed)
    rows = {
        kind: Row(kind)
        for kind in ("kill9_stream", "kill9_tool", "provider", "two_writers", "storage", "fuzz")
    }
    for index in range(trials):
        api = APIS[index % 2]
        rows["kill9_stream"].add(kill9_trial("kill9_stream", rng, api))
        rows["kill9_tool"].add(kill9_trial("kill9_tool", rng, api))
        rows["fuzz"].add(fuzz_trial(rng))
    from tests.reliability import orphans

    for fault in orphans.FAULTS:
        rows[f"orphans_z_{fault}"] = Row(f"orphans_z_{fault}")
        rows[f"orphans_tui_{fault}"] = Row(f"orphans_tui_{fault}")
    for _round in range(max(1, trials // 10)):
        for fault in orphans.FAULTS:
            rows[f"orphans_z_{fault}"].add(orphans.headless_trial(fault))
            rows[f"orphans_tui_{fault}"].add(orphans.tui_trial(fault))
        for fault in PROVIDER_FAULTS:
            for api in APIS:
                rows["provider"].add(provider_trial(fault, api))
        rows["two_writers"].add(two_writers_trial())
        for fault in STORAGE_FAULTS:
            rows["storage"].add(storage_trial(fault))
    return list(rows.values())


def table(rows: list[Row]) -> str:
    lines = [
        f"{'fault kind':<20} {'trials':>6} {'failures':>8} {'messages lost':>13} {'text lost (max s)':>17}"
    ]
    for row in rows:
        counts = f"{row.trials:>6} {row.failures:>8} {row.messages_lost:>13}"
        lines.append(f"{row.kind:<20} {counts} {row.text_lost_s:>17.2f}")
        lines.extend(f"    e.g. {example}" for example in row.examples)
    return "\n".join(lines)

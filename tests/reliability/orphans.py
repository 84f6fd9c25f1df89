"""Nothing left running: the TUI and `-z` with background processes the model started (a plain `sleep`
and an HTTP server), under kill -9, SIGTERM, SIGHUP (for the TUI: its terminal closed) and SIGINT.

Every process the app started (its children, their children, the reaper) is noted from `/proc` before
the fault; 2 s after the app is gone none may be alive, checked by pid and start time and by process
group. After a kill -9 the leftovers file names what the reaper stopped (the next start tells it); after a
signal the app could answer, the terminal is back on the main screen, stderr holds no traceback, and the
session keeps a note of what was stopped. The store holds to the campaign's invariants either way.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.reliability.campaign import ROOT, Trial, _env, check_store
from tests.reliability.procs import (
    Proc,
    carrying,
    cmdline,
    descendants,
    listed,
    outliving,
    pid_gone,
    read_stat,
    wait_until,
)

GONE_WITHIN = 2.0  # seconds after the app is gone
# The dev server logs to a file, not to the app's pipe: with PYTHONUNBUFFERED its banner, written a moment
# after it appears in /proc, would hit a closed pipe after a kill -9 of the app and end it by itself
# before the reaper looks, and the leftovers file would rightly not name it (seen on a loaded machine).
SERVER = "python3 -m http.server 0 --bind 127.0.0.1 > http.log 2>&1"
MARKERS = ("sleep 300", "http.server")

FAULTS = ("kill9", "sigterm", "sighup", "sigint")


def scenario(during_turn: bool) -> dict[str, object]:
    """Two background processes, then a reply: a long slow one when the fault must come mid-turn."""
    start = {
        "tool_calls": [
            {"name": "terminal", "arguments": {"command": "sleep 300", "background": True}},
            {"name": "terminal", "arguments": {"command": SERVER, "background": True}},
        ]
    }
    reply = (
        {"text": "serving " * 400, "chunk_size": 4, "delay": 0.05}
        if during_turn
        else {"text": "Both are running."}
    )
    return {"name": "orphans", "calls": [start, reply]}


def _started(app_pid: int, markers: tuple[str, ...] = MARKERS) -> list[Proc] | None:
    """The app's processes once one runs for each of `markers` (None: they never did)."""
    found: list[Proc] = []

    def ready() -> bool:
        nonlocal found
        found = descendants(app_pid)
        return all(any(marker in p.cmdline for p in found) for marker in markers)

    return found if wait_until(ready, 60, 0.1) else None


def _check_gone(
    procs: list[Proc], gone_at: float, trial: Trial, spared: frozenset[int] = frozenset()
) -> None:
    left = outliving(procs, gone_at + GONE_WITHIN - time.monotonic(), spared)
    if left:
        trial.failures.append(f"alive {GONE_WITHIN:g} s after the app: {listed(left)}")


def _check_leftovers(home: Path, fault: str, trial: Trial) -> None:
    path = home / "tui" / "leftovers.jsonl"
    text = path.read_text() if path.exists() else ""
    if fault == "kill9":
        for marker in MARKERS:
            if marker not in text:
                trial.failures.append(f"the leftovers file does not name {marker!r}: {text[:200]!r}")


def _check_note(db: Path, fault: str, trial: Trial) -> None:
    """After an orderly exit, the session says which background processes were stopped."""
    if fault == "kill9" or not db.exists():
        return
    import sqlite3

    raw = sqlite3.connect(db)
    try:
        notes = [row[0] for row in raw.execute("SELECT content FROM messages WHERE role = 'user'")]
    finally:
        raw.close()
    if not any("were stopped" in note and "sleep 300" in note for note in notes):
        trial.failures.append("no note of the stopped processes in the session")


@contextlib.contextmanager
def _trial_dirs() -> Iterator[tuple[Path, Path, Path]]:
    """(tmp, home, cwd) of one trial: a fresh temporary directory with an empty working directory."""
    with tempfile.TemporaryDirectory(prefix="hermes-rel-") as tmp_name:
        tmp = Path(tmp_name)
        home, cwd = tmp / "home", tmp / "cwd"
        cwd.mkdir(parents=True)
        yield tmp, home, cwd


def _start_z(args: list[str], home: Path, cwd: Path, **popen: Any) -> subprocess.Popen[str]:
    """`hermes-tui <args>` (a `-z` run) in `cwd` with the trial's HERMES_HOME."""
    return subprocess.Popen(
        [sys.executable, "-m", "hermes_tui.cli", *args], cwd=cwd, env=_env(home), text=True, **popen
    )


def _tmux_env(home: Path) -> dict[str, str]:
    """The trial's environment for a tmux server of its own (nothing of the test's own tmux inherited)."""
    env = {k: v for k, v in _env(home).items() if not k.startswith("TMUX")}
    env["TERM"] = "xterm-256color"
    return env


def _tmux_session(socket: str, env: dict[str, str], command: str) -> int:
    """A detached 120x40 tmux session running `command`; its pane's pid (0 when tmux failed)."""
    _tmux(socket, env, "-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "120", "-y", "40", command)
    return int(_tmux(socket, env, "display", "-p", "-t", "t", "#{pane_pid}").strip() or 0)


def _check_marked(home: Path, trial: Trial, within: float = 0.0) -> None:
    """Nothing anywhere runs with the trial's HERMES_HOME (what was reparented to init included), at once
    or within `within` seconds (the test's own tmux server and shell going after `kill-server`)."""
    wait_until(lambda: not marked(home), within)
    left = marked(home)
    if left:
        trial.failures.append(
            "still running with the trial's HERMES_HOME: " + "; ".join(cmdline(p)[:60] for p in left)
        )
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def _scenario_file(tmp: Path, during_turn: bool) -> Path:
    path = tmp / "scenario.json"
    path.write_text(json.dumps(scenario(during_turn)))
    return path


def headless_trial(fault: str) -> Trial:
    """`-z` mid-turn with two background processes, then the fault."""
    trial = Trial(f"orphans_z_{fault}")
    with _trial_dirs() as (tmp, home, cwd):
        args = ["-z", "start them", "--scenario", str(_scenario_file(tmp, True)), "--yolo"]
        proc = _start_z(args, home, cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            procs = _started(proc.pid)
            if procs is None:
                trial.failures.append("the background processes never started")
                return trial
            sig = {"kill9": signal.SIGKILL, "sigterm": signal.SIGTERM, "sighup": signal.SIGHUP}.get(
                fault, signal.SIGINT
            )
            os.kill(proc.pid, sig)
            try:
                _, err = proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                trial.failures.append(f"-z still running 30 s after {fault}")
                proc.kill()
                _, err = proc.communicate()
            gone_at = time.monotonic()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        _check_gone(procs, gone_at, trial)
        if "Traceback" in err:
            trial.failures.append(f"traceback: {err.strip().splitlines()[-1]}")
        if fault != "kill9" and "stopped background process" not in err:
            trial.failures.append(f"-z did not say what it stopped: {err.strip()[-200:]!r}")
        _check_leftovers(home, fault, trial)
        _check_note(home / "tui" / "state.db", fault, trial)
        check_store(home / "tui" / "state.db", trial)
    return trial


def _tmux(socket: str, env: dict[str, str], *args: str) -> str:
    done = subprocess.run(["tmux", "-L", socket, *args], env=env, capture_output=True, text=True, timeout=10)
    return done.stdout


def tui_trial(fault: str, *, during_turn: bool = False, exit_within: float = 30.0) -> Trial:
    """The TUI in a real terminal (tmux), two background processes running, then the fault. SIGHUP is
    the terminal itself going away (the tmux server killed). The app must be gone within `exit_within`
    seconds of the fault, and nothing it started (nor anything with its HERMES_HOME) 2 s after that."""
    trial = Trial(f"orphans_tui_{fault}")
    if shutil.which("tmux") is None:
        trial.failures.append("tmux is not installed")
        return trial
    with _trial_dirs() as (tmp, home, cwd):
        env = _tmux_env(home)
        socket = f"hermes-rel-{uuid.uuid4().hex[:8]}"
        app = f"{sys.executable} -m hermes_tui.cli --scenario {_scenario_file(tmp, during_turn)} --yolo"
        pane = _tmux_session(socket, env, f"cd {cwd} && {app}; echo app-exit-$?; sleep 60")
        try:
            app_pid = 0

            def found_app() -> bool:
                nonlocal app_pid
                for p in descendants(pane):
                    if "hermes_tui.cli" in p.cmdline:
                        app_pid = p.pid
                        return True
                return False

            if not pane or not wait_until(found_app, 30):
                trial.failures.append("the app never started")
                return trial
            wait_until(lambda: "Message Hermes" in _screen(socket, env), 30, 0.1)
            _tmux(socket, env, "send-keys", "-t", "t", "start them", "Enter")
            procs = _started(app_pid)
            if procs is None:
                trial.failures.append(
                    f"the background processes never started: {_screen(socket, env)[-300:]}"
                )
                return trial
            # The app runs in the pane shell's group, the terminal's foreground job: a short-lived child of
            # the app's own (a checkpoint's `git`) noted above shares it with the shell's `sleep 60` to come.
            # Such a child is still checked by its pid; the group's other members are the test's.
            app_stat = read_stat(app_pid)
            app_group = frozenset({app_stat[2]} if app_stat else ())
            if not during_turn:
                wait_until(lambda: "Both are running." in _screen(socket, env), 30, 0.1)
            fault_at = time.monotonic()
            if fault == "sighup":
                _tmux(socket, env, "kill-server")  # the terminal window closed
            else:
                sig = {"kill9": signal.SIGKILL, "sigterm": signal.SIGTERM}.get(fault, signal.SIGINT)
                os.kill(app_pid, sig)
            if not wait_until(lambda: pid_gone(app_pid), 30):
                trial.failures.append(f"the app still runs 30 s after {fault}")
                os.kill(app_pid, signal.SIGKILL)
            gone_at = time.monotonic()
            if gone_at - fault_at > exit_within:
                trial.failures.append(f"the app took {gone_at - fault_at:.1f} s to exit after {fault}")
            _check_gone(procs, gone_at, trial, app_group)
            if fault in ("sigterm", "sigint"):
                wait_until(lambda: "app-exit-" in _screen(socket, env), 5, 0.1)
                shown = _screen(socket, env)
                if _tmux(socket, env, "display", "-p", "-t", "t", "#{alternate_on}").strip() != "0":
                    trial.failures.append("the terminal was left in the alternate screen")
                if "Traceback" in shown:
                    trial.failures.append("a traceback on the screen")
                if "stopped background process" not in shown:
                    trial.failures.append(f"the quit did not say what it stopped: {shown.strip()[-300:]!r}")
        finally:
            _tmux(socket, env, "kill-server")
        # Nothing with the trial's HERMES_HOME once its terminal is gone too (the tmux server and the pane's
        # shell have it: they are the test's, and go with `kill-server`; for SIGHUP that was the fault).
        _check_marked(home, trial, within=GONE_WITHIN)
        _check_leftovers(home, fault, trial)
        _check_note(home / "tui" / "state.db", fault, trial)
        check_store(home / "tui" / "state.db", trial)
    return trial


def _screen(socket: str, env: dict[str, str]) -> str:
    return _tmux(socket, env, "capture-pane", "-p", "-t", "t")


# ---------------------------------------------------------------------------------------------- MCP servers

MUTE_SERVER = """
import subprocess, time
subprocess.Popen(["sleep", "301"])  # the server's own child, in its group
time.sleep(600)  # never answers, never reads stdin: EOF means nothing to it
"""
MCP_MARKERS = ("sleep 301", "mcp_fixture_server.py")


def _mcp_home(home: Path, tmp: Path) -> None:
    """Two stdio servers: one that spawns a child and ignores its stdin, and a real one."""
    mute = tmp / "mute_server.py"
    mute.write_text(MUTE_SERVER)
    fixture = ROOT / "tests" / "mcp_fixture_server.py"
    servers = {
        "mute": {"command": sys.executable, "args": [str(mute)], "connect_timeout": 120},
        "fixture": {"command": sys.executable, "args": [str(fixture), "stdio"]},
    }
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(json.dumps({"mcp_servers": servers}))


def mcp_trial(target: str, fault: str) -> Trial:
    """`-z` (waiting for the servers to connect) or the TUI (connected after its first frame) with a
    server that has a child of its own and ignores EOF, and a real one; then kill -9 or SIGHUP."""
    trial = Trial(f"orphans_mcp_{target}_{fault}")
    with _trial_dirs() as (tmp, home, cwd):
        _mcp_home(home, tmp)
        sig = signal.SIGKILL if fault == "kill9" else signal.SIGHUP
        if target == "z":
            args = ["-z", "hi", "--scenario", str(_scenario_file(tmp, False)), "--yolo"]
            proc = _start_z(args, home, cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            try:
                procs = _started(proc.pid, MCP_MARKERS)
                if procs is None:
                    trial.failures.append("the MCP servers never started")
                    return trial
                os.kill(proc.pid, sig)
                _, err = proc.communicate(timeout=30)
                gone_at = time.monotonic()
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            _check_gone(procs, gone_at, trial)
            if "Traceback" in err:
                trial.failures.append(f"traceback: {err.strip().splitlines()[-1]}")
            return trial
        env = _tmux_env(home)
        socket = f"hermes-rel-{uuid.uuid4().hex[:8]}"
        app = f"cd {cwd} && exec {sys.executable} -m hermes_tui.cli --scenario {_scenario_file(tmp, False)}"
        pane = _tmux_session(socket, env, app)
        try:
            procs = _started(pane, MCP_MARKERS) if pane else None
            if procs is None:
                trial.failures.append("the MCP servers never started")
                return trial
            # No pause: a server runs only once its group is registered (the gate); the moments around its
            # spawn are `mcp_spawn_trial`'s.
            if fault == "sighup":
                _tmux(socket, env, "kill-server")
            else:
                os.kill(pane, sig)
            if not wait_until(lambda: pid_gone(pane), 30):
                trial.failures.append(f"the app still runs 30 s after {fault}")
            _check_gone(procs, time.monotonic(), trial)
        finally:
            _tmux(socket, env, "kill-server")
    return trial


SPAWN_KILLS = 8  # kill -9s per run of `mcp_spawn_trial`
GATE_ENDS = 30.0  # seconds for a gate the dead app never let go to end by itself


def processes_marked(marker: str) -> list[int]:
    """Every live process, anywhere (init's adopted orphans included), with `marker` in its command line
    or its environment."""
    return carrying(marker.encode(), in_cmdline=True)


def _is_gate(pid: int) -> bool:
    """Whether `pid` still runs the gate (`agent.children.gate`), not yet the command it becomes on the
    app's go (its command line ends with that command's, marker included)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return len(argv) > 4 and argv[1:4] == [b"-S", b"-E", b"-c"] and b"agent.children.gate import" in argv[4]


def mcp_spawn_trial(rng: random.Random, kills: int = SPAWN_KILLS) -> Trial:
    """kill -9 of a process running the MCP manager (`mcp_child.py`) at moments around its stdio server's
    spawn: before it, as the server's process appears (before the manager could have registered its group
    with the supervisor), and a little after. The server spawns a child and ignores EOF; 2 s after the kill
    nothing with the kill's marker (in its command line or environment) may run, nor anything with the
    trial's HERMES_HOME (the reaper)."""
    trial = Trial("orphans_mcp_spawn_kill9")
    for attempt in range(kills):
        _spawn_kill(attempt, rng, trial)
    return trial


def _spawn_kill(attempt: int, rng: random.Random, trial: Trial) -> None:
    with _trial_dirs() as (tmp, home, cwd):
        marker = f"hermes-spawn-{uuid.uuid4().hex[:12]}"
        mute = tmp / "mute_server.py"
        mute.write_text(MUTE_SERVER)
        server = {
            "command": sys.executable,
            "args": [str(mute), marker],
            "env": {"HERMES_SPAWN_MARK": marker},
            "connect_timeout": 120,
        }
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.yaml").write_text(json.dumps({"mcp_servers": {"mute": server}}))
        child = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "reliability" / "mcp_child.py"), str(home)],
            cwd=cwd,
            env=_env(home),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            assert child.stdout is not None
            if child.stdout.readline().strip() != "go":
                trial.failures.append(f"kill {attempt}: the manager never started")
                return
            if attempt % 2:  # anywhere from before the spawn to well after it
                delay = rng.uniform(0, 0.25)
                moment = f"{delay:.3f} s after go"
            else:  # as soon as the server's process shows, or a few ms later
                wait_until(lambda: bool(processes_marked(marker)), 30, 0.001)
                delay = rng.choice([0.0, 0.0, rng.uniform(0, 0.03)])
                moment = f"{delay:.3f} s after the server's process appeared"
            time.sleep(delay)
            os.kill(child.pid, signal.SIGKILL)
            child.wait(10)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        wait_until(lambda: not processes_marked(marker) and not marked(home), GONE_WITHIN)
        left, within = processes_marked(marker), GONE_WITHIN
        if left and all(map(_is_gate, left)):
            # Gates the dead app never let go (started just before the kill, and the reaper looked before
            # their environment was their own): the server never ran, and they must end by themselves,
            # never becoming it. A loaded machine can hold a new process's first steps for seconds.
            wait_until(lambda: not (ps := processes_marked(marker)) or not all(map(_is_gate, ps)), GATE_ENDS)
            left, within = processes_marked(marker), GATE_ENDS
        if left:
            trial.failures.append(
                f"kill {attempt} ({moment}): alive {within:g} s after: "
                + "; ".join(f"{pid} {'(gate) ' * _is_gate(pid)}{cmdline(pid)[-70:]}" for pid in left)
            )
        for pid in left + marked(home):  # the next kill (and test) must not inherit them
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        wait_until(lambda: not marked(home), 5)  # nothing writes into the folder as it is removed


# ---------------------------------------------------------------------------------------------- subagents

SUBAGENT_SCENARIO = {
    "name": "subagent",
    "calls": [
        {"tool_calls": [{"name": "delegate_task", "arguments": {"goal": "serve the docs"}}]},
        {
            "match": "serve the docs",
            "tool_calls": [{"name": "terminal", "arguments": {"command": "sleep 302"}}],
        },
        {"match": "serve the docs", "text": "served"},
        {"text": "done"},
    ],
}


def subagent_trial() -> Trial:
    """kill -9 of `-z` while its subagent's terminal command runs: the command goes with it, the store
    holds, and the next `-c` continues the user's conversation, not the subagent's."""
    trial = Trial("orphans_subagent_kill9")
    with _trial_dirs() as (tmp, home, cwd):
        path = tmp / "subagent.json"
        path.write_text(json.dumps(SUBAGENT_SCENARIO))
        args = ["-z", "delegate it", "--scenario", str(path), "--yolo"]
        proc = _start_z(args, home, cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            procs = _started(proc.pid, ("sleep 302",))
            if procs is None:
                trial.failures.append("the subagent's command never started")
                return trial
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
            gone_at = time.monotonic()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        _check_gone(procs, gone_at, trial)
        check_store(home / "tui" / "state.db", trial)
        again = tmp / "again.json"
        again.write_text(json.dumps({"name": "again", "calls": [{"text": "continued"}]}))
        done = subprocess.run(
            [sys.executable, "-m", "hermes_tui.cli", "-z", "and now?", "-c", "--scenario", str(again)],
            cwd=cwd,
            env=_env(home),
            capture_output=True,
            text=True,
            timeout=60,
        )
        if done.returncode != 0 or "Traceback" in done.stderr:
            trial.failures.append(f"-c failed: {done.stderr.strip()[-200:]!r}")
        import sqlite3

        raw = sqlite3.connect(home / "tui" / "state.db")
        try:
            rows = raw.execute(
                "SELECT s.source FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.content = ?",
                ("and now?",),
            ).fetchall()
        finally:
            raw.close()
        if [r[0] for r in rows] != ["headless"]:
            trial.failures.append(f"-c continued a session of source {rows}, not the user's")
    return trial


__all__ = [
    "FAULTS",
    "ROOT",
    "headless_trial",
    "marked",
    "mcp_spawn_trial",
    "mcp_trial",
    "processes_marked",
    "subagent_trial",
    "tool_child_trial",
    "tui_trial",
]


# ------------------------------------------------------------------------------- the browser and scripts

LONG_SCRIPT = (
    "import subprocess, time\n"
    "subprocess.Popen(['sleep', '304'])  # the script's own child, in its group\n"
    "print('started', flush=True)\n"
    "time.sleep(600)\n"
)
TOOL_CHILD_MARKERS = {"browser": ("run-driver", "chromium"), "script": ("script.py", "sleep 304")}


def marked(home: Path) -> list[int]:
    """Every live process, anywhere, whose environment names this trial's HERMES_HOME: what the app
    started and their children, also those reparented to init (Chromium's crash handlers are)."""
    return carrying(f"HERMES_HOME={home}\0".encode())


def tool_child_trial(kind: str) -> Trial:
    """kill -9 of `-z` while the session's browser waits on a page that never loads, or while an
    `execute_code` script sleeps: the driver, Chromium, the script and what it started are gone 2 s
    later (by pid, by group, and by the trial's HERMES_HOME in any process's environment)."""
    from tests.web_standins import never_loading_site

    trial = Trial(f"orphans_{kind}_kill9")
    with _trial_dirs() as (tmp, home, cwd), never_loading_site() as site:
        if kind == "browser":
            calls = [
                {"name": "browser_navigate", "arguments": {"url": f"{site.url}/"}},
                {"name": "browser_navigate", "arguments": {"url": f"{site.url}/never"}},
            ]
        else:
            calls = [{"name": "execute_code", "arguments": {"code": LONG_SCRIPT}}]
        steps: list[object] = [{"tool_calls": [call]} for call in calls]
        path = tmp / "scenario.json"
        path.write_text(json.dumps({"name": kind, "calls": [*steps, {"text": "done"}]}))
        proc = _start_z(
            ["-z", "go", "--scenario", str(path)],
            home,
            cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            procs = _started(proc.pid, TOOL_CHILD_MARKERS[kind])
            if procs is None:
                trial.failures.append(f"the {kind} never started")
                return trial
            # The script and its child both run (`_started` saw them): it is past its Popen. The browser is
            # waiting on the page that never loads: launched, Chromium adopted, the first page done.
            if kind == "browser" and not site.waiting.wait(60):
                trial.failures.append("the browser never asked for the page that does not load")
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
            gone_at = time.monotonic()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        _check_gone(procs, gone_at, trial)
        _check_marked(home, trial)
        text = leftovers_text(home)
        wanted = ("browser (chromium)",) if kind == "browser" else ("execute_code script",)
        for label in wanted:
            if label not in text:
                trial.failures.append(f"the leftovers file does not name {label!r}: {text[:200]!r}")
    return trial


def leftovers_text(home: Path) -> str:
    path = home / "tui" / "leftovers.jsonl"
    return path.read_text() if path.exists() else ""

"""Startup and idle: hermes-tui against a bare Textual app, both in a real terminal (tmux 120x40), one run.

Two rows of issue 18's table, each with its anchor measured in the same run:

- launch -> first screen with the prompt ready: the time from creating the tmux pane to the prompt's
  placeholder on screen, median of `--launches` launches (bare and hermes-tui alternate, so a busy moment
  on a shared machine hits both); one discarded launch of each first, so bytecode is compiled. The anchor
  is the bare Textual app of the issue (Header, Static, Input, Footer: anchors/bare_prompt_app.py); goal
  <= 1.5x it. hermes-tui keeps one HERMES_HOME across its launches, as a user's does: the discarded
  launch writes the startup snapshot the later ones draw their first frame from
  (hermes_tui/startup_snapshot.py). A third row is the very first launch in a new HERMES_HOME (no
  snapshot yet: the configuration is read before the first frame), median of `--first-launches`.
- CPU while idle at the prompt, per 20 s: both apps launched side by side, warmed (first frame, a settle
  time, their CPU gone quiet), then utime+stime of each process tree over `--idle` seconds (60 by default),
  printed per 20 s; goal <= 0.05 s. Nobody types: this is what sitting at the prompt costs.

hermes-tui talks to the project's scripted server in a process of its own (as in terminal_stream.py), so no
model server runs inside the app. Nothing reaches the network; the tmux server (own socket) and every
process are cleaned up on exit. CPU is measured, not wall time, where it can be: the machine may be shared.

Run: python benchmarks/startup.py [--launches 7] [--idle 60] [--project DIR] [--python PY]
"""

from __future__ import annotations

import argparse
import atexit
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import ClassVar

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from terminal_stream import (  # noqa: E402
    _CHILDREN,
    HEIGHT,
    WIDTH,
    Pane,
    ServerProcess,
    Tmux,
    _default_python,
    _scrubbed_env,
    tree_cpu,
    wait_warm,
)

LAUNCH_GOAL = 1.5
"""hermes-tui's launch may take at most this many times the bare app's."""
IDLE_GOAL = 0.05
"""CPU seconds per 20 s idle at the prompt."""


def _env_prefix(home: Path) -> str:
    env = _scrubbed_env(
        {
            "HOME": str(home),
            "HERMES_HOME": str(home / "hermes"),
            "TERM": "tmux-256color",
            "COLORTERM": "truecolor",
        }
    )
    return "env -i " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())


class Subjects:
    """The shell commands that launch each app in a pane, and the text that says its prompt is ready."""

    def __init__(self, project: Path, python: str, tmp: Path, base_url: str) -> None:
        self.project, self.python, self.tmp, self.base_url = project, python, tmp, base_url
        self._tui_home: Path | None = None

    def _home(self) -> Path:
        home = Path(tempfile.mkdtemp(prefix="home-", dir=self.tmp))
        (home / "hermes" / "tui").mkdir(parents=True)
        (home / "hermes" / "tui" / "config.yaml").write_text("auto_title: false\n", encoding="utf-8")
        (home / "work").mkdir()
        return home

    def command(self, key: str) -> str:
        """`tui` reuses one HERMES_HOME (a returning user's launch); `first` gets a new one each time."""
        if key == "tui":
            if self._tui_home is None:
                self._tui_home = self._home()
            home = self._tui_home
        else:
            home = self._home()
        if key == "bare":
            script = shlex.quote(str(HERE / "anchors" / "bare_prompt_app.py"))
            run = f"{shlex.quote(self.python)} {script}"
            return f"cd {shlex.quote(str(home))} && exec {_env_prefix(home)} {run}"
        flags = f"--base-url {self.base_url} --model bench --provider custom --api-key bench"
        flags += f" --cwd {shlex.quote(str(home / 'work'))}"
        run = f"{shlex.quote(self.python)} -m hermes_tui.cli {flags}"
        return f"cd {shlex.quote(str(self.project))} && exec {_env_prefix(home)} {run}"

    READY: ClassVar[dict[str, str]] = {
        "bare": "Ask the bare app",
        "tui": "Message Hermes",
        "first": "Message Hermes",
    }
    LABELS: ClassVar[dict[str, str]] = {
        "bare": "bare Textual",
        "tui": "hermes-tui",
        "first": "  first launch",
    }


def launch_once(tmux: Tmux, subjects: Subjects, key: str, n: int) -> tuple[float, float]:
    """Seconds from creating the pane to the prompt on screen, and the CPU seconds the app had used by
    then (less disturbed by a busy machine than wall time). The pane is closed afterwards."""
    started = time.monotonic()
    pane = Pane(tmux, f"launch-{key}-{n}", subjects.command(key))
    try:
        ready, _ = pane.wait_for(lambda s: Subjects.READY[key] in s, 60, "the first screen")
        return ready - started, tree_cpu(pane.pid)
    finally:
        pane.close()


def launches(tmux: Tmux, subjects: Subjects, n: int, first: int) -> dict[str, list[tuple[float, float]]]:
    for key in ("bare", "tui"):  # compile bytecode, warm the page cache, write the snapshot: not counted
        launch_once(tmux, subjects, key, -1)
    times: dict[str, list[tuple[float, float]]] = {"bare": [], "tui": [], "first": []}
    for i in range(n):
        for key in ("bare", "tui") if i % 2 == 0 else ("tui", "bare"):
            times[key].append(launch_once(tmux, subjects, key, i))
        if i < first:
            times["first"].append(launch_once(tmux, subjects, "first", i))
    return times


def idle_cpu(tmux: Tmux, subjects: Subjects, seconds: float, settle: float) -> dict[str, float]:
    """CPU seconds per 20 s of each app idle at its prompt, both measured over the same `seconds`."""
    panes = {key: Pane(tmux, f"idle-{key}", subjects.command(key)) for key in ("bare", "tui")}
    try:
        for key, pane in panes.items():
            pane.wait_for(lambda s, k=key: Subjects.READY[k] in s, 60, "the first screen")
        for pane in panes.values():
            wait_warm(pane.pid, settle)
        before = {key: tree_cpu(pane.pid) for key, pane in panes.items()}
        time.sleep(seconds)
        return {key: (tree_cpu(pane.pid) - before[key]) * 20 / seconds for key, pane in panes.items()}
    finally:
        for pane in panes.values():
            pane.close()


def _cleanup(tmux: Tmux | None, server: ServerProcess | None, tmp: Path) -> None:
    if server is not None:
        server.stop()
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
    parser.add_argument("--project", default=str(HERE.parent), help="the checkout whose app is measured")
    parser.add_argument("--python", help="interpreter for the apps (default: PROJECT/.venv)")
    parser.add_argument("--launches", type=int, default=7, help="launches timed per app (median)")
    parser.add_argument(
        "--first-launches", type=int, default=3, help="first launches in a new HERMES_HOME (median)"
    )
    parser.add_argument("--idle", type=float, default=60.0, help="seconds of idle measured (0: skip)")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds after the first frame")
    args = parser.parse_args(argv)
    if shutil.which("tmux") is None:
        print("startup: needs tmux (Debian package 'tmux')", file=sys.stderr)
        return 2
    project = Path(args.project).resolve()
    python = args.python or _default_python(project)
    tmp = Path(tempfile.mkdtemp(prefix="startup-bench-"))
    tmux: Tmux | None = None
    server: ServerProcess | None = None
    atexit.register(lambda: _cleanup(tmux, server, tmp))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        tmux = Tmux(f"startup-{os.getpid()}")
        server = ServerProcess([{"text": "unused"}], tmp)
        subjects = Subjects(project, python, tmp, server.openai_base_url)
        git = subprocess.run(
            ["git", "-C", str(project), "log", "-1", "--format=%h %s"], capture_output=True, text=True
        ).stdout.strip()
        print(f"project {project} ({git})\npython  {python}")
        print(f"terminal tmux {WIDTH}x{HEIGHT}; {os.cpu_count()} cores (CPU figures are utime+stime)")
        labels = Subjects.LABELS
        if args.launches > 0:
            times = launches(tmux, subjects, args.launches, min(args.first_launches, args.launches))
            times = {key: values for key, values in times.items() if values}
            wall = {key: statistics.median(t for t, _ in values) for key, values in times.items()}
            cpu = {key: statistics.median(c for _, c in values) for key, values in times.items()}
            print(
                f"\n## launch -> first screen with the prompt ready (median of {args.launches}; fastest in "
                "brackets)\n## and the app's CPU seconds by then"
            )
            for key in ("bare", "tui", "first"):
                if key not in times:
                    continue
                fastest = min(t for t, _ in times[key])
                print(f"  {labels[key]:<14} {wall[key]:.2f} s  ({fastest:.2f} s)   CPU {cpu[key]:.2f} s")
            if "first" in times:
                print(
                    f"  (first launch: a new HERMES_HOME, no startup snapshot yet: "
                    f"{wall['first'] / wall['bare']:.2f}x the bare app)"
                )
            ratio = wall["tui"] / wall["bare"]
            verdict = "meets" if ratio <= LAUNCH_GOAL else "MISSES"
            print(
                f"  hermes-tui / bare Textual: {ratio:.2f}x wall, {cpu['tui'] / cpu['bare']:.2f}x CPU   "
                f"goal <= {LAUNCH_GOAL}x ({verdict})"
            )
        if args.idle > 0:
            cpu = idle_cpu(tmux, subjects, args.idle, args.settle)
            print(f"\n## CPU while idle at the prompt, per 20 s (over {args.idle:g} s, side by side)")
            for key in ("bare", "tui"):
                print(f"  {labels[key]:<14} {cpu[key]:.3f} s")
            verdict = "meets" if cpu["tui"] <= IDLE_GOAL else "MISSES"
            ratio = f"{cpu['tui'] / cpu['bare']:.2f}x" if cpu["bare"] > 0 else "-"
            print(f"  hermes-tui / bare Textual: {ratio}   goal <= {IDLE_GOAL} s per 20 s ({verdict})")
    finally:
        _cleanup(tmux, server, tmp)
        tmux = server = None
    return 0


if __name__ == "__main__":
    sys.exit(main())

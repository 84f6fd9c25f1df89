"""The reaper: a small process that outlives the app just long enough to kill what the app left running.

The supervisor starts it (in a session of its own, so a closed terminal's SIGHUP does not reach it) with a
pipe on its stdin and tells it, a line each, which process groups to watch (`+ PGID START LABEL`, START
being the group leader's start time in clock ticks since boot, or `-` when the leader was already gone when
it was registered: `groups.Group`) and which ended (`- PGID`). The app holds the only write end, so when
the app is gone in any way (kill -9 included) the pipe reads EOF: every group still alive is sent SIGTERM,
then SIGKILL after the grace period, and what was stopped is written to the leftovers file for the next
start to tell. After a clean exit nothing is registered any more, the app's last line is `.`, and it
just ends. A group whose number now names another process's group (`groups.still_ours`: it ended while
registered and its number was reused) is left alone, and not named in the leftovers file.

A child exists before it can be registered (the app learns its pid when `Popen` returns, and a kill -9 can
come in between), so every child the supervisor starts also carries the app's mark in its environment
(`MARK_VARIABLE=TOKEN`, the token given as the reaper's second argument), which whatever it starts
inherits. When the pipe ends without the `.` (the app did not finish its exit), the groups of every process
still carrying the mark are stopped too: the child caught between its start and its registration, and a
process that left its group (`setsid`).

It does not depend on the app running its own cleanup, which is its whole point; `PR_SET_PDEATHSIG` is
not used for it, because Linux sends that signal when the *thread* that started the child ends, and the
app starts children from worker threads.

Run as `python -S -E -c ...` (see `supervisor._reaper_argv`): standard library only, no site-packages.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from agent.children.groups import Group, group_alive, identify, stop_groups
from agent.children.leftovers import Leftover, one_line, record

__all__ = ["CLEAN_END", "MARK_VARIABLE", "main", "marked_groups", "parse", "register_line", "release_line"]

_UNKNOWN_START = "-"
CLEAN_END = "."
"""The app's last line on an orderly exit: what it started is stopped, nothing to look for."""
MARK_VARIABLE = "HERMES_TUI_APP"
"""The environment variable that marks the processes an app started (its value: that app's token)."""


def register_line(group: Group, label: str) -> str:
    """The line that registers `group` as `label` (one printable line, as the supervisor's labels are)."""
    start = _UNKNOWN_START if group.start is None else str(group.start)
    return f"+ {group.pgid} {start} {label}"


def release_line(pgid: int) -> str:
    return f"- {pgid}"


def parse(line: bytes, groups: dict[int, tuple[Group, str]]) -> None:
    """Apply one protocol line to `groups` (pgid -> the group and its label). A malformed line is ignored;
    so is a `+` line without a start time (a group that cannot be told from a stranger is never stopped)."""
    text = line.decode("utf-8", errors="replace").rstrip("\n")
    op, _, rest = text.partition(" ")
    pgid_text, _, rest = rest.partition(" ")
    try:
        pgid = int(pgid_text)
    except ValueError:
        return
    if pgid <= 1:
        return
    if op == "-":
        groups.pop(pgid, None)
    elif op == "+":
        start_text, _, label = rest.partition(" ")
        if start_text == _UNKNOWN_START:
            start = None
        elif start_text.isascii() and start_text.isdigit():
            start = int(start_text)
        else:
            return
        groups[pgid] = (Group(pgid, start), label or f"process group {pgid}")


def marked_groups(token: str) -> dict[int, tuple[Group, str]]:
    """The process groups of the live processes whose environment carries `token` as the app's mark
    (pgid -> the group and its leader's command line, for the leftovers file). {} without /proc."""
    needle = f"\0{MARK_VARIABLE}={token}\0".encode()
    found: dict[int, tuple[Group, str]] = {}
    try:
        entries = list(os.scandir("/proc"))
    except OSError:
        return found
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as fh:
                environ = b"\0" + fh.read()
            pgid = os.getpgid(int(entry.name))
        except OSError:  # gone, or not ours to read
            continue
        if needle not in environ or pgid <= 1 or pgid in found:
            continue
        group = identify(pgid)
        if group.start is not None:
            found[pgid] = (group, f"process group {pgid}: {_command_line(pgid)}")
    return found


def _command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            words = fh.read().rstrip(b"\0").split(b"\0")
    except OSError:
        return "?"
    return one_line(" ".join(w.decode("utf-8", errors="replace") for w in words), 120)


def main(argv: list[str]) -> int:
    report = Path(argv[0]) if argv else None
    token = argv[1] if len(argv) > 1 else None
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU):
        signal.signal(sig, signal.SIG_IGN)  # the app's terminal is not ours
    groups: dict[int, tuple[Group, str]] = {}
    stream = sys.stdin.buffer
    clean = False
    while True:
        try:
            line = stream.readline()
        except OSError:
            break
        if not line:
            break  # EOF: the app is gone (or closed the pipe on its way out)
        clean = line.rstrip(b"\n") == CLEAN_END.encode()
        if not clean:
            parse(line, groups)
    if token and not clean:
        for pgid, entry in marked_groups(token).items():
            groups.setdefault(pgid, entry)
    alive = [group for group, _ in groups.values() if group_alive(group)]
    if not alive:
        return 0
    stopped = stop_groups(alive)
    if report is not None:
        now = time.time()
        how = "after the app ended without stopping it"
        record(report, [Leftover(groups[g.pgid][1], g.pgid, now, how) for g in stopped])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

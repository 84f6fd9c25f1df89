"""What runs on this machine, read from `/proc`: the processes a trial started and whether they are gone.

Shared by the kill -9 trials (`campaign`) and the orphan trials (`orphans`): both must know that nothing
they started outlives them, and that nothing still writes into a trial's folder when it is removed.
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from pathlib import Path

from tests.waiting import eventually as wait_until


@dataclass(frozen=True)
class Proc:
    pid: int
    start: int  # clock ticks after boot: a pid reused later has another
    pgid: int
    cmdline: str


def read_stat(pid: int) -> tuple[str, int, int, int] | None:
    """(state, ppid, pgid, start time) of a live process, None when gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2 :].split()
    return fields[0].decode(), int(fields[1]), int(fields[2]), int(fields[19])


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def carrying(needle: bytes, *, in_cmdline: bool = False) -> list[int]:
    """Every live process, anywhere (init's adopted orphans included; this one left out), with `needle` in
    its environment, or in its command line too when `in_cmdline`."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            seen = Path(f"/proc/{entry.name}/environ").read_bytes()
            if in_cmdline:
                seen += Path(f"/proc/{entry.name}/cmdline").read_bytes()
        except OSError:
            continue
        stat = read_stat(int(entry.name))
        if needle in seen and stat is not None and stat[0] not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def _table() -> dict[int, tuple[str, int, int, int]]:
    table: dict[int, tuple[str, int, int, int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            stat = read_stat(int(entry.name))
            if stat is not None:
                table[int(entry.name)] = stat
    return table


def descendants(root: int) -> list[Proc]:
    """Every live process below `root` (by parent pid), zombies left out."""
    table = _table()
    found: list[Proc] = []
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, (state, ppid, pgid, start) in table.items():
            if ppid == parent and state not in ("Z", "X"):
                found.append(Proc(pid, start, pgid, cmdline(pid)))
                frontier.append(pid)
    return found


def alive(procs: list[Proc], spared: frozenset[int] = frozenset()) -> list[Proc]:
    """Those still running: the same pid with the same start time, or anything in one of their groups
    that is neither the test's own nor one of `spared` (a group the test shares with what it started)."""
    left = []
    for p in procs:
        stat = read_stat(p.pid)
        if stat is not None and stat[0] not in ("Z", "X") and stat[3] == p.start:
            left.append(p)
    groups = {p.pgid for p in procs} - {os.getpgrp()} - spared
    for pid, (state, _ppid, pgid, start) in _table().items():
        fresh = all(p.pid != pid for p in left)
        if pgid in groups and state not in ("Z", "X") and fresh:
            left.append(Proc(pid, start, pgid, cmdline(pid)))
    return left


def pid_gone(pid: int) -> bool:
    stat = read_stat(pid)
    return stat is None or stat[0] in ("Z", "X")


def outliving(procs: list[Proc], timeout: float, spared: frozenset[int] = frozenset()) -> list[Proc]:
    """Those of `procs` still running after up to `timeout` seconds, each group then killed so the next
    trial does not inherit it (a group of the test's own, or `spared`: only the process itself)."""
    wait_until(lambda: not alive(procs, spared), max(0.0, timeout))
    left = alive(procs, spared)
    for p in left:
        try:
            if p.pgid == os.getpgrp() or p.pgid in spared:  # never the test, nor what it shares a group with
                os.kill(p.pid, signal.SIGKILL)
            else:
                os.killpg(p.pgid, signal.SIGKILL)
        except OSError:
            pass
    return left


def listed(procs: list[Proc]) -> str:
    """`pid command…` of each, for a failure line."""
    return "; ".join(f"{p.pid} {p.cmdline[:60]}" for p in procs)

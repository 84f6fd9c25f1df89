"""What runs in a process group, and stopping groups (SIGTERM, a grace period, SIGKILL), read from `/proc`.

A child of the app leads a process group (and session) of its own, so one signal reaches it and everything
it started. Zombies do not count as alive: they run nothing and only wait for their parent to reap them.
Standard library only: the reaper imports it in a bare interpreter.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Collection
from pathlib import Path

__all__ = [
    "KILL_GRACE",
    "group_alive",
    "group_leaders_below",
    "group_members",
    "signal_group",
    "stat_fields",
    "stop_groups",
]

KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
_PROC = Path("/proc")


def group_members(pgid: int) -> list[int] | None:
    """Live (non-zombie) pids in a process group, from /proc; None when /proc is not available."""
    if not _PROC.is_dir():
        return None
    members = []
    for entry in os.scandir(_PROC):
        if not entry.name.isdigit():
            continue
        # pid (comm) state ppid pgrp ...: comm may contain spaces and parentheses.
        fields = stat_fields(entry.name)
        try:
            if (
                fields is not None
                and len(fields) >= 3
                and int(fields[2]) == pgid
                and fields[0] not in (b"Z", b"X")
            ):
                members.append(int(entry.name))
        except ValueError:
            continue
    return members


def stat_fields(pid: int | str) -> list[bytes] | None:
    """The fields of /proc/PID/stat after `(comm)`: state, ppid, pgrp, session, ..."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return None
    return stat[stat.rfind(b")") + 2 :].split()


def group_leaders_below(root: int) -> list[int]:
    """The live processes below `root` (its children, theirs, ...) that lead a process group of their own:
    what a child started detached (Playwright's driver starts Chromium so), for the supervisor to adopt.
    [] without /proc."""
    if not _PROC.is_dir():
        return []
    table: dict[int, tuple[int, int]] = {}  # pid -> (ppid, pgid)
    for entry in os.scandir(_PROC):
        if not entry.name.isdigit():
            continue
        fields = stat_fields(entry.name)
        try:
            if fields is not None and len(fields) >= 3 and fields[0] not in (b"Z", b"X"):
                table[int(entry.name)] = (int(fields[1]), int(fields[2]))
        except ValueError:
            continue
    below: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, (ppid, _) in table.items() if ppid in frontier} - below
        below |= frontier
    return sorted(pid for pid in below if table[pid][1] == pid)


def group_alive(pgid: int) -> bool:
    """Whether anything of group `pgid` still runs (without /proc: whether the group can be signalled)."""
    members = group_members(pgid)
    if members is not None:
        return bool(members)
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def signal_group(pgid: int, sig: signal.Signals) -> None:
    """Send `sig` to the whole group; quiet when it is already gone."""
    if pgid <= 1:  # never the init group or "every process" (a corrupt registration)
        return
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def stop_groups(pgids: Collection[int], grace: float = KILL_GRACE) -> list[int]:
    """SIGTERM every group at once, wait up to `grace` for all of them together, SIGKILL the survivors.
    Returns the groups that were alive when asked. Never waits for a child: its owner reaps it."""
    alive = [g for g in pgids if group_alive(g)]
    for pgid in alive:
        signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    pending = list(alive)
    while pending and time.monotonic() < deadline:
        time.sleep(0.02)
        pending = [g for g in pending if group_alive(g)]
    for pgid in pending:
        signal_group(pgid, signal.SIGKILL)
    return alive

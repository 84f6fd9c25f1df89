"""What runs in a process group, and stopping groups (SIGTERM, a grace period, SIGKILL), read from `/proc`.

A child of the app leads a process group (and session) of its own, so one signal reaches it and everything
it started. Zombies do not count as alive: they run nothing and only wait for their parent to reap them.
Standard library only: the reaper imports it in a bare interpreter.

A group is known by its number and its leader's start time (`Group`), because the number alone does not
stay ours: Linux frees a pid once no process uses it as a pid, group or session id, and hands it out again
(`/proc/sys/kernel/pid_max` is often 32768, wrapped within hours). A registration that outlived its group
would otherwise name the group of whatever process got the number next (a tmux pane, anything `setsid`
started) and stop a stranger. `still_ours` is the one place that decides; `group_alive` and `stop_groups`
ask it for every `Group` they are given.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

__all__ = [
    "KILL_GRACE",
    "Group",
    "group_alive",
    "group_leaders_below",
    "group_members",
    "identify",
    "leader_start",
    "signal_group",
    "stat_fields",
    "still_ours",
    "stop_groups",
]

KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
_PROC = Path("/proc")
_STARTTIME = 19  # field 22 of /proc/PID/stat, counted from the state (field 3) as `stat_fields` gives them


@dataclass(frozen=True)
class Group:
    """A process group as the app registered it: its number, and its leader's start time then (clock ticks
    since boot, field 22 of /proc/PID/stat). `start` is None when the leader had already exited when it
    was registered (any process that has the number later is someone else's), or without /proc."""

    pgid: int
    start: int | None


_G = TypeVar("_G", bound=int | Group)


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


def leader_start(pid: int) -> int | None:
    """When process `pid` started (clock ticks since boot; a zombie's too); None when there is no such
    process (or no /proc)."""
    fields = stat_fields(pid)
    try:
        return int(fields[_STARTTIME]) if fields is not None else None
    except (IndexError, ValueError):
        return None


def identify(pgid: int) -> Group:
    """Group `pgid` as it is now: read when it is registered, while its leader is alive (or a zombie not
    yet reaped, as a child the app started is until it waits for it)."""
    return Group(pgid, leader_start(pgid))


def still_ours(group: Group) -> bool:
    """Whether the number `group.pgid` still names the group that was registered: False when a process
    with that number exists and started at another time than the registered leader (the number was
    freed and reused: that process and its group are someone else's). A leader that exited with members
    of its group still running leaves the group ours: Linux cannot reuse the number while they use it.
    True without /proc (nothing to tell by: the number is all there is)."""
    fields = stat_fields(group.pgid)
    if fields is None:
        return True  # no process has the number: whatever still runs in the group is what ours left
    try:
        return int(fields[_STARTTIME]) == group.start
    except (IndexError, ValueError):
        return False  # unreadable: never signalled on a guess


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


def group_alive(group: int | Group) -> bool:
    """Whether anything of the group still runs (without /proc: whether it can be signalled). A `Group`
    that is not `still_ours` is not alive (not ours to signal); a bare number is taken at its word: only
    for a group whose leader the caller started and has not reaped yet (the number cannot be reused)."""
    if isinstance(group, Group):
        if not still_ours(group):
            return False
        pgid = group.pgid
    else:
        pgid = group
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


def stop_groups(groups: Collection[_G], grace: float = KILL_GRACE) -> list[_G]:
    """SIGTERM every group at once, wait up to `grace` for all of them together, SIGKILL the survivors.
    Returns the groups that were alive (and ours, for a `Group`) when asked; each is checked again right
    before its SIGKILL. Never waits for a child: its owner reaps it."""
    alive = [g for g in groups if group_alive(g)]
    for group in alive:
        signal_group(_number(group), signal.SIGTERM)
    deadline = time.monotonic() + grace
    pending = list(alive)
    while pending and time.monotonic() < deadline:
        time.sleep(0.02)
        pending = [g for g in pending if group_alive(g)]
    for group in pending:
        if not isinstance(group, Group) or still_ours(group):  # (a grace of 0 did not look again)
            signal_group(_number(group), signal.SIGKILL)
    return alive


def _number(group: int | Group) -> int:
    return group.pgid if isinstance(group, Group) else group

"""Which stdio server processes this process started, read from `/proc`, so none outlives the app.

The SDK starts each stdio server in a new session (its own process group) and stops the whole group when
the connection closes. That needs the loop to run the shutdown; if it cannot (the loop is stuck, the app is
killed by an exception), the groups noted here are killed at exit. Linux only; elsewhere nothing is found
and the SDK's own shutdown is all there is.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path

from agent.children.groups import stat_fields

__all__ = ["child_groups", "server_groups"]

_PROC = Path("/proc")


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, process group) of `pid`, or None when it is gone (or a zombie: it runs nothing)."""
    fields = stat_fields(pid)
    try:
        if fields is None or fields[0] in (b"Z", b"X"):
            return None
        return int(fields[1]), int(fields[2])
    except (IndexError, ValueError):
        return None


def child_groups(parent: int | None = None) -> set[int]:
    """The process groups led by direct children of `parent` (default: this process): stdio servers."""
    parent = os.getpid() if parent is None else parent
    groups: set[int] = set()
    try:
        entries = list(_PROC.iterdir())
    except OSError:
        return groups
    for entry in entries:
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        stat = _stat(pid)
        if stat is not None and stat[0] == parent and stat[1] == pid:
            groups.add(pid)
    return groups


def _cmdline(pid: int) -> list[str]:
    try:
        raw = (_PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def server_groups(
    argv: list[str], *, exclude: Collection[int] = frozenset(), parent: int | None = None
) -> set[int]:
    """The groups led by our children running `argv` (the command as given, or through its `#!`
    interpreter: the command line then ends with the script's arguments)."""
    found: set[int] = set()
    name = Path(argv[0]).name if argv else ""
    for pgid in child_groups(parent) - set(exclude):
        line = _cmdline(pgid)
        if not line:
            continue
        tail_ok = line[-(len(argv) - 1) :] == argv[1:] if len(argv) > 1 else True
        if tail_ok and any(Path(part).name == name for part in line[:2]):
            found.add(pgid)
    return found

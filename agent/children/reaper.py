"""The reaper: a small process that outlives the app just long enough to kill what the app left running.

The supervisor starts it (in a session of its own, so a closed terminal's SIGHUP does not reach it) with a
pipe on its stdin and tells it, a line each, which process groups to watch (`+ PGID LABEL`) and which
ended (`- PGID`). The app holds the only write end, so when the app is gone in any way (kill -9
included) the pipe reads EOF: every group still alive is sent SIGTERM, then SIGKILL after the grace
period, and what was stopped is written to the leftovers file for the next start to tell. After a clean
exit nothing is registered any more and it just ends.

It does not depend on the app running its own cleanup, which is its whole point; `PR_SET_PDEATHSIG` is
not used for it, because Linux sends that signal when the *thread* that started the child ends, and the
app starts children from worker threads.

Run as `python -S -E -c ...` (see `supervisor._reaper_argv`): standard library only, no site-packages.
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

from agent.children.groups import group_alive, stop_groups
from agent.children.leftovers import Leftover, record

__all__ = ["main", "parse"]


def parse(line: bytes, groups: dict[int, str]) -> None:
    """Apply one protocol line to `groups` (a malformed line is ignored)."""
    text = line.decode("utf-8", errors="replace").rstrip("\n")
    op, _, rest = text.partition(" ")
    pgid_text, _, label = rest.partition(" ")
    try:
        pgid = int(pgid_text)
    except ValueError:
        return
    if pgid <= 1:
        return
    if op == "+":
        groups[pgid] = label or f"process group {pgid}"
    elif op == "-":
        groups.pop(pgid, None)


def main(argv: list[str]) -> int:
    report = Path(argv[0]) if argv else None
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU):
        signal.signal(sig, signal.SIG_IGN)  # the app's terminal is not ours
    groups: dict[int, str] = {}
    stream = sys.stdin.buffer
    while True:
        try:
            line = stream.readline()
        except OSError:
            break
        if not line:
            break  # EOF: the app is gone (or closed the pipe on its way out)
        parse(line, groups)
    alive = {g: label for g, label in groups.items() if group_alive(g)}
    if not alive:
        return 0
    stopped = stop_groups(list(alive))
    if report is not None:
        now = time.time()
        how = "after the app ended without stopping it"
        record(report, [Leftover(alive[g], g, now, how) for g in stopped])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

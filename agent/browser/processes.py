"""The browser's processes under the app's one supervisor (`agent.children`): Playwright's driver and the
Chromium it starts, each a process group the reaper stops when the app dies without closing them.

Playwright starts its Node driver in our own process group, where no group signal can reach it without
reaching the app. So the driver is started through a tiny launcher (`PLAYWRIGHT_NODEJS_PATH`, Playwright's
own setting for which Node to run) that makes it lead a session of its own and notes its pid, then
becomes Node. Chromium is started detached by the driver (a group of its own, as `ps -o pid,pgid,sid`
shows), found below the driver once it runs. Debian's Chromium also starts two crash handlers outside
that group (reparented to init, sessions of their own); they watch the browser and end with it.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

from agent.children.groups import group_leaders_below
from agent.children.supervisor import SUPERVISOR

__all__ = ["BrowserProcesses"]

_ENV = "PLAYWRIGHT_NODEJS_PATH"
_env_lock = threading.Lock()  # two sessions starting browsers at once each set and restore the variable

_LAUNCHER = (
    "import os, sys\n"
    "os.setsid()\n"
    "with open({pidfile!r}, 'w') as fh:\n"
    "    fh.write(str(os.getpid()))\n"
    "os.execv({node!r}, [{node!r}, *sys.argv[1:]])\n"
)


def _launcher(pidfile: Path, node: str) -> str:
    """A shell script (any interpreter path works in it, spaces included) that runs the launcher code in
    a bare Python, which keeps the pid through both execs."""
    code = _LAUNCHER.format(pidfile=str(pidfile), node=node)
    return f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -S -E -c {shlex.quote(code)} "$@"\n'


def _node() -> str | None:
    """The Node Playwright would run: the user's `PLAYWRIGHT_NODEJS_PATH`, else the bundled one."""
    configured = os.environ.get(_ENV)
    if configured:
        return configured
    import playwright

    bundled = Path(playwright.__file__).parent / "driver" / "node"
    return str(bundled) if bundled.is_file() else None


class BrowserProcesses:
    """One browser's driver and Chromium groups: registered as they start, stopped and released at close."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.groups: list[int] = []

    @contextlib.contextmanager
    def launching_driver(self) -> Iterator[None]:
        """Around `sync_playwright().start()`: the driver starts through the launcher and is adopted."""
        node = _node()
        if node is None or sys.platform == "win32":
            yield  # Playwright's own way: the driver still ends when our pipe to it closes
            return
        pidfile = self.folder / "driver.pid"
        launcher = self.folder / "node"
        launcher.write_text(_launcher(pidfile, node))
        launcher.chmod(0o700)
        with _env_lock:
            previous = os.environ.get(_ENV)
            os.environ[_ENV] = str(launcher)
            try:
                yield
            finally:
                if previous is None:
                    os.environ.pop(_ENV, None)
                else:
                    os.environ[_ENV] = previous
                self._adopt_driver(pidfile)

    def _adopt_driver(self, pidfile: Path) -> None:
        try:
            pid = int(pidfile.read_text())
        except (OSError, ValueError):
            return
        if pid > 1 and pid not in self.groups:
            SUPERVISOR.adopt(pid, "browser driver (Playwright)")
            self.groups.append(pid)

    def adopt_chromium(self) -> None:
        """After the launch: every group below the driver (Chromium's) under the supervisor."""
        if not self.groups:
            return  # the driver was not ours to find (no launcher): it ends when our pipe to it closes
        for pgid in group_leaders_below(self.groups[0]):
            if pgid not in self.groups:
                SUPERVISOR.adopt(pgid, "browser (chromium)")
                self.groups.append(pgid)

    def stop(self) -> None:
        """After the browser and the driver were closed: whatever of them still runs is stopped (at once
        when nothing does), and forgotten."""
        groups, self.groups = self.groups, []
        for pgid in reversed(groups):  # Chromium first: the driver would otherwise kill it itself
            SUPERVISOR.stop(pgid, grace=1.0)

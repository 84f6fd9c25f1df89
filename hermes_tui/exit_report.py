"""What the TUI says on stderr once the terminal is back: the children it stopped on its way out.

A clean quit with a dev server running in the background says so, one line each ("stopped background
process proc_1: npm run dev"), after the alternate screen is gone so the lines stay on the user's screen.
The chat adds what it stopped itself (`SessionService.stop_background`); `finish` stops whatever else the
supervisor still holds (what a command left running with `&`, an MCP server that did not close) and adds
those. One report per process: a quit happens once.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TextIO

__all__ = ["EXIT_REPORT", "ExitReport"]


class ExitReport:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, lines: Iterable[str]) -> None:
        self.lines.extend(lines)

    def finish(self, err: TextIO | None = None) -> None:
        """Stop what the supervisor still holds, then print every line (quietly on a terminal that is
        gone: after SIGHUP there is nobody to read them)."""
        if "agent.children.supervisor" in sys.modules:  # else no child was ever started
            from agent.api import SUPERVISOR

            self.add(f"stopped {child.label}" for child in SUPERVISOR.stop_all())
            SUPERVISOR.close()
        lines, self.lines = self.lines, []
        stream = err or sys.stderr
        try:
            for line in lines:
                print(f"hermes-tui: {line}", file=stream)
            stream.flush()
        except (OSError, ValueError):
            pass


EXIT_REPORT = ExitReport()
"""The process's one report (the TUI runs once per process)."""

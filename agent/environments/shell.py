"""How a command is run, whatever the backend: `bash -c` (else `sh`) with a dumb terminal's variables (no
pagers, no colours, no prompts for credentials)."""

from __future__ import annotations

import os
import shutil

__all__ = ["DUMB_TERMINAL", "environment", "shell"]

# Set for every command the model runs, wherever it runs.
DUMB_TERMINAL: dict[str, str] = {
    "TERM": "dumb",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "NO_COLOR": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "PYTHONUNBUFFERED": "1",
}


def shell() -> str:
    return shutil.which("bash") or "/bin/sh"


def environment() -> dict[str, str]:
    """This process's environment with the dumb terminal's variables, for a local command."""
    env = dict(os.environ)
    env.update(DUMB_TERMINAL)
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    return env

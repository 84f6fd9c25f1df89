"""How a shell command runs, for the terminal tool and its background processes: bash (else sh), a dumb
terminal environment (no pagers, no colours), its own process group that can be checked and killed as a
whole, and its output cleaned of escape sequences and control characters as it streams.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

KILL_GRACE = 2.0  # SIGTERM -> SIGKILL

# --------------------------------------------------------------------------------------------------------
# Output cleaning


# Complete escape sequences: CSI, OSC (BEL or ST terminated), DCS/SOS/PM/APC strings, nF, and 2-char ones.
_ESC_SEQ = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[PX^_][^\x1b]*\x1b\\"
    r"|\x1b[ -/]+[0-~]"
    r"|\x1b[0-~]"
)
# An escape sequence cut off by the end of a chunk: hold it back until the next chunk completes it.
_PARTIAL_ESC_AT_END = re.compile(r"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?|[PX^_][^\x1b]*\x1b?|[ -/]*)?\Z")
# C0 controls except \t and \n (this includes \r left alone and stray ESC), DEL and C1 controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_PARTIAL_WINDOW = 4096


def clean_output(text: str) -> str:
    """Terminal output as plain text: \\r\\n -> \\n, escape sequences and control characters removed."""
    text = text.replace("\r\n", "\n")
    text = _ESC_SEQ.sub("", text)
    return _CONTROL.sub("", text)


class StreamCleaner:
    """`clean_output` for a stream: escape sequences and \\r\\n split across chunks are handled."""

    def __init__(self) -> None:
        self._pending = ""

    def feed(self, text: str) -> str:
        text = self._pending + text
        self._pending = ""
        window_start = max(0, len(text) - _PARTIAL_WINDOW)
        m = _PARTIAL_ESC_AT_END.search(text, window_start)
        if m:
            self._pending = text[m.start() :]
            text = text[: m.start()]
        elif text.endswith("\r"):
            self._pending = "\r"
            text = text[:-1]
        return clean_output(text)

    def flush(self) -> str:
        text, self._pending = self._pending, ""
        return clean_output(text)


# --------------------------------------------------------------------------------------------------------
# Process group handling


def group_members(pgid: int) -> list[int] | None:
    """Live (non-zombie) pids in a process group, from /proc; None when /proc is not available."""
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    members = []
    for entry in os.scandir(proc):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...: comm may contain spaces and parentheses.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) >= 3 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            members.append(int(entry.name))
    return members


def group_alive(pgid: int) -> bool:
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


def kill_group(proc: subprocess.Popen[bytes], pgid: int, grace: float = KILL_GRACE) -> None:
    """SIGTERM the whole group, SIGKILL it after `grace` seconds if anything is still alive."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        proc.poll()
        if proc.returncode is not None and not group_alive(pgid):
            return
        time.sleep(0.02)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        pass


def shell() -> str:
    return shutil.which("bash") or "/bin/sh"


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "TERM": "dumb",
            "PAGER": "cat",
            "GIT_PAGER": "cat",
            "NO_COLOR": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    return env

"""How a shell command runs, for the terminal tool and its background processes: bash (else sh), a dumb
terminal environment (no pagers, no colours), its own process group that can be checked and killed as a
whole (started and owned by `agent.children.supervisor`), and its output cleaned of escape sequences and
control characters as it streams.
"""

from __future__ import annotations

import re
import subprocess

from agent.children.groups import KILL_GRACE, stop_groups
from agent.environments.shell import environment, shell

__all__ = ["KILL_GRACE", "StreamCleaner", "clean_output", "environment", "kill_group", "shell"]

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
# Process group handling (the groups themselves: `agent.children`)


def kill_group(proc: subprocess.Popen[bytes], pgid: int, grace: float = KILL_GRACE) -> None:
    """SIGTERM the whole group, SIGKILL it after `grace` seconds if anything is still alive; reap the
    shell."""
    stop_groups([pgid], grace)
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        pass

"""What is piped into `hermes-tui -z PROMPT` goes with the prompt, as Claude Code's `-p` does.

`cat src/calc.py | hermes-tui -z "explain this code"` used to exit 0 with the model never seeing the file.
Only a pipe, a socket or a redirected file counts: a terminal, `/dev/null` (a character device) or a
closed stdin is nothing to read. A pipe that stays open without data (a wrapper that keeps its stdin open,
a test runner) is waited on for `WAIT` seconds, not forever. The text is capped at `CAP` bytes, with a note
the model reads and one line on stderr; bytes that are not text (a NUL early on) are refused with one line.
"""

from __future__ import annotations

import os
import select
import stat
from dataclasses import dataclass
from typing import BinaryIO

__all__ = ["CAP", "PipedInput", "read_piped", "with_piped"]

CAP = 256 * 1024
"""Bytes of stdin sent with the prompt; past it the text is cut and says so."""
WAIT = 2.0
"""Seconds an open pipe may stay silent before it is taken as having nothing to say."""


@dataclass(frozen=True)
class PipedInput:
    text: str
    cut: bool = False
    binary: bool = False


def read_piped(stream: BinaryIO, *, wait: float = WAIT) -> PipedInput | None:
    """The text piped into `stream` (None when nothing is piped)."""
    try:
        fd = stream.fileno()
        if os.isatty(fd):
            return None
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError):  # closed, or not a real file
        return None
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISREG(mode)):
        return None
    if not stat.S_ISREG(mode):
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            return None
    data = stream.read(CAP + 1)
    if not data:
        return None
    cut = len(data) > CAP
    data = data[:CAP]
    if b"\x00" in data[:8192]:
        return PipedInput("", binary=True)
    text = data.decode("utf-8", errors="replace")
    if cut and "\ufffd" in text[-2:]:  # the cap fell inside a character
        text = text.rstrip("\ufffd")
    return PipedInput(text, cut=cut)


def with_piped(prompt: str, piped: PipedInput) -> str:
    """The prompt with the piped text after it (the piped text alone when the prompt is empty)."""
    body = piped.text.rstrip("\n")
    if piped.cut:
        body += f"\n\n[stdin was longer than {CAP // 1024} KB: cut there]"
    return f"{prompt.rstrip()}\n\n{body}" if prompt.strip() else body

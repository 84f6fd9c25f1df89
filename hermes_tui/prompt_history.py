"""The prompt's history, kept per working folder across runs (Up after a restart or `-c` shows the last
prompt typed here, as a shell's history or Claude Code's does).

One JSON line per prompt (`{"cwd", "text"}`) in `prompt_history.jsonl` beside our `state.db` (never in
Hermes' files). Loading reads at most the file's last `TAIL_BYTES` (a history of years costs the same
startup as a new one); the file is cut back to its newer half past `MAX_BYTES`. A file that cannot be
read or written costs the history, never the chat.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

__all__ = ["PromptHistory", "load_prompt_history"]

log = logging.getLogger(__name__)

FILE_NAME = "prompt_history.jsonl"
KEPT = 500
"""Prompts of one folder offered by Up (the newest)."""
TAIL_BYTES = 1 << 20
MAX_BYTES = 4 << 20


class PromptHistory(list[str]):
    """Earlier prompts typed in this folder, oldest first (the list the prompt walks); appending one also
    writes it down."""

    def __init__(self, path: Path, cwd: str, entries: Iterable[str] = ()) -> None:
        super().__init__(entries)
        self.path = path
        self.cwd = cwd

    def append(self, text: str) -> None:
        super().append(text)
        if len(self) > KEPT:
            del self[: len(self) - KEPT]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            line = json.dumps({"cwd": self.cwd, "text": text}, ensure_ascii=False) + "\n"
            _append(self.path, line.encode("utf-8", "replace"))
            if self.path.stat().st_size > MAX_BYTES:
                _cut_back(self.path)
        except OSError as exc:
            log.warning("prompt history: could not write %s: %s", self.path, exc)


class _Where(Protocol):
    @property
    def state_db(self) -> Path: ...
    @property
    def cwd(self) -> Path | str: ...


def load_prompt_history(settings: _Where) -> PromptHistory:
    """The history for the settings' folder, from the file beside its `state.db` (empty when none)."""
    path = settings.state_db.parent / FILE_NAME
    cwd = str(settings.cwd)
    entries: list[str] = []
    try:
        from agent.api import read_bounded_tail  # a FIFO or a device in its place is refused, never waited on

        tail, size = read_bounded_tail(path, limit=TAIL_BYTES)
        lines = tail.splitlines()
        if size > TAIL_BYTES:
            lines = lines[1:]  # the first may be cut in the middle
        for raw in lines:
            try:
                entry = json.loads(raw)
            except ValueError:
                continue
            ours = isinstance(entry, dict) and entry.get("cwd") == cwd and isinstance(entry.get("text"), str)
            if ours and (not entries or entries[-1] != entry["text"]):
                entries.append(entry["text"])
    except FileNotFoundError:
        pass
    except OSError as exc:
        log.warning("prompt history: could not read %s: %s", path, exc)
    return PromptHistory(path, cwd, entries[-KEPT:])


def _append(path: Path, data: bytes) -> None:
    """Append to the file if it is a regular one: O_NONBLOCK, so a FIFO put in its place fails at once
    (ENXIO without a reader) instead of blocking the prompt, and anything but a file is left alone."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(path, flags, 0o600)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        os.write(fd, data)
    finally:
        os.close(fd)


def _cut_back(path: Path) -> None:
    """Keep the newer half of the file (whole lines), written atomically."""
    data = path.read_bytes()
    half = data[len(data) // 2 :]
    half = half[half.find(b"\n") + 1 :]
    temporary = path.with_suffix(".tmp")
    temporary.write_bytes(half)
    temporary.replace(path)

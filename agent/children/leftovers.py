"""What was stopped because the app ended without stopping it (a crash, kill -9, an exception, a signal
the app could not answer), written by the reaper or the exit hook, and told once on the next start.

One JSON object a line in `$HERMES_HOME/tui/leftovers.jsonl`: appended by whoever cleaned up, taken whole
(renamed away, read, deleted) by the next start, so two starts never tell the same line twice.
Standard library only: the reaper imports it in a bare interpreter.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Leftover", "leftovers_path", "one_line", "record", "summary", "take"]

MAX_BYTES = 256_000  # a file bigger than this is not ours to read whole (only its start is)


def one_line(text: str, cap: int) -> str:
    """`text` as one printable line of at most `cap` characters: what names a child in the leftovers file
    and in the reaper's protocol (one line each)."""
    flat = "".join(ch if ch.isprintable() else " " for ch in text).strip()
    return flat if len(flat) <= cap else flat[: cap - 1] + "…"


@dataclass(frozen=True)
class Leftover:
    label: str  # "background process proc_1: sleep 100", "MCP server 'docs'"
    pgid: int
    stopped: float  # time.time()
    how: str  # "after the app was killed", "at exit"


def leftovers_path(hermes_home: Path) -> Path:
    return hermes_home / "tui" / "leftovers.jsonl"


def record(path: Path, leftovers: Iterable[Leftover]) -> None:
    """Append `leftovers` (quietly: the cleanup itself matters more than its report)."""
    lines = [
        json.dumps({"label": x.label, "pgid": x.pgid, "stopped": x.stopped, "how": x.how}) + "\n"
        for x in leftovers
    ]
    if not lines:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, "".join(lines).encode("utf-8", errors="replace"))
        finally:
            os.close(fd)
    except OSError:
        pass


def take(path: Path) -> list[Leftover]:
    """What the earlier runs left, removed from the file so it is told once; [] when nothing."""
    claimed = path.with_name(f"{path.name}.{os.getpid()}.taken")
    try:
        os.replace(path, claimed)
    except OSError:
        return []
    found: list[Leftover] = []
    try:
        with open(claimed, "rb") as fh:
            raw = fh.read(MAX_BYTES)
        for line in raw.decode("utf-8", errors="replace").splitlines():
            try:
                item = json.loads(line)
                found.append(
                    Leftover(str(item["label"]), int(item["pgid"]), float(item["stopped"]), str(item["how"]))
                )
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a crash mid-write: skipped
    except OSError:
        pass
    finally:
        try:
            os.unlink(claimed)
        except OSError:
            pass
    return found


def summary(leftovers: list[Leftover]) -> str | None:
    """One line for the next start: what the last run left running and how it was stopped."""
    if not leftovers:
        return None
    labels = [x.label for x in leftovers[:5]]
    more = f" and {len(leftovers) - 5} more" if len(leftovers) > 5 else ""
    when = time.strftime("%H:%M", time.localtime(max(x.stopped for x in leftovers)))
    noun = "process" if len(leftovers) == 1 else "processes"
    return (
        f"The last run ended without stopping its child {noun}; stopped at {when}: "
        + "; ".join(labels)
        + more
    )

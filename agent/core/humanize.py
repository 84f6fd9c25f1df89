"""Numbers for people: durations, countdowns, ages, sizes and token counts, formatted the same way everywhere.

One module so the status bar, the spinner, tool panels, exports, the session list and checkpoints cannot
drift apart (they once had two elapsed-time and two relative-age formatters with different output).
Pure functions of their arguments: the caller passes `now`, so nothing here reads the clock.
"""

from __future__ import annotations

import math
from datetime import datetime

__all__ = [
    "format_absolute",
    "format_age",
    "format_countdown",
    "format_elapsed",
    "format_size",
    "format_tokens",
]

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def format_elapsed(seconds: float, *, tenths: bool = True) -> str:
    """`3.2s`, `1m 05s`, `1h 02m`: short for a status line, precise where it matters.

    `tenths=False` drops the decimal under a minute (`7s`) for displays that repaint once a second, where
    a tenth would sit still and look frozen.
    """
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.1f}s" if tenths else f"{int(seconds)}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m"


def format_countdown(seconds: float) -> str:
    """`m:ss` (or `h:mm:ss`) for time left, rounding up so it never shows 0:00 while time remains."""
    total = max(0, math.ceil(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{secs:02d}"
    return f"{minutes}:{secs:02d}"


def format_age(timestamp: float, now: float) -> str:
    """How long ago, in local time: "just now", "3 min ago", "5 h ago", "yesterday", "3 days ago",
    "Mar 4", "Mar 4 2024". Days count calendar days, so 23:50 seen at 00:10 is "yesterday"."""
    try:
        delta = now - timestamp
        then = datetime.fromtimestamp(timestamp)
        today = datetime.fromtimestamp(now)
    except (OverflowError, OSError, ValueError, TypeError):
        return ""
    if delta < 60:
        return "just now"
    if delta < 3600:
        return f"{int(delta // 60)} min ago"
    days = (today.date() - then.date()).days
    if days == 0:
        return f"{int(delta // 3600)} h ago"
    if days == 1:
        return "yesterday"
    if days < 7:
        return f"{days} days ago"
    label = f"{_MONTHS[then.month - 1]} {then.day}"
    return label if then.year == today.year else f"{label} {then.year}"


def format_absolute(timestamp: float, now: float | None = None) -> str:
    """ "Mar 4, 14:02" (local time), with the year when it is not the year of `now`."""
    try:
        then = datetime.fromtimestamp(timestamp)
        year = datetime.fromtimestamp(now).year if now is not None else then.year
    except (OverflowError, OSError, ValueError, TypeError):
        return ""
    day = f"{_MONTHS[then.month - 1]} {then.day}" + (f" {then.year}" if then.year != year else "")
    return f"{day}, {then:%H:%M}"


def format_size(n: int) -> str:
    """`512 bytes`, `1.5 KB`, `3.2 MB`, `1.0 GB` (binary units, one decimal above a kilobyte)."""
    size = float(max(0, n))
    for unit in ("bytes", "KB", "MB"):
        if size < 1024:
            return f"{int(size)} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


def format_tokens(count: int) -> str:
    """Compact token count: 950, 12.3k, 128k, 1.2M."""
    if count < 1000:
        return str(count)
    if count < 100_000:
        return f"{count / 1000:.1f}k".replace(".0k", "k")
    if count < 1_000_000:
        return f"{count // 1000}k"
    return f"{count / 1_000_000:.1f}M".replace(".0M", "M")

"""The one set of formatters for durations, countdowns, ages and sizes."""

from __future__ import annotations

from datetime import datetime

from agent.core.humanize import format_age, format_countdown, format_elapsed, format_size

NOW = datetime(2026, 3, 10, 14, 0).timestamp()


def test_elapsed() -> None:
    assert format_elapsed(3.24) == "3.2s"
    assert format_elapsed(3.24, tenths=False) == "3s"
    assert format_elapsed(65) == "1m 05s" == format_elapsed(65.9, tenths=False)
    assert format_elapsed(3725) == "1h 02m"
    assert format_elapsed(-1) == "0.0s"


def test_countdown_rounds_up() -> None:
    assert format_countdown(0.2) == "0:01"
    assert format_countdown(300) == "5:00"
    assert format_countdown(3661) == "1:01:01"
    assert format_countdown(-5) == "0:00"


def test_age_counts_calendar_days() -> None:
    assert format_age(NOW - 5, NOW) == "just now"
    assert format_age(NOW - 180, NOW) == "3 min ago"
    assert format_age(NOW - 5 * 3600, NOW) == "5 h ago"
    assert format_age(NOW - 20 * 3600, NOW) == "yesterday"
    assert format_age(NOW - 3 * 86400, NOW) == "3 days ago"
    assert format_age(datetime(2026, 3, 1, 9, 0).timestamp(), NOW) == "Mar 1"
    assert format_age(datetime(2025, 3, 4, 9, 0).timestamp(), NOW) == "Mar 4 2025"
    assert format_age(float("inf"), NOW) == ""


def test_size() -> None:
    assert format_size(512) == "512 bytes"
    assert format_size(1536) == "1.5 KB"
    assert format_size(3 * 1024 * 1024) == "3.0 MB"
    assert format_size(5 * 1024**3) == "5.0 GB"

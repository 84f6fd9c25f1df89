"""Hermes' schedule strings (cron/jobs.py `parse_schedule`) and when a schedule next fires.

`30m` / `2h` / `1d`: once, that long from now; `every 30m`: recurring; `0 9 * * *`: a five-field cron
expression (numbers, `*`, ranges, lists, steps, as Hermes accepts them); `2026-02-03T14:00`: once at that
time (a naive time is local). The parsed form is Hermes' dict (`kind`, `minutes` / `expr` / `run_at`,
`display`), stored as is in jobs.json. A bad string raises `ScheduleError` with one line saying what the
accepted forms are.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

__all__ = ["ScheduleError", "local_now", "next_run", "parse_schedule", "schedule_problem"]

_DURATION = re.compile(r"^(\d+)\s*(m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days)$")
_CRON_FIELD = re.compile(r"^[\d*\-,/]+$")
_FORMS = "use '30m', 'every 2h', '0 9 * * *' or '2026-02-03T14:00'"
# (lowest, highest) of minute, hour, day of month, month, day of week (0 = Sunday, 7 = Sunday too)
_RANGES = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7))
ONESHOT_GRACE = timedelta(seconds=120)  # a one-shot time this far in the past still runs (Hermes' grace)


class ScheduleError(ValueError):
    """A schedule string that is none of the accepted forms; its message is one line."""


def local_now() -> datetime:
    return datetime.now().astimezone()


def _minutes(text: str) -> int:
    match = _DURATION.match(text.strip().lower())
    if not match:
        raise ScheduleError(f"invalid duration '{text}': {_FORMS}")
    value = int(match.group(1))
    if value <= 0:
        raise ScheduleError(f"invalid duration '{text}': it must be more than 0")
    return value * {"m": 1, "h": 60, "d": 1440}[match.group(2)[0]]


def _field(text: str, low: int, high: int) -> frozenset[int]:
    values: set[int] = set()
    for part in text.split(","):
        body, _, step_text = part.partition("/")
        step = int(step_text) if step_text else 1
        if step_text and (not step_text.isdigit() or step <= 0):
            raise ValueError(f"bad step in '{part}'")
        if body == "*":
            start, end = low, high
        elif "-" in body:
            a, _, b = body.partition("-")
            start, end = int(a), int(b)
        else:
            start = int(body)
            end = high if step_text else start
        if not (low <= start <= high and low <= end <= high) or start > end:
            raise ValueError(f"'{part}' is outside {low}-{high}")
        values.update(range(start, end + 1, step))
    return frozenset(values)


class CronExpression:
    """A five-field cron expression; `after(t)` is the first matching minute later than `t`."""

    def __init__(self, expr: str) -> None:
        parts = expr.split()
        if len(parts) != 5:
            raise ValueError("a cron expression has five fields: minute hour day month weekday")
        try:
            fields = [_field(p, lo, hi) for p, (lo, hi) in zip(parts, _RANGES, strict=True)]
        except ValueError as exc:
            raise ValueError(
                str(exc).replace("invalid literal for int() with base 10", "not a number")
            ) from exc
        self.minutes, self.hours, self.days, self.months, weekdays = fields
        self.weekdays = frozenset(d % 7 for d in weekdays)
        self.any_day = parts[2] == "*"
        self.any_weekday = parts[4] == "*"

    def _day_matches(self, day: datetime) -> bool:
        if day.month not in self.months:
            return False
        in_month = day.day in self.days
        in_week = (day.isoweekday() % 7) in self.weekdays
        if self.any_day or self.any_weekday:  # cron's rule: both restricted means either one
            return in_month and in_week
        return in_month or in_week

    def after(self, moment: datetime) -> datetime | None:
        start = moment.replace(second=0, microsecond=0) + timedelta(minutes=1)
        day = start.replace(hour=0, minute=0)
        for _ in range(366 * 5):
            if self._day_matches(day):
                for hour in sorted(self.hours):
                    for minute in sorted(self.minutes):
                        candidate = day.replace(hour=hour, minute=minute)
                        if candidate >= start:
                            return candidate
            day = (day + timedelta(days=1)).replace(hour=0, minute=0)
        return None


def parse_schedule(text: str, now: datetime | None = None) -> dict[str, Any]:
    """Hermes' parsed schedule for `text` (raises `ScheduleError` with one line)."""
    now = now or local_now()
    schedule = text.strip()
    if not schedule:
        raise ScheduleError(f"the schedule is empty: {_FORMS}")
    if schedule.lower().startswith("every "):
        minutes = _minutes(schedule[6:])
        return {"kind": "interval", "minutes": minutes, "display": f"every {minutes}m"}
    parts = schedule.split()
    if len(parts) >= 5 and all(_CRON_FIELD.match(p) for p in parts[:5]):
        try:
            CronExpression(schedule)
        except ValueError as exc:
            raise ScheduleError(f"invalid cron expression '{schedule}': {exc}") from None
        return {"kind": "cron", "expr": schedule, "display": schedule}
    if "T" in schedule or re.match(r"^\d{4}-\d{2}-\d{2}", schedule):
        try:
            moment = datetime.fromisoformat(schedule.replace("Z", "+00:00"))
        except ValueError as exc:
            raise ScheduleError(f"invalid timestamp '{schedule}': {exc}") from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=now.tzinfo)
        if moment < now - ONESHOT_GRACE:
            raise ScheduleError(f"the time {schedule} is in the past")
        return {"kind": "once", "run_at": moment.isoformat(), "display": f"once at {moment:%Y-%m-%d %H:%M}"}
    try:
        minutes = _minutes(schedule)
    except ScheduleError:
        raise ScheduleError(f"invalid schedule '{schedule}': {_FORMS}") from None
    run_at = now + timedelta(minutes=minutes)
    return {"kind": "once", "run_at": run_at.isoformat(), "display": f"once in {schedule}"}


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


def schedule_problem(schedule: object) -> str | None:
    """Why a stored (parsed) schedule from jobs.json cannot fire, in a few words; None when it can.

    A hand-edited file can hold anything: the job is skipped with this reason rather than crashing a
    listing or firing at a wrong time."""
    if not isinstance(schedule, dict):
        return f"its schedule is {_type_name(schedule)}, not Hermes' parsed schedule object"
    kind = schedule.get("kind")
    if kind == "once":
        run_at = schedule.get("run_at")
        if not isinstance(run_at, str):
            return "its one-shot schedule has no run_at time"
        try:
            datetime.fromisoformat(run_at)
        except ValueError:
            return f"its schedule's run_at {run_at!r} is not a time"
        return None
    if kind == "interval":
        minutes = schedule.get("minutes")
        if isinstance(minutes, bool) or not isinstance(minutes, int) or minutes <= 0:
            return f"its interval schedule's minutes {minutes!r} is not a positive whole number"
        return None
    if kind == "cron":
        expr = schedule.get("expr")
        if not isinstance(expr, str):
            return "its cron schedule has no expression"
        try:
            CronExpression(expr)
        except ValueError as exc:
            return f"its cron expression {expr!r} is invalid: {exc}"
        return None
    return f"its schedule kind {kind!r} is not once, interval or cron"


def _aware(text: str, now: datetime) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=now.tzinfo)


def next_run(
    schedule: dict[str, Any], last_run_at: str | None = None, now: datetime | None = None
) -> str | None:
    """When `schedule` fires next (ISO text), after its last run if any; None when it never will again."""
    now = now or local_now()
    kind = schedule.get("kind")
    base = (_aware(last_run_at, now) if last_run_at else None) or now
    if kind == "once":
        if last_run_at:
            return None
        run_at = _aware(str(schedule.get("run_at", "")), now)
        return run_at.isoformat() if run_at is not None else None
    if kind == "interval":
        minutes = schedule.get("minutes")
        if not isinstance(minutes, int) or minutes <= 0:
            return None
        return (base + timedelta(minutes=minutes)).isoformat()
    if kind == "cron":
        try:
            fires = CronExpression(str(schedule.get("expr", ""))).after(base)
        except ValueError:
            return None
        return fires.isoformat() if fires is not None else None
    return None

"""Which entries of a hand-edited or foreign jobs.json this process can use, and why not the others.

jobs.json is shared with Hermes and edited by people: one entry with a wrong type, no prompt or a schedule
that cannot fire must not stop the listing or the run of the other jobs. Each entry is checked once when
the file is read; a bad one becomes a `BrokenEntry` (one line naming it and the reason) and is kept in
the file as it is, never rewritten or dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from agent.cron.schedule import schedule_problem

__all__ = ["BrokenEntry", "broken_entry", "entry_problem"]

# (field, the types it may have besides null, how the reason names them)
_OPTIONAL_FIELDS: tuple[tuple[str, tuple[type, ...], str], ...] = (
    ("name", (str,), "text"),
    ("schedule_display", (str,), "text"),
    ("state", (str,), "text"),
    ("workdir", (str,), "text"),
    ("next_run_at", (str,), "a time"),
    ("last_run_at", (str,), "a time"),
    ("enabled", (bool,), "true or false"),
    ("repeat", (dict,), "an object"),
    ("enabled_toolsets", (list,), "a list"),
)


def _type_name(value: object) -> str:
    return "null" if value is None else type(value).__name__


@dataclass(frozen=True)
class BrokenEntry:
    """One entry of jobs.json that is skipped: where it is (1-based), its id when it has one, why."""

    index: int
    job_id: str | None
    reason: str

    def line(self) -> str:
        named = f"job '{self.job_id}' (entry {self.index})" if self.job_id else f"entry {self.index}"
        return f"skipped {named} of jobs.json: {self.reason}"


def _repeat_problem(repeat: dict[str, Any]) -> str | None:
    times, completed = repeat.get("times"), repeat.get("completed", 0)
    if times is not None and (isinstance(times, bool) or not isinstance(times, int)):
        return f"its repeat times {times!r} is not a whole number"
    if isinstance(completed, bool) or not isinstance(completed, int) or completed < 0:
        return f"its repeat completed {completed!r} is not a count"
    return None


def entry_problem(raw: object) -> str | None:
    """Why `raw` (one element of jobs.json's list) is not a job this process can list and run."""
    if not isinstance(raw, dict):
        return f"it is {_type_name(raw)}, not a job object"
    job_id = raw.get("id")
    if not isinstance(job_id, str) or not job_id.strip():
        return "it has no id" if job_id in (None, "") else f"its id is {_type_name(job_id)}, not text"
    prompt = raw.get("prompt")
    if prompt is not None and not isinstance(prompt, str):
        return f"its prompt is {_type_name(prompt)}, not text"
    if not (prompt or "").strip():
        if raw.get("skills") or raw.get("skill") or raw.get("script"):
            return "it has no prompt (skill-only and script-only jobs run in Hermes' gateway)"
        return "it has no prompt"
    for field, types, shown in _OPTIONAL_FIELDS:
        value = raw.get(field)
        if value is not None and not isinstance(value, types):
            return f"its {field} is {_type_name(value)}, not {shown}"
    if (problem := schedule_problem(raw.get("schedule"))) is not None:
        return problem
    next_run_at = raw.get("next_run_at")
    if isinstance(next_run_at, str):
        try:
            datetime.fromisoformat(next_run_at)
        except ValueError:
            return f"its next_run_at {next_run_at!r} is not a time"
    toolsets = raw.get("enabled_toolsets")
    if isinstance(toolsets, list) and not all(isinstance(t, str) for t in toolsets):
        return "its enabled_toolsets are not all names"
    repeat = raw.get("repeat")
    return _repeat_problem(repeat) if isinstance(repeat, dict) else None


def broken_entry(index: int, raw: object) -> BrokenEntry | None:
    """The `BrokenEntry` for the `index`-th (0-based) element, or None when it is a usable job."""
    problem = entry_problem(raw)
    if problem is None:
        return None
    job_id = raw.get("id") if isinstance(raw, dict) else None
    return BrokenEntry(index + 1, job_id if isinstance(job_id, str) and job_id else None, problem)

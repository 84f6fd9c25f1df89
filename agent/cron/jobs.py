"""The job file Hermes writes: `$HERMES_HOME/cron/jobs.json` (`{"jobs": [...], "updated_at": ...}`), each
job a dict of Hermes' fields, and each run's output under `cron/output/<job id>/<time>.md`.

Every change is a read-modify-write under Hermes' advisory lock (`cron/.jobs.lock`, flock), written
atomically (temporary file + rename), so Hermes' gateway and this process can share the file. Fields we do
not use are kept as they are.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import socket
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.core.bounded_files import MAX_CONFIG_BYTES, read_bytes
from agent.cron.entries import BrokenEntry, broken_entry, entry_problem
from agent.cron.schedule import ScheduleError, local_now, next_run, parse_schedule

__all__ = ["AmbiguousJobReference", "CronJobs", "CronStoreError", "Job", "JobList"]

CLAIM_TTL_SECONDS = 300  # Hermes' claim TTL: a runner that died holding a claim blocks the job this long


class CronStoreError(Exception):
    """jobs.json cannot be read (not JSON, not Hermes' shape): one line saying so."""


class AmbiguousJobReference(LookupError):
    """A job name that several jobs have (Hermes' message: use the id)."""

    def __init__(self, ref: str, matches: list[Job]) -> None:
        self.matches = matches
        ids = ", ".join(m.id for m in matches)
        super().__init__(
            f"Job name '{ref}' is ambiguous — matches {len(matches)} jobs: {ids}. Use the job ID instead."
        )


@dataclass(frozen=True)
class Job:
    """A read-only view of one job dict."""

    raw: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.raw.get("id", ""))

    @property
    def name(self) -> str:
        return str(self.raw.get("name") or self.prompt[:50] or self.id)

    @property
    def prompt(self) -> str:
        return str(self.raw.get("prompt") or "")

    @property
    def schedule_display(self) -> str:
        schedule = self.raw.get("schedule")
        shown = schedule.get("display") if isinstance(schedule, dict) else None
        return str(self.raw.get("schedule_display") or shown or "?")

    @property
    def enabled(self) -> bool:
        return bool(self.raw.get("enabled", True))

    @property
    def state(self) -> str:
        return str(self.raw.get("state") or ("scheduled" if self.enabled else "paused"))

    @property
    def next_run_at(self) -> str | None:
        value = self.raw.get("next_run_at")
        return value if isinstance(value, str) else None

    @property
    def workdir(self) -> str | None:
        value = self.raw.get("workdir")
        return value if isinstance(value, str) and value else None

    @property
    def toolsets(self) -> list[str]:
        value = self.raw.get("enabled_toolsets")
        return [str(v) for v in value] if isinstance(value, list) else []

    def repeat_display(self) -> str:
        repeat = self.raw.get("repeat") or {}
        times, completed = repeat.get("times"), repeat.get("completed", 0)
        if times is None:
            return "forever"
        if times == 1:
            return "once" if completed == 0 else "1/1"
        return f"{completed}/{times}" if completed else f"{times} times"

    def claimed(self, now: datetime) -> bool:
        """Whether a runner (this process's `cronjob run`, Hermes' gateway) holds a fresh claim on it; a
        malformed, future-dated or stale claim holds nothing (Hermes' rule)."""
        claim = self.raw.get("fire_claim")
        if not isinstance(claim, dict) or not isinstance(claim.get("at"), str):
            return False
        try:
            age = (now - datetime.fromisoformat(claim["at"])).total_seconds()
        except (TypeError, ValueError):
            return False
        return 0 <= age < CLAIM_TTL_SECONDS

    def is_due(self, now: datetime) -> bool:
        if not self.enabled or self.state == "paused" or self.next_run_at is None:
            return False
        try:
            when = datetime.fromisoformat(self.next_run_at)
        except ValueError:
            return False
        if when.tzinfo is None:
            when = when.replace(tzinfo=now.tzinfo)
        return when <= now


@dataclass
class JobList:
    """jobs.json read: the jobs this process can use and the entries it skips (each one line)."""

    jobs: list[Job]
    broken: list[BrokenEntry]


class CronJobs:
    """The jobs of one `HERMES_HOME`."""

    def __init__(self, hermes_home: Path) -> None:
        self.dir = hermes_home / "cron"
        self.path = self.dir / "jobs.json"
        self.output_dir = self.dir / "output"

    # ------------------------------------------------------------------ the file

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.dir / ".jobs.lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _load(self) -> list[Any]:
        """Every entry of the file as it is, usable or not (a save writes the broken ones back as they
        were: nothing a person wrote is lost)."""
        try:
            text = read_bytes(self.path, limit=MAX_CONFIG_BYTES).decode("utf-8-sig")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise CronStoreError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        except ValueError as exc:  # not UTF-8, or larger than any job file
            raise CronStoreError(f"cannot read {self.path}: {exc}") from None
        try:
            data = json.loads(text, strict=False) if text.strip() else {"jobs": []}
        except ValueError as exc:
            raise CronStoreError(f"{self.path} is not valid JSON ({exc})") from None
        jobs = data.get("jobs", []) if isinstance(data, dict) else data
        if not isinstance(jobs, list):
            raise CronStoreError(f"{self.path}: expected {{'jobs': [...]}}, got {type(jobs).__name__}")
        return jobs

    @staticmethod
    def _find(entries: list[Any], job_id: str) -> dict[str, Any] | None:
        """The usable entry with this id (a broken one is never changed)."""
        usable = (e for e in entries if isinstance(e, dict) and entry_problem(e) is None)
        return next((e for e in usable if e.get("id") == job_id), None)

    def _save(self, jobs: list[dict[str, Any]]) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=".jobs_", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"jobs": jobs, "updated_at": local_now().isoformat()}, fh, indent=2)
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    # ------------------------------------------------------------------ operations

    def scan(self) -> JobList:
        """The usable jobs and the skipped entries, in the file's order."""
        listing = JobList([], [])
        for index, raw in enumerate(self._load()):
            broken = broken_entry(index, raw)
            if broken is None:
                listing.jobs.append(Job(raw))
            else:
                listing.broken.append(broken)
        return listing

    def list_jobs(self, include_disabled: bool = True) -> list[Job]:
        jobs = self.scan().jobs
        return jobs if include_disabled else [j for j in jobs if j.enabled]

    def get(self, job_id: str) -> Job | None:
        return next((j for j in self.list_jobs() if j.id == job_id), None)

    def resolve(self, ref: str) -> Job | None:
        """A job by id, else by name without regard to case (Hermes' `resolve_job_ref`); a name that
        several jobs have raises `AmbiguousJobReference`."""
        jobs = self.list_jobs()
        if found := next((j for j in jobs if j.id == ref), None):
            return found
        named = [j for j in jobs if j.name.lower() == ref.lower()]
        if len(named) > 1:
            raise AmbiguousJobReference(ref, named)
        return named[0] if named else None

    def create(
        self,
        prompt: str,
        schedule: str,
        *,
        name: str | None = None,
        repeat: int | None = None,
        workdir: str | None = None,
        toolsets: list[str] | None = None,
        now: datetime | None = None,
    ) -> Job:
        """A new job (raises `ScheduleError` for a bad schedule), in Hermes' field layout."""
        now = now or local_now()
        parsed = parse_schedule(schedule, now)
        if repeat is not None and repeat <= 0:
            repeat = None
        if parsed["kind"] == "once" and repeat is None:
            repeat = 1
        raw: dict[str, Any] = {
            "id": uuid.uuid4().hex[:12],
            "name": (name or prompt[:50]).strip() or "cron job",
            "prompt": prompt,
            "skills": [],
            "skill": None,
            "model": None,
            "provider": None,
            "base_url": None,
            "script": None,
            "no_agent": False,
            "context_from": None,
            "schedule": parsed,
            "schedule_display": parsed.get("display", schedule),
            "repeat": {"times": repeat, "completed": 0},
            "enabled": True,
            "state": "scheduled",
            "paused_at": None,
            "paused_reason": None,
            "created_at": now.isoformat(),
            "next_run_at": next_run(parsed, now=now),
            "last_run_at": None,
            "last_status": None,
            "last_error": None,
            "last_delivery_error": None,
            "deliver": "local",
            "origin": None,
            "enabled_toolsets": toolsets or None,
            "workdir": workdir,
        }
        with self._locked():
            jobs = self._load()
            jobs.append(raw)
            self._save(jobs)
        return Job(raw)

    def remove(self, job_id: str) -> bool:
        with self._locked():
            jobs = self._load()
            kept = [j for j in jobs if not (isinstance(j, dict) and j.get("id") == job_id)]
            if len(kept) == len(jobs):
                return False
            self._save(kept)
        return True

    def set_paused(self, job_id: str, paused: bool, reason: str | None = None) -> Job | None:
        """Hermes' `pause_job` / `resume_job`: a resumed job's next run is computed from now."""
        changes: dict[str, Any] = {
            "enabled": not paused,
            "state": "paused" if paused else "scheduled",
            "paused_at": local_now().isoformat() if paused else None,
            "paused_reason": reason if paused else None,
        }
        return self._change(job_id, changes, reschedule=not paused)

    def update(self, job_id: str, changes: dict[str, Any]) -> Job | None:
        """Hermes' `update_job`: the changed fields over the job; a new schedule gets its next run (a
        one-shot time already past raises `ScheduleError`) unless the job is paused."""
        return self._change(job_id, changes, reschedule="schedule" in changes)

    def _change(self, job_id: str, changes: dict[str, Any], *, reschedule: bool) -> Job | None:
        with self._locked():
            jobs = self._load()
            raw = self._find(jobs, job_id)
            if raw is None:
                return None
            updated = {**raw, **changes}
            if reschedule and updated.get("state") != "paused":
                updated["next_run_at"] = next_run(updated["schedule"])
            if (
                updated.get("enabled", True)
                and updated.get("state") != "paused"
                and not updated.get("next_run_at")
            ):
                updated["next_run_at"] = next_run(updated["schedule"])
                if updated["next_run_at"] is None:
                    raise ScheduleError("the job's schedule never fires again: give it a new schedule")
            jobs[jobs.index(raw)] = updated
            self._save(jobs)
            return Job(updated)

    def claim(self, job_id: str, now: datetime | None = None) -> str | None:
        """Hermes' `claim_job_for_fire` before running a job outside the schedule: at most one runner
        (this process or Hermes' gateway) fires it; a recurring job's next run moves on. None when
        claimed, else why not."""
        now = now or local_now()
        with self._locked():
            jobs = self._load()
            raw = self._find(jobs, job_id)
            if raw is None:
                return "Job no longer exists; nothing to run."
            if not raw.get("enabled", True) or raw.get("state") == "paused":
                return "Job is paused/disabled; resume it before running."
            if Job(raw).claimed(now):
                return "Job is already being fired by the scheduler; not run again."
            raw["fire_claim"] = {"at": now.isoformat(), "by": socket.gethostname()}
            if raw["schedule"].get("kind") in ("cron", "interval"):
                raw["next_run_at"] = next_run(raw["schedule"], now.isoformat(), now) or raw.get("next_run_at")
            self._save(jobs)
        return None

    def due(self, now: datetime | None = None) -> list[Job]:
        now = now or local_now()
        return [job for job in self.list_jobs() if job.is_due(now) and not job.claimed(now)]

    def mark_run(
        self, job_id: str, *, ok: bool, error: str | None = None, now: datetime | None = None
    ) -> None:
        """After a run (Hermes' `mark_job_run`): the last status, the repeat count, the next run; a job
        whose repeats are spent is removed, a one-shot is completed."""
        now = now or local_now()
        with self._locked():
            jobs = self._load()
            for index, raw in enumerate(jobs):
                if not isinstance(raw, dict) or raw.get("id") != job_id or entry_problem(raw):
                    continue
                raw.pop("fire_claim", None)
                raw["last_run_at"] = now.isoformat()
                raw["last_status"] = "ok" if ok else "error"
                raw["last_error"] = None if ok else error
                repeat = raw.get("repeat")
                if isinstance(repeat, dict):
                    repeat["completed"] = int(repeat.get("completed", 0)) + 1
                    times = repeat.get("times")
                    if isinstance(times, int) and times > 0 and repeat["completed"] >= times:
                        jobs.pop(index)
                        self._save(jobs)
                        return
                raw["next_run_at"] = next_run(raw.get("schedule") or {}, raw["last_run_at"], now)
                if raw["next_run_at"] is None:
                    raw["enabled"], raw["state"] = False, "completed"
                elif raw.get("state") != "paused":
                    raw["state"] = "scheduled"
                self._save(jobs)
                return

    def save_output(self, job: Job, text: str, now: datetime | None = None) -> Path:
        """The run's document, as Hermes' scheduler writes it (`# Cron Job: ...`)."""
        now = now or local_now()
        folder = self.output_dir / _safe_component(job.id)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{now:%Y-%m-%d_%H-%M-%S}.md"
        path.write_text(text, encoding="utf-8")
        return path

    def outputs(self, job_id: str) -> list[Path]:
        folder = self.output_dir / _safe_component(job_id)
        return sorted(folder.glob("*.md")) if folder.is_dir() else []


def _safe_component(job_id: str) -> str:
    """A job id as a folder name: an id from a hand-edited file never reaches outside `output/`."""
    return (
        job_id
        if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", job_id)
        else re.sub(r"[^A-Za-z0-9_-]", "_", job_id)[:64] or "_"
    )

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
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.core.bounded_files import MAX_CONFIG_BYTES, read_bytes
from agent.cron.schedule import local_now, next_run, parse_schedule

__all__ = ["CronJobs", "CronStoreError", "Job"]


class CronStoreError(Exception):
    """jobs.json cannot be read (not JSON, not Hermes' shape): one line saying so."""


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

    def _load(self) -> list[dict[str, Any]]:
        try:
            text = read_bytes(self.path, limit=MAX_CONFIG_BYTES).decode("utf-8-sig")
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise CronStoreError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        try:
            data = json.loads(text, strict=False) if text.strip() else {"jobs": []}
        except ValueError as exc:
            raise CronStoreError(f"{self.path} is not valid JSON ({exc})") from None
        jobs = data.get("jobs", []) if isinstance(data, dict) else data
        if not isinstance(jobs, list):
            raise CronStoreError(f"{self.path}: expected {{'jobs': [...]}}")
        return [job for job in jobs if isinstance(job, dict)]

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

    def list_jobs(self, include_disabled: bool = True) -> list[Job]:
        jobs = [Job(raw) for raw in self._load()]
        return jobs if include_disabled else [j for j in jobs if j.enabled]

    def get(self, job_id: str) -> Job | None:
        return next((j for j in self.list_jobs() if j.id == job_id), None)

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
            kept = [j for j in jobs if j.get("id") != job_id]
            if len(kept) == len(jobs):
                return False
            self._save(kept)
        return True

    def set_paused(self, job_id: str, paused: bool, reason: str | None = None) -> Job | None:
        with self._locked():
            jobs = self._load()
            for raw in jobs:
                if raw.get("id") == job_id:
                    raw["enabled"] = not paused
                    raw["state"] = "paused" if paused else "scheduled"
                    raw["paused_at"] = local_now().isoformat() if paused else None
                    raw["paused_reason"] = reason if paused else None
                    if not paused:
                        raw["next_run_at"] = next_run(raw.get("schedule") or {})
                    self._save(jobs)
                    return Job(raw)
        return None

    def due(self, now: datetime | None = None) -> list[Job]:
        now = now or local_now()
        return [job for job in self.list_jobs() if job.is_due(now)]

    def mark_run(
        self, job_id: str, *, ok: bool, error: str | None = None, now: datetime | None = None
    ) -> None:
        """After a run (Hermes' `mark_job_run`): the last status, the repeat count, the next run; a job
        whose repeats are spent is removed, a one-shot is completed."""
        now = now or local_now()
        with self._locked():
            jobs = self._load()
            for index, raw in enumerate(jobs):
                if raw.get("id") != job_id:
                    continue
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

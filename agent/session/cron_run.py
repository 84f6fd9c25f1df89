"""Running scheduled jobs: each due job is one fresh headless session (source `cron`), as Hermes' gateway
runs them, its answer saved as the job's output (`cron/output/<id>/<time>.md`, Hermes' document) and
its session stored, so `/sessions` and `session_search` find it.

Nobody is there to answer: clarify gets no answer, risky commands are denied unless the settings say yolo
(the UI given decides, the CLI's denies), and the job's agent is never offered `cronjob` (no job schedules
more jobs). `CronDaemon` runs the due jobs once a minute in the foreground until stopped.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from agent.core.ui import AgentUI
from agent.cron.jobs import CronJobs
from agent.cron.run import JobRun, run_job

if TYPE_CHECKING:
    from agent.config.settings import Settings
    from agent.store import SessionStoreProtocol

__all__ = ["CronDaemon", "JobRun", "run_due_jobs", "run_job"]  # JobRun, run_job: agent.cron.run

TICK_SECONDS = 60.0


def run_due_jobs(
    settings: Settings,
    *,
    store: SessionStoreProtocol | None,
    ui: AgentUI,
    now: datetime | None = None,
    on_run: Callable[[JobRun], None] | None = None,
) -> list[JobRun]:
    """Every job due at `now`, one after another."""
    from agent.session.session import Session

    jobs = CronJobs(settings.hermes_home)
    runs = []
    for job in jobs.due(now):
        run = run_job(job, settings, new_agent=Session, store=store, ui=ui, jobs=jobs)
        runs.append(run)
        if on_run is not None:
            on_run(run)
    return runs


@dataclass
class CronDaemon:
    """`hermes-tui cron daemon`: the due jobs once a tick, until `stop()`."""

    settings: Settings
    store: SessionStoreProtocol | None
    ui: AgentUI
    on_run: Callable[[JobRun], None] | None = None
    tick: float = TICK_SECONDS
    _stop: threading.Event = dataclasses.field(default_factory=threading.Event)

    def stop(self) -> None:
        self._stop.set()

    def run(self) -> None:
        while not self._stop.is_set():
            run_due_jobs(self.settings, store=self.store, ui=self.ui, on_run=self.on_run)
            self._stop.wait(self.tick)

"""`hermes-tui cron list | run | daemon`: the scheduled jobs of `$HERMES_HOME/cron/jobs.json` (Hermes'
file, so a Hermes user's jobs appear).

`list` prints one line per job; `run` runs the due jobs now, each as a headless session (stored and
searchable, its answer in `cron/output/`); `daemon` does that once a minute in the foreground until
Ctrl+C, as Hermes' gateway would. A run denies risky commands unless `--yolo` (nobody is there to
approve). An entry of the file that cannot be used (a wrong type, no prompt, a schedule that cannot fire,
not an object) is one line on stderr naming it and why, and the other jobs are listed and run. Exit 0, or
1 with one line when the job file cannot be read at all or a job failed.
"""

from __future__ import annotations

import argparse
import signal
from contextlib import ExitStack
from typing import TYPE_CHECKING

from hermes_tui.headless import HeadlessUI, _say

if TYPE_CHECKING:
    from agent.api import Job, JobRun, LoadedSettings

ACTIONS = ("list", "run", "daemon")


def job_line(job: Job) -> str:
    last = job.raw.get("last_status") or "never run"
    when = job.next_run_at or "-"
    return f"{job.id}  {job.name[:40]:<40}  {job.schedule_display:<16}  next {when}  {job.state}  ({last})"


def run_cron(action: str, args: argparse.Namespace, loaded: LoadedSettings) -> int:
    from agent.api import CronJobs, CronStoreError

    if action not in ACTIONS:
        _say(f"hermes-tui: unknown cron action {action!r}: use cron list, cron run or cron daemon")
        return 2
    settings = loaded.settings
    jobs = CronJobs(settings.hermes_home)
    try:
        listing = jobs.scan()
    except CronStoreError as exc:
        _say(f"hermes-tui: cron: {exc}")
        return 1
    for broken in listing.broken:  # on stderr: stdout stays one job a line
        _say(f"hermes-tui: cron: {broken.line()}")
    listed = listing.jobs
    if action == "list":
        if not listed:
            print(f"No scheduled jobs ({jobs.path}).")
        for job in listed:
            print(job_line(job))
        return 0
    return _run_jobs(action, args, loaded)


def _report(run: JobRun) -> None:
    status = "ok" if run.ok else f"failed: {run.error}"
    print(
        f"{run.job.id}  {run.job.name}: {status}  (session {run.session_id}, output {run.output})", flush=True
    )


def _run_jobs(action: str, args: argparse.Namespace, loaded: LoadedSettings) -> int:
    from agent.api import CronDaemon, CronStoreError, StoreError, open_library, run_due_jobs

    settings = loaded.settings
    with ExitStack() as stack:
        if args.demo or args.scenario:
            from scripted import DEMO_MODEL, ScriptedServer, demo_scenario_path, scripted_settings

            server = stack.enter_context(ScriptedServer(args.scenario or demo_scenario_path()))
            settings = scripted_settings(server, settings, model=settings.model if args.model else DEMO_MODEL)
        if not settings.is_configured:
            _say("hermes-tui: cron: no model provider configured (see hermes-tui config)")
            return 1
        try:
            store = open_library(settings.state_db, settings.hermes_home)
        except StoreError as exc:
            _say(f"hermes-tui: {exc.user_line()}")
            return 1
        stack.callback(store.close)
        ui = HeadlessUI()
        failed = 0

        def on_run(run: JobRun) -> None:
            nonlocal failed
            failed += 0 if run.ok else 1
            _report(run)

        try:
            if action == "run":
                if not run_due_jobs(settings, store=store, ui=ui, on_run=on_run):
                    print("No jobs are due.")
                return 1 if failed else 0
            daemon = CronDaemon(settings, store, ui, on_run=on_run)
            previous = signal.signal(signal.SIGINT, lambda signum, frame: daemon.stop())
            _say(
                f"hermes-tui: cron daemon: running due jobs every minute ({settings.hermes_home / 'cron'}); "
                "Ctrl+C stops"
            )
            try:
                daemon.run()
            finally:
                signal.signal(signal.SIGINT, previous)
            return 0
        except CronStoreError as exc:
            _say(f"hermes-tui: cron: {exc}")
            return 1
    return 0  # pragma: no cover - the with block returns


def cron_action(argv: list[str]) -> tuple[str, list[str]]:
    """`cron run --yolo` -> ("run", ["--yolo"]); no action lists."""
    if argv and not argv[0].startswith("-"):
        return argv[0], argv[1:]
    return "list", argv


__all__ = ["cron_action", "job_line", "run_cron"]

"""One scheduled job run now, as its own headless session (source `cron`), as Hermes' gateway runs it: its
answer saved as the job's output (`cron/output/<id>/<time>.md`, Hermes' document), the run recorded in
jobs.json. Used by `cron run`/the daemon (`agent.session.cron_run`) and by the cronjob tool's `run`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent.core.exit_reasons import is_success
from agent.core.ui import AgentUI
from agent.cron.jobs import CronJobs, Job
from agent.cron.schedule import local_now

if TYPE_CHECKING:
    from agent.config.settings import Settings
    from agent.store import SessionStoreProtocol

__all__ = ["JobAgent", "JobRun", "run_job"]


class JobAgent(Protocol):
    """What a job's run needs of the agent running it."""

    registry: Any
    session_id: str

    def run_conversation(self, user_message: str) -> Any: ...

    def interrupt(self) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class JobRun:
    job: Job
    ok: bool
    session_id: str
    output: Path | None
    answer: str
    error: str | None = None


def _document(job: Job, now: datetime, answer: str, error: str | None) -> str:
    text = f"# Cron Job: {job.name}\n\n**Job ID:** {job.id}\n**Run Time:** {now:%Y-%m-%d %H:%M:%S}\n"
    text += f"**Schedule:** {job.schedule_display}\n\n## Prompt\n\n{job.prompt}\n\n## Response\n\n"
    text += (answer or "(No response generated)") + "\n"
    if error:
        text += f"\n**Error:** {error}\n"
    return text


def _stop_on(interrupt: threading.Event, agent: JobAgent, done: threading.Event) -> None:
    """Pass an interrupt from outside (Esc on the `cronjob run` call that started this run) to the job's
    agent, which stops within one poll slice."""
    while not done.wait(0.05):
        if interrupt.is_set():
            agent.interrupt()
            return


def run_job(
    job: Job,
    settings: Settings,
    *,
    new_agent: Callable[..., JobAgent],
    store: SessionStoreProtocol | None,
    ui: AgentUI,
    jobs: CronJobs,
    interrupt: threading.Event | None = None,
) -> JobRun:
    """Run one job now, record the run in jobs.json and its output beside it. `new_agent` builds the
    job's agent (the loop's class: this package is below the session's, which offers the cronjob tool)."""
    cwd = Path(job.workdir) if job.workdir and Path(job.workdir).is_dir() else settings.cwd
    update: dict[str, object] = {"cwd": cwd, "auto_title": False}
    if job.toolsets:
        update["toolsets"] = job.toolsets
    started = local_now()
    agent = new_agent(settings.model_copy(update=update), ui=ui, store=store, source="cron")
    agent.registry.unregister("cronjob")
    done = threading.Event()
    if interrupt is not None:
        threading.Thread(target=_stop_on, args=(interrupt, agent, done), daemon=True).start()
    try:
        result = agent.run_conversation(job.prompt)
        session_id = result.session_id
        if store is not None and session_id:
            store.set_title(session_id, f"cron: {job.name}"[:100])
    except Exception as exc:  # a bug in the loop: the job's run is recorded as failed, the others go on
        result, session_id = None, agent.session_id
        error: str | None = f"{type(exc).__name__}: {exc}"
    finally:
        done.set()
        agent.close()
    answer = result.final_text if result is not None else ""
    ok = result is not None and is_success(result.exit_reason)
    if result is not None:
        error = None if ok else (result.error.user_line() if result.error else result.exit_reason)
    output = jobs.save_output(job, _document(job, started, answer, error), started)
    jobs.mark_run(job.id, ok=ok, error=error)
    return JobRun(job, ok, session_id, output, answer, error)

"""`cronjob`: Hermes' tool for scheduled jobs (tools/cronjob_tools.py), on the same jobs.json.

Actions here: create (a prompt and a schedule), list, remove, pause and resume. A job runs later as a fresh
headless session (`hermes-tui cron run` / `cron daemon`, or Hermes' gateway), so its prompt must say
everything; a cron run is never offered this tool (no job schedules more jobs). The answer is Hermes'
JSON (`success`, `job_id`, `jobs`, ...).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agent.cron.jobs import CronJobs, CronStoreError, Job
from agent.cron.schedule import ScheduleError
from agent.toolkit.registry import Tool, ToolContext, ToolResult

__all__ = ["TOOLS", "CronjobArgs", "cronjob", "job_summary"]

ACTIONS = ("create", "list", "remove", "pause", "resume")

DESCRIPTION = """Manage scheduled cron jobs with a single compressed tool.

Use action='create' to schedule a new job from a prompt.
Use action='list' to inspect jobs.
Use action='pause', 'resume' or 'remove' to manage an existing job.

To stop a job the user no longer wants: first action='list' to find the job_id, then action='remove' with \
that job_id. Never guess job IDs — always list first.

Jobs run in a fresh session with no current-chat context, so prompts must be self-contained.

NOTE: the agent's final response is saved as the job's output. Cron jobs run autonomously with no user \
present — they cannot ask questions or request clarification.

Important safety rule: cron-run sessions should not recursively schedule more cron jobs."""


class CronjobArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")

    action: str = Field(
        description="One of: create, list, pause, resume, remove. When action=create, the 'schedule' and "
        "'prompt' fields are REQUIRED."
    )
    job_id: str | None = Field(None, description="Required for pause/resume/remove")
    prompt: str | None = Field(None, description="For create: the full self-contained prompt.")
    schedule: str | None = Field(
        None,
        description="REQUIRED for action=create: '30m', 'every 2h', '0 9 * * *', or ISO timestamp. "
        "Examples: '30m' (once, in 30 minutes), 'every 2h' (every 2 hours), '0 9 * * *' (daily at 9am), "
        "'2026-06-01T09:00:00' (one-shot).",
    )
    name: str | None = Field(None, description="Optional human-friendly name")
    repeat: int | None = Field(
        None,
        description="Optional repeat count. Omit for defaults (once for one-shot, forever for recurring).",
    )
    enabled_toolsets: list[str] | None = Field(
        None, description="Optional toolsets the job's agent may use (default: the usual ones)."
    )
    workdir: str | None = Field(
        None, description="Optional absolute working directory for the job's session."
    )
    reason: str | None = Field(None, description="Optional reason, for pause.")


def job_summary(job: Job) -> dict[str, Any]:
    """Hermes' `_format_job` fields for one job."""
    prompt = job.prompt
    return {
        "job_id": job.id,
        "name": job.name,
        "prompt_preview": prompt[:100] + "..." if len(prompt) > 100 else prompt,
        "schedule": job.schedule_display,
        "repeat": job.repeat_display(),
        "deliver": job.raw.get("deliver", "local"),
        "next_run_at": job.next_run_at,
        "last_run_at": job.raw.get("last_run_at"),
        "last_status": job.raw.get("last_status"),
        "enabled": job.enabled,
        "state": job.state,
        **({"workdir": job.workdir} if job.workdir else {}),
        **({"enabled_toolsets": job.toolsets} if job.toolsets else {}),
    }


def _answer(payload: dict[str, Any], status: str = "ok") -> ToolResult:
    return ToolResult(content=json.dumps(payload, ensure_ascii=False, indent=2), status=status)


def _failure(message: str) -> ToolResult:
    return _answer({"success": False, "error": message}, "error")


def cronjob(args: CronjobArgs, ctx: ToolContext) -> ToolResult:
    jobs = CronJobs(ctx.hermes_home)
    action = args.action.strip().lower()
    try:
        if action == "create":
            if not args.schedule:
                return _failure("schedule is required for create")
            if not (args.prompt or "").strip():
                return _failure("create requires a prompt")
            workdir = args.workdir or str(ctx.cwd)
            job = jobs.create(
                args.prompt or "",
                args.schedule,
                name=args.name,
                repeat=args.repeat,
                workdir=str(ctx.resolve(workdir)),
                toolsets=args.enabled_toolsets,
            )
            return _answer(
                {
                    "success": True,
                    "job_id": job.id,
                    "name": job.name,
                    "schedule": job.schedule_display,
                    "repeat": job.repeat_display(),
                    "next_run_at": job.next_run_at,
                    "job": job_summary(job),
                    "message": f"Cron job '{job.name}' created.",
                }
            )
        if action == "list":
            listed = [job_summary(j) for j in jobs.list_jobs()]
            return _answer({"success": True, "count": len(listed), "jobs": listed})
        if action in ("remove", "pause", "resume"):
            if not args.job_id:
                return _failure(f"job_id is required for action '{action}'")
            found = jobs.get(args.job_id)
            if found is None:
                return _failure(
                    f"Job with ID '{args.job_id}' not found. Use cronjob(action='list') to inspect jobs."
                )
            job = found
            if action == "remove":
                jobs.remove(job.id)
                return _answer(
                    {
                        "success": True,
                        "message": f"Cron job '{job.name}' removed.",
                        "removed_job": {"id": job.id, "name": job.name, "schedule": job.schedule_display},
                    }
                )
            changed = jobs.set_paused(job.id, action == "pause", args.reason)
            return _answer({"success": True, "job": job_summary(changed or job)})
    except ScheduleError as exc:
        return _failure(str(exc))
    except (CronStoreError, OSError) as exc:
        return _failure(str(exc))
    return _failure(f"Unknown cron action '{args.action}'. Use one of: {', '.join(ACTIONS)}")


TOOLS = [
    Tool(
        name="cronjob",
        description=DESCRIPTION,
        args_model=CronjobArgs,
        handler=cronjob,
        summary_arg="action",
        toolset="cronjob",
    )
]

"""`cronjob`: Hermes' tool for scheduled jobs (tools/cronjob_tools.py), on the same jobs.json.

Actions, as Hermes has them: create (a prompt and a schedule), list, update (only the fields given),
pause, resume, remove, and run (now, as its own cron session; `run_now` and `trigger` say the same). A
job is named by its id or its name. A job runs later as a fresh headless session (`hermes-tui cron run`
/ `cron daemon`, or Hermes' gateway), so its prompt must say everything; a cron run is never offered this
tool (no job schedules more jobs). The answer is Hermes' JSON (`success`, `job_id`, `jobs`, ...).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agent.core.ui import NullUI
from agent.core.user_paths import expand_user
from agent.cron.jobs import AmbiguousJobReference, CronJobs, CronStoreError, Job
from agent.cron.schedule import ScheduleError, parse_schedule
from agent.toolkit.registry import Tool, ToolContext, ToolResult

__all__ = ["TOOLS", "CronjobArgs", "cronjob", "job_summary"]

ACTIONS = ("create", "list", "update", "pause", "resume", "remove", "run")
RUN_ACTIONS = ("run", "run_now", "trigger")

DESCRIPTION = """Manage scheduled cron jobs with a single compressed tool.

Use action='create' to schedule a new job from a prompt.
Use action='list' to inspect jobs.
Use action='update', 'pause', 'resume', 'remove', or 'run' to manage an existing job.

To stop a job the user no longer wants: first action='list' to find the job_id, then action='remove' with \
that job_id. Never guess job IDs — always list first.

Jobs run in a fresh session with no current-chat context, so prompts must be self-contained.

NOTE: the agent's final response is saved as the job's output. Cron jobs run autonomously with no user \
present — they cannot ask questions or request clarification.

Important safety rule: cron-run sessions should not recursively schedule more cron jobs."""


class CronjobArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")

    action: str = Field(
        description="One of: create, list, update, pause, resume, remove, run. When action=create, the "
        "'schedule' and 'prompt' fields are REQUIRED."
    )
    job_id: str | None = Field(None, description="Required for update/pause/resume/remove/run")
    prompt: str | None = Field(None, description="For create: the full self-contained prompt.")
    schedule: str | None = Field(
        None,
        description="REQUIRED for action=create. For create/update: '30m', 'every 2h', '0 9 * * *', or ISO "
        "timestamp. Examples: '30m' (once, in 30 minutes), 'every 2h' (every 2 hours), '0 9 * * *' (daily at "
        "9am), '2026-06-01T09:00:00' (one-shot). You MUST include this field when action=create.",
    )
    name: str | None = Field(None, description="Optional human-friendly name")
    repeat: int | None = Field(
        None,
        description="Optional repeat count. Omit for defaults (once for one-shot, forever for recurring).",
    )
    enabled_toolsets: list[str] | None = Field(
        None,
        description='Optional list of toolset names to restrict the job\'s agent to (e.g. ["web", '
        '"terminal", "file"]). When omitted, the usual toolsets are loaded. On update, pass an empty '
        "array to clear.",
    )
    workdir: str | None = Field(
        None,
        description="Optional absolute path to run the job from: the terminal/file tools use it as their "
        "working directory. Must be an absolute path that exists. On update, pass an empty string to clear.",
    )
    reason: str | None = Field(None, description="Optional reason, for pause.")


def job_summary(job: Job) -> dict[str, Any]:
    """Hermes' `_format_job` fields for one job."""
    raw, prompt = job.raw, job.prompt
    skills = [str(s) for s in raw.get("skills") or [] if s] if isinstance(raw.get("skills"), list) else []
    return {
        "job_id": job.id or "unknown",
        "name": job.name,
        "skill": skills[0] if skills else None,
        "skills": skills,
        "prompt_preview": prompt[:100] + "..." if len(prompt) > 100 else prompt,
        "model": raw.get("model"),
        "provider": raw.get("provider"),
        "base_url": raw.get("base_url"),
        "schedule": job.schedule_display,
        "repeat": job.repeat_display(),
        "deliver": raw.get("deliver", "local"),
        "next_run_at": job.next_run_at,
        "last_run_at": raw.get("last_run_at"),
        "last_status": raw.get("last_status"),
        "last_delivery_error": raw.get("last_delivery_error"),
        "enabled": job.enabled,
        "state": job.state,
        "paused_at": raw.get("paused_at"),
        "paused_reason": raw.get("paused_reason"),
        **({"script": raw["script"]} if raw.get("script") else {}),
        **({"no_agent": True} if raw.get("no_agent") else {}),
        **({"enabled_toolsets": job.toolsets} if job.toolsets else {}),
        **({"workdir": job.workdir} if job.workdir else {}),
    }


def _answer(payload: dict[str, Any], status: str = "ok") -> ToolResult:
    return ToolResult(content=json.dumps(payload, ensure_ascii=False, indent=2), status=status)


def _failure(message: str) -> ToolResult:
    return _answer({"success": False, "error": message}, "error")


def _workdir(text: str) -> str | None:
    """Hermes' `_normalize_workdir`: empty clears it; else an absolute path of an existing directory."""
    raw = text.strip()
    if not raw:
        return None
    path = expand_user(raw)
    if not path.is_absolute():
        raise ValueError(
            f"Cron workdir must be an absolute path (got {raw!r}). "
            "Cron jobs run detached from any shell cwd, so relative paths are ambiguous."
        )
    resolved = path.resolve()
    if not resolved.is_dir():
        what = "is not a directory" if resolved.exists() else "does not exist"
        raise ValueError(f"Cron workdir {what}: {resolved}")
    return str(resolved)


def _create(args: CronjobArgs, ctx: ToolContext, jobs: CronJobs) -> ToolResult:
    if not args.schedule:
        return _failure("schedule is required for create")
    if not (args.prompt or "").strip():
        return _failure("create requires a prompt")
    job = jobs.create(
        args.prompt or "",
        args.schedule,
        name=args.name,
        repeat=args.repeat,
        workdir=str(ctx.resolve(args.workdir or str(ctx.cwd))),
        toolsets=args.enabled_toolsets,
    )
    return _answer(
        {
            "success": True,
            "job_id": job.id,
            "name": job.name,
            "skill": None,
            "skills": [],
            "schedule": job.schedule_display,
            "repeat": job.repeat_display(),
            "deliver": job.raw.get("deliver", "local"),
            "next_run_at": job.next_run_at,
            "job": job_summary(job),
            "message": f"Cron job '{job.name}' created.",
        }
    )


def _list(jobs: CronJobs) -> ToolResult:
    listing = jobs.scan()
    listed = [job_summary(j) for j in listing.jobs]
    payload: dict[str, Any] = {"success": True, "count": len(listed), "jobs": listed}
    if listing.broken:
        payload["skipped"] = [entry.line() for entry in listing.broken]
    return _answer(payload)


def _update(args: CronjobArgs, job: Job, jobs: CronJobs) -> ToolResult:
    """Hermes' update: only the fields given change; a new schedule is parsed and, unless the job is
    paused, scheduled again."""
    changes: dict[str, Any] = {}
    if args.prompt is not None:
        changes["prompt"] = args.prompt
    if args.name is not None:
        changes["name"] = args.name
    if args.enabled_toolsets is not None:
        changes["enabled_toolsets"] = args.enabled_toolsets or None
    if args.workdir is not None:
        changes["workdir"] = _workdir(args.workdir)
    if args.repeat is not None:
        repeat = dict(job.raw.get("repeat") or {})
        repeat["times"] = None if args.repeat <= 0 else args.repeat
        changes["repeat"] = repeat
    if args.schedule is not None:
        parsed = parse_schedule(args.schedule)
        changes["schedule"] = parsed
        changes["schedule_display"] = parsed.get("display", args.schedule)
        if job.state != "paused":
            changes["state"], changes["enabled"] = "scheduled", True
    if not changes:
        return _failure("No updates provided.")
    if "prompt" in changes and not changes["prompt"].strip():
        return _failure("update cannot clear the prompt: a job runs its prompt")
    updated = jobs.update(job.id, changes)
    return _answer({"success": True, "job": job_summary(updated or job)})


def _run(job: Job, ctx: ToolContext, jobs: CronJobs) -> ToolResult:
    """Hermes' run: the job runs now, here, as its own cron session (claimed first, so Hermes' gateway
    does not fire it at the same time); the answer is the job after the run."""
    from agent.cron.run import run_job

    if ctx.settings is None or ctx.new_agent is None:
        return _failure("cannot run a job here: no settings for its session")
    skipped = jobs.claim(job.id)
    ran = None
    if skipped is None:
        ctx.emit_progress(0, None, f"running job {job.name}")
        ran = run_job(
            job,
            ctx.settings,
            new_agent=ctx.new_agent,
            store=ctx.store,
            ui=NullUI(),
            jobs=jobs,
            interrupt=ctx.interrupt,
        )
    after = jobs.get(job.id)
    result = job_summary(after or Job({"id": job.id}))
    result["executed"] = ran is not None
    result["execution_success"] = bool(ran and ran.ok)
    if skipped is not None:
        result["execution_skipped"] = skipped
    elif ran is not None and ran.error:
        result["execution_error"] = ran.error
    return _answer({"success": True, "job": result})


def cronjob(args: CronjobArgs, ctx: ToolContext) -> ToolResult:
    jobs = CronJobs(ctx.hermes_home)
    action = args.action.strip().lower()
    try:
        if action == "create":
            return _create(args, ctx, jobs)
        if action == "list":
            return _list(jobs)
        if action not in ACTIONS + RUN_ACTIONS:
            return _failure(f"Unknown cron action '{args.action}'. Use one of: {', '.join(ACTIONS)}")
        if not args.job_id:
            return _failure(f"job_id is required for action '{action}'")
        try:
            found = jobs.resolve(args.job_id)
        except AmbiguousJobReference as exc:
            matches = [
                {"id": m.id, "name": m.name, "schedule": m.schedule_display, "next_run_at": m.next_run_at}
                for m in exc.matches
            ]
            return _answer({"success": False, "error": str(exc), "matches": matches}, "error")
        if found is None:
            return _failure(
                f"Job with ID or name '{args.job_id}' not found. Use cronjob(action='list') to inspect jobs."
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
        if action in ("pause", "resume"):
            changed = jobs.set_paused(job.id, action == "pause", args.reason)
            return _answer({"success": True, "job": job_summary(changed or job)})
        if action == "update":
            return _update(args, job, jobs)
        return _run(job, ctx, jobs)
    except (ScheduleError, CronStoreError, ValueError, OSError) as exc:
        return _failure(str(exc))


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

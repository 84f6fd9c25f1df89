"""`delegate_task`: Hermes' tool for handing work to subagents, run in the parent's turn.

The model gives a `goal` (with optional `context` and `toolsets`) or a list of `tasks`. Each task runs in a
fresh child agent (`agent.delegation.child`); at most `delegation.max_concurrent` at once, the rest wait
their turn. The call returns when every child has ended: its result is each child's final answer with a
short note of what it did (model calls, tools, time, its session) and any error. An interrupt (Escape)
reaches every child; those not started yet do not start, and the result says what finished.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import TYPE_CHECKING, Any, cast

from pydantic import BaseModel, Field, model_validator

from agent.core.permission_mode import initial_mode
from agent.delegation.child import ChildReport, ChildRun, ChildTask, tool_counts
from agent.toolkit.registry import Tool, ToolContext, ToolResult, simplify_schema

if TYPE_CHECKING:
    from agent.delegation.protocols import AgentFactory

__all__ = ["TOOLS", "DelegateArgs", "delegate_task", "format_reports"]

WAIT_SLICE = 0.1
MAX_TASKS = 12

GOAL_HELP = (
    "What the subagent should accomplish. Be specific and self-contained: the subagent knows nothing of "
    "your conversation."
)
CONTEXT_HELP = (
    "Background the subagent needs: file paths, error messages, constraints, the language to answer in."
)
TOOLSETS_HELP = "Toolsets the subagent may use (e.g. terminal, file, web); default: yours."


class TaskSpec(BaseModel):
    goal: str = Field(description=GOAL_HELP)
    context: str | None = Field(None, description=CONTEXT_HELP)
    toolsets: list[str] | None = Field(None, description=TOOLSETS_HELP)


class DelegateArgs(BaseModel):
    goal: str | None = Field(None, description=GOAL_HELP)
    context: str | None = Field(None, description=CONTEXT_HELP)
    toolsets: list[str] | None = Field(None, description=TOOLSETS_HELP)
    tasks: list[TaskSpec] | None = Field(
        None,
        description="Batch mode: independent tasks, each run by its own subagent, several at once. "
        "When given, the top-level goal, context and toolsets are ignored.",
    )

    @model_validator(mode="after")
    def _something_to_do(self) -> DelegateArgs:
        if not self.tasks and not (self.goal or "").strip():
            raise ValueError("give a `goal`, or `tasks` (a list of {goal, context})")
        if self.tasks and len(self.tasks) > MAX_TASKS:
            raise ValueError(f"at most {MAX_TASKS} tasks in one call")
        if self.tasks and any(not t.goal.strip() for t in self.tasks):
            raise ValueError("every task needs a non-empty `goal`")
        return self

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return simplify_schema(super().model_json_schema(*args, **kwargs))

    def task_list(self) -> list[ChildTask]:
        specs = self.tasks or [TaskSpec(goal=self.goal or "", context=self.context, toolsets=self.toolsets)]
        return [ChildTask(s.goal.strip(), (s.context or "").strip(), tuple(s.toolsets or ())) for s in specs]


DESCRIPTION = (
    "Hand work to subagents that run in isolated contexts: each gets its own conversation and tools "
    "(never delegate_task, clarify or memory), works until done, and only its final summary comes back to "
    "you; its intermediate tool results never enter your context. Give one `goal` (+ `context`), or "
    "`tasks` for independent work that can run in parallel. Use it for reasoning-heavy subtasks or work "
    "that would flood your context; not for a single tool call. Subagents know nothing of this "
    "conversation: pass file paths, errors and constraints in `context`. Their summaries are "
    "self-reports: verify claims of side effects before telling the user."
)


def _unknown_toolsets(tasks: list[ChildTask], ctx: ToolContext) -> list[str]:
    from agent.toolkit.toolsets import ALL_NAMES, CATALOG

    known = set(CATALOG.definitions()) | ALL_NAMES | {"other"}
    return sorted({name for t in tasks for name in t.toolsets if name not in known})


def format_reports(reports: list[ChildReport]) -> str:
    """The tool result: each child's answer and a note on what it did (one section per task in a batch)."""
    sections = []
    for report in reports:
        note = [report.status.replace("_", " ")]
        if report.api_calls:
            note.append(f"{report.api_calls} model call" + ("s" if report.api_calls != 1 else ""))
        if report.tool_calls:
            note.append(f"tools: {tool_counts(report.tool_calls)}")
        if report.duration:
            note.append(f"{report.duration:.1f} s")
        if report.session_id:
            note.append(f"session {report.session_id}")
        body = report.answer.strip() or "(no answer)"
        text = f"{body}\n\n[subagent: {'; '.join(note)}]"
        if report.error:
            text += f"\n[error: {report.error}]"
        if len(reports) > 1:
            text = f"## Task {report.index + 1}: {report.goal}\n{text}"
        sections.append(text)
    return "\n\n".join(sections)


def delegate_task(args: DelegateArgs, ctx: ToolContext) -> ToolResult:
    if ctx.settings is None or ctx.new_agent is None:
        return ToolResult.error("delegate_task needs a running agent (no subagent factory in this context)")
    tasks = args.task_list()
    unknown = _unknown_toolsets(tasks, ctx)
    if unknown:
        return ToolResult.error(f"unknown toolset(s): {', '.join(unknown)}")
    settings = ctx.settings
    ask_lock = threading.Lock()
    mode = (
        ctx.approvals.permission_mode
        if ctx.approvals is not None
        else initial_mode(settings.permission_mode, settings.yolo)
    )
    runs = [
        ChildRun(
            task,
            index,
            parent_settings=settings,
            factory=cast("AgentFactory", ctx.new_agent),
            ui=ctx.ui,
            store=ctx.store,
            parent_session_id=ctx.session_id,
            call_id=ctx.call_id,
            mode=mode,
            ask_lock=ask_lock,
            total=len(tasks),
            environment=ctx.environment,
        )
        for index, task in enumerate(tasks)
    ]
    started = time.monotonic()
    workers = max(1, min(settings.delegation_max_concurrent, len(runs)))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="subagent") as pool:
        futures: list[Future[ChildReport]] = [pool.submit(run.run) for run in runs]
        interrupted = False
        while not all(f.done() for f in futures):
            wait(futures, timeout=WAIT_SLICE)
            if ctx.interrupt.is_set():
                interrupted = True
                for run in runs:  # again every slice: a child that was just starting its turn sees it too
                    run.interrupt()
        reports = [f.result() for f in futures]
    data: dict[str, Any] = {
        "children": [
            {"goal": r.goal, "status": r.status, "session_id": r.session_id, "tools": len(r.tool_calls)}
            for r in reports
        ],
        "duration": round(time.monotonic() - started, 3),
    }
    content = format_reports(reports)
    if interrupted or ctx.interrupt.is_set():
        return ToolResult(
            content=f"[delegate_task interrupted by the user]\n\n{content}", status="cancelled", data=data
        )
    if not any(r.completed for r in reports):
        return ToolResult(
            content=f"Error: no subagent completed its task.\n\n{content}", status="error", data=data
        )
    return ToolResult(content=content, data=data)


TOOLS = [
    Tool(
        name="delegate_task",
        description=DESCRIPTION,
        args_model=DelegateArgs,
        handler=delegate_task,
        summary_arg="goal",
        toolset="delegation",
    )
]

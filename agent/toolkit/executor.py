"""Runs one batch of tool calls the way Hermes does: concurrently where safe, results in call order.

A batch is cut into ordered segments. Consecutive calls that are all parallel-safe, or path-scoped on
distinct resolved paths, form a parallel segment (at most 8 workers); anything else (terminal, clarify,
unparseable arguments, a path already touched in the segment) is a barrier that runs alone. A later call
never overtakes an earlier barrier. The interrupt flag reaches every running tool through its context;
calls not started when it is set get a "cancelled" result, so every call always has exactly one result.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel

from agent.core.events import ToolFinished, ToolOutput, ToolProgress, ToolStarted
from agent.core.messages import ToolCall
from agent.core.secrets import SECRETS
from agent.core.text_safety import sanitize_display
from agent.core.ui import AgentUI
from agent.toolkit.registry import Tool, ToolContext, ToolRegistry, ToolResult, summarize_call
from agent.toolkit.truncate import truncate_middle


class RefusedCall(Protocol):
    """What a `before_tool` hook returns to refuse a call (the plugins' `Block`)."""

    def as_result(self) -> ToolResult: ...


class ToolHooks(Protocol):
    """Hooks around each call (the plugin manager): the framework runs them, not knowing who wrote them."""

    def has_hooks(self, point: str) -> bool: ...

    def before_tool(self, call: ToolCall) -> ToolCall | RefusedCall: ...

    def after_tool(self, call: ToolCall, result: ToolResult, duration: float = 0.0) -> ToolResult: ...


MAX_WORKERS = 8
CANCELLED_TEXT = "[Tool execution cancelled by user interrupt: {name} was not completed]"


@dataclass
class ExecutedCall:
    call: ToolCall
    result: ToolResult
    duration: float
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Planned:
    index: int
    call: ToolCall
    parsed: tuple[Tool, BaseModel] | ToolResult
    path: str | None = None

    @property
    def tool(self) -> Tool | None:
        return self.parsed[0] if isinstance(self.parsed, tuple) else None


def plan_segments(planned: list[_Planned]) -> list[tuple[str, list[_Planned]]]:
    """Split a batch into ordered ("parallel" | "sequential", calls) segments."""
    segments: list[tuple[str, list[_Planned]]] = []
    current: list[_Planned] = []
    paths: set[str] = set()

    def flush() -> None:
        nonlocal current, paths
        if current:
            segments.append(("parallel" if len(current) > 1 else "sequential", current))
        current, paths = [], set()

    for item in planned:
        tool = item.tool
        concurrent_ok = tool is not None and not tool.interactive and (tool.parallel_safe or tool.path_scoped)
        if tool is not None and tool.path_scoped and item.path is None and not tool.parallel_safe:
            concurrent_ok = False
        if not concurrent_ok:
            flush()
            segments.append(("sequential", [item]))
            continue
        if item.path is not None and item.path in paths:
            flush()
        if item.path is not None:
            paths.add(item.path)
        current.append(item)
    flush()
    return segments


class ToolExecutor:
    def __init__(
        self, registry: ToolRegistry, *, result_budget: int = 50_000, max_workers: int = MAX_WORKERS
    ):
        self.registry = registry
        self.result_budget = result_budget
        self.max_workers = max_workers

    def run_batch(
        self,
        calls: list[ToolCall],
        *,
        make_context: Callable[[ToolCall], ToolContext],
        ui: AgentUI,
        interrupt: threading.Event,
        before_call: Callable[[ToolCall], None] | None = None,
        on_result: Callable[[ExecutedCall], None] | None = None,
        hooks: ToolHooks | None = None,
    ) -> list[ExecutedCall]:
        """Run every call; `on_result` sees each result in call order as soon as all earlier ones exist."""
        planned: list[_Planned] = []
        for index, call in enumerate(calls):
            if hooks is not None and hooks.has_hooks("before_tool"):
                changed = hooks.before_tool(call)
                if not isinstance(changed, ToolCall):
                    planned.append(_Planned(index, call, changed.as_result()))
                    continue
                call = changed
            parsed = self.registry.parse_arguments(call.name, call.arguments)
            path = None
            if isinstance(parsed, tuple):
                tool, args = parsed
                if tool.path_scoped:
                    raw = getattr(args, tool.path_arg, None)
                    if isinstance(raw, str) and raw:
                        ctx_cwd = make_context(call).cwd
                        full = (
                            raw if os.path.isabs(raw) else os.path.join(str(ctx_cwd), os.path.expanduser(raw))
                        )
                        path = os.path.normcase(os.path.realpath(full))
            planned.append(_Planned(index, call, parsed, path))

        results: list[ExecutedCall | None] = [None] * len(calls)
        for kind, segment in plan_segments(planned):
            if kind == "parallel" and not interrupt.is_set():
                with ThreadPoolExecutor(
                    max_workers=min(self.max_workers, len(segment)), thread_name_prefix="tool"
                ) as pool:
                    futures = {
                        item.index: pool.submit(
                            self._run_one, item, make_context, ui, interrupt, before_call, hooks
                        )
                        for item in segment
                    }
                    for index, fut in futures.items():
                        done = results[index] = fut.result()
                        if on_result is not None:
                            on_result(done)
            else:
                for item in segment:
                    done = results[item.index] = self._run_one(
                        item, make_context, ui, interrupt, before_call, hooks
                    )
                    if on_result is not None:
                        on_result(done)
        return [r for r in results if r is not None]

    @staticmethod
    def _by_mode(tool: Tool, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult | None:
        """The session's permission mode first (`agent.approval.modes`, through its gate): plan mode refuses
        what does not read, ask mode asks before an action; None when the call may run."""
        if ctx.approvals is None:
            return None
        verdict = ctx.approvals.review_mode(tool.name, arguments, read_only=tool.read_only)
        if verdict is None or verdict.allowed:
            return None
        data = {"decision": verdict.decision.value, "mode": ctx.approvals.permission_mode.value}
        return ToolResult(content=verdict.message, status="denied", data=data)

    def _run_one(
        self,
        item: _Planned,
        make_context: Callable[[ToolCall], ToolContext],
        ui: AgentUI,
        interrupt: threading.Event,
        before_call: Callable[[ToolCall], None] | None,
        hooks: ToolHooks | None = None,
    ) -> ExecutedCall:
        call = item.call
        arguments: dict[str, Any] = {}
        if isinstance(item.parsed, tuple):
            arguments = item.parsed[1].model_dump(exclude_none=True)
        # A call refused before parsing (a plugin's block, bad arguments) still says what it was.
        summary = summarize_call(
            call.name, arguments if isinstance(item.parsed, tuple) else call.arguments, self.registry
        )
        ui.on_event(
            ToolStarted(
                call_id=call.id, name=call.name, arguments=arguments, summary=summary, index=item.index
            )
        )
        started = time.monotonic()
        if interrupt.is_set():
            result = ToolResult(content=CANCELLED_TEXT.format(name=call.name), status="cancelled")
        elif isinstance(item.parsed, ToolResult):
            result = item.parsed
        else:
            tool_, args = item.parsed
            ctx = make_context(call)
            call_id = call.id

            def emit_output(chunk: str) -> None:
                ui.on_event(ToolOutput(call_id=call_id, chunk=SECRETS.redact(chunk)))

            def emit_progress(progress: float, total: float | None, message: str) -> None:
                ui.on_event(ToolProgress(call_id=call_id, progress=progress, total=total, message=message))

            ctx.emit_output = emit_output
            ctx.emit_progress = emit_progress
            ctx.output_budget = self.result_budget
            if before_call is not None:
                try:
                    before_call(call)
                except Exception:
                    pass
            result = self._by_mode(tool_, arguments, ctx) or self.registry.run(tool_, args, ctx)
            if hooks is not None and hooks.has_hooks("after_tool"):
                result = hooks.after_tool(call, result, duration=time.monotonic() - started)
        # What the model, the store, the trajectory, the exports and the screen get: known secrets and
        # credential shapes masked (a web backend's error quoting its key, a server printing its
        # environment), and terminal controls neutralised as the screen shows them (a page title with
        # `ESC [31m` or an OSC sequence must not reach a file someone later `cat`s).
        result.content = sanitize_display(SECRETS.redact(result.content))
        result.data = SECRETS.redact_data(dict(result.data))
        budget = self.result_budget
        if (tool := item.tool) is not None and tool.max_result_chars is not None:
            budget = tool.max_result_chars
        if len(result.content) > budget:
            result.content = truncate_middle(result.content, budget)
        duration = time.monotonic() - started
        ui.on_event(
            ToolFinished(
                call_id=call.id,
                name=call.name,
                status=result.status,
                duration=duration,
                result=result.content,
                data=dict(result.data),
            )
        )
        return ExecutedCall(call=call, result=result, duration=duration, arguments=arguments)

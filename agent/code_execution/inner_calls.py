"""A script's tool calls, run as the session's own: the same registry (so a toolset switched off stays
off), the same approval gate (a risky `terminal()` asks the user exactly as a direct call does, and is
denied headless without --yolo), the same interrupt.

Each call goes through a `ToolExecutor` of its own on the calling (RPC) thread, so it is validated,
truncated and reported like any call; its events reach the UI wrapped in `ChildEvent` addressed to the
`execute_code` call, which the tool panel draws nested below it (the subagents' path). What the script
gets back is a dict in Hermes' shape: `content` (or `output` and `exit_code` for terminal), the tool's
data, and `error` when it failed.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from typing import Any

from agent.core.events import AgentEvent, ChildEvent, StatusNotice, ToolFinished, ToolStarted
from agent.core.messages import ToolCall
from agent.core.ui import AgentUI, ApprovalAnswer, ApprovalDecision, ApprovalRequest, ClarifyRequest
from agent.toolkit.executor import ToolExecutor
from agent.toolkit.registry import ToolContext, ToolRegistry, ToolResult

__all__ = ["InnerCalls", "ScriptUI", "script_result"]

_FORWARDED = (ToolStarted, ToolFinished, StatusNotice)
_EXIT_LINE = "[exit code: "


class ScriptUI:
    """The parent's UI as a script's calls see it (`AgentUI`): their progress nested in the call's panel."""

    def __init__(self, parent: AgentUI, call_id: str) -> None:
        self.parent = parent
        self.call_id = call_id
        self.tool_calls = 0

    def on_event(self, event: AgentEvent) -> None:
        if isinstance(event, _FORWARDED):
            if isinstance(event, ToolStarted):
                self.tool_calls += 1
            self.parent.on_event(ChildEvent(call_id=self.call_id, child=0, event=event))

    def ask_clarify(self, request: ClarifyRequest) -> str | None:
        return None  # clarify is not a sandbox tool

    def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision | ApprovalAnswer:
        return self.parent.ask_approval(dataclasses.replace(request, origin="execute_code script"))


def _json_safe(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(json.dumps(data, default=str))
    return out


def script_result(name: str, result: ToolResult) -> dict[str, Any]:
    """What a script's `hermes_tools.<name>(...)` returns for `result`."""
    out: dict[str, Any] = {"status": result.status, **_json_safe(result.data)}
    content = result.content
    if name == "terminal":
        lines = content.split("\n")
        if lines and lines[-1].startswith(_EXIT_LINE):
            lines.pop()
        out["output"] = "\n".join(lines)
        out.setdefault("exit_code", -1)
    else:
        out["content"] = content
    if result.status != "ok" and not (name == "terminal" and result.status == "error"):
        out["error"] = content.removeprefix("Error: ")
    return out


class InnerCalls:
    """Runs one script's calls through the session's registry, under the `execute_code` call's context."""

    def __init__(self, ctx: ToolContext, registry: ToolRegistry) -> None:
        self.ctx = ctx
        self.registry = registry
        self.ui = ScriptUI(ctx.ui, ctx.call_id)
        self._numbers = itertools.count(1)

    def offered(self) -> set[str]:
        """The tools the session offers now (a script may call those of them that are sandbox tools)."""
        names = self.registry.offered() if self.registry.offered is not None else self.registry.names
        return set(names)

    def __call__(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        if name == "terminal":
            # Hermes' rule: a script's commands run in the foreground, to their end.
            for blocked in ("background", "pty", "notify_on_complete", "watch_patterns"):
                args.pop(blocked, None)
        call = ToolCall(id=f"{self.ctx.call_id}.{next(self._numbers)}", name=name, arguments=json.dumps(args))

        def make_context(inner: ToolCall) -> ToolContext:
            return dataclasses.replace(self.ctx, call_id=inner.id, ui=self.ui, emit_output=lambda chunk: None)

        executor = ToolExecutor(self.registry, result_budget=self.ctx.output_budget)
        done = executor.run_batch([call], make_context=make_context, ui=self.ui, interrupt=self.ctx.interrupt)
        return script_result(name, done[0].result)

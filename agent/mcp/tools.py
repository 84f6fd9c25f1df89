"""An MCP server's tools as the agent's `Tool`s: Hermes' names, the server's JSON schemas, the approval rule.

A tool is offered as `mcp_<server>_<tool>` (every character outside `[A-Za-z0-9_]` becomes `_`, as Hermes
sanitises them; a name over the providers' 64-character limit is shortened with a hash so it stays unique)
with the server's input schema as given. Whether a call asks the user first: the server's `approval` setting
(`never`, `always`), else the tool's annotations: a tool the server does not mark read-only, or marks
destructive, asks. The handler runs the call through the `McpManager` (its loop thread), so the agent
thread only waits, with the interrupt flag and the server's `timeout`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent.toolkit.registry import JsonArguments, Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from agent.mcp.config import ServerSpec
    from agent.mcp.results import CallReport

__all__ = ["MAX_TOOL_NAME", "McpToolInfo", "build_tools", "needs_approval", "normalize_schema", "tool_name"]

MAX_TOOL_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_]")

Caller = Callable[[str, str, dict[str, Any], ToolContext], "CallReport"]


def sanitize(value: str) -> str:
    return _UNSAFE.sub("_", str(value or ""))


def tool_name(server: str, tool: str) -> str:
    """`mcp_<server>_<tool>` with Hermes' sanitising, at most 64 characters."""
    name = f"mcp_{sanitize(server)}_{sanitize(tool)}"
    if len(name) <= MAX_TOOL_NAME:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_TOOL_NAME - 9]}_{digest}"


def normalize_schema(schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """The server's input schema, made acceptable to every provider: an object with `properties`."""
    out = dict(schema or {})
    if out.get("type") != "object":
        out = {"type": "object", "properties": {}} if not out else {**out, "type": "object"}
    if not isinstance(out.get("properties"), dict):
        out["properties"] = {}
    out.pop("title", None)
    return out


@dataclass(frozen=True)
class McpToolInfo:
    """What the client learned of one listed tool (taken from the SDK's `Tool`, so the engine stays typed)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool | None = None
    destructive: bool | None = None
    needs_task: bool = False  # `execution.taskSupport: required`: only callable as a task, which we do not do

    @classmethod
    def from_sdk(cls, tool: Any) -> McpToolInfo:
        notes = getattr(tool, "annotations", None)
        execution = getattr(tool, "execution", None)
        return cls(
            name=tool.name,
            description=tool.description or "",
            input_schema=dict(getattr(tool, "input_schema", None) or {}),
            read_only=getattr(notes, "read_only_hint", None),
            destructive=getattr(notes, "destructive_hint", None),
            needs_task=getattr(execution, "task_support", None) == "required",
        )


def needs_approval(spec: ServerSpec, info: McpToolInfo) -> str | None:
    """The reason the user is asked before a call, or None when it runs without asking."""
    if spec.approval == "never":
        return None
    if spec.approval == "always":
        return f"calls a tool of the MCP server '{spec.name}' (approval: always)"
    if info.destructive:
        return f"calls a tool the MCP server '{spec.name}' marks destructive"
    if info.read_only is not True:
        return f"calls a tool the MCP server '{spec.name}' does not mark read-only"
    return None


def _one_line(value: Mapping[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


def _handler(spec: ServerSpec, info: McpToolInfo, name: str, call: Caller) -> Callable[..., ToolResult]:
    reason = needs_approval(spec, info)

    def run(args: JsonArguments, ctx: ToolContext) -> ToolResult:
        arguments = args.model_dump()
        # In ask mode the executor asked already, before any action (`ApprovalGate.review_mode`).
        if reason is not None and ctx.approvals is not None and not ctx.approvals.asks_every_action:
            verdict = ctx.approvals.review_tool_call(name, _one_line(arguments), reason)
            if not verdict.allowed:
                return ToolResult(content=verdict.message, status="denied")
        report = call(spec.name, info.name, arguments, ctx)
        data: dict[str, Any] = {"server": spec.name, "mcp_tool": info.name}
        if report.images:  # kept on the tool message: each transport sends them in its own form
            data["images"] = list(report.images)
        if report.status == "ok":
            return ToolResult(content=report.text, data=data)
        if report.status == "cancelled":
            return ToolResult(content=report.text, status="cancelled", data=data)
        return ToolResult(content=f"Error: {report.text}", status="error", data=data)

    return run


def build_tools(
    spec: ServerSpec, listed: list[McpToolInfo], call: Caller, taken: Callable[[str], bool]
) -> tuple[list[Tool], list[str]]:
    """The tools to offer and the names left out (filtered by `tools.include/exclude`, or taken by a
    built-in tool: a built-in always wins, as in Hermes)."""
    tools: list[Tool] = []
    skipped: list[str] = []
    for info in listed:
        name = tool_name(spec.name, info.name)
        if info.needs_task:  # it would always fail: not offered, and /mcp says why
            skipped.append(f"{info.name} (needs task support)")
            continue
        if not spec.tools.allows(info.name) or taken(name):
            skipped.append(info.name)
            continue
        tools.append(
            Tool(
                name=name,
                description=info.description or f"MCP tool {info.name} from {spec.name}",
                args_model=JsonArguments,
                handler=_handler(spec, info, name, call),
                parameters=normalize_schema(info.input_schema),
                toolset=f"mcp-{spec.name}",
                read_only=info.read_only is True and not info.destructive,
            )
        )
    return tools, skipped

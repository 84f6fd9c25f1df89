"""`execute_code`: Hermes' tool (tools/code_execution_tool.py) with its name, schema and limits.

The model's script runs in a child Python in the session's working directory (`child`); `from
hermes_tools import read_file, terminal, ...` gives it the session's sandbox tools (`stubs`), each call a
round trip over a Unix socket (`rpc`) to the session's registry and approval gate (`inner_calls`). Only the
script's stdout comes back, capped at 50 KB with a note, so many tool calls cost one result in the
context. Limits: `code_execution.timeout` (5 minutes) and `code_execution.max_tool_calls` (50) from
config.yaml. An interrupt (Esc) kills the child's process group; a call in progress sees the same
interrupt. The result is Hermes' JSON: status, output, exit_code, tool_calls_made, duration_seconds and
the stdout byte counts.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agent.code_execution.child import MAX_STDOUT_BYTES, ScriptOutcome, child_environment, run_script
from agent.code_execution.inner_calls import InnerCalls
from agent.code_execution.rpc import RpcServer
from agent.code_execution.stubs import SANDBOX_TOOLS, TOOL_DOCS, hermes_tools_source
from agent.core.events import ChildFinished, ChildStarted
from agent.toolkit.registry import Tool, ToolContext, ToolResult

__all__ = ["TOOLS", "ExecuteCodeArgs", "describe", "execute_code"]

DEFAULT_TIMEOUT = 300
DEFAULT_MAX_TOOL_CALLS = 50


def describe(tools: set[str] | frozenset[str] = SANDBOX_TOOLS) -> str:
    """Hermes' description of the tool, listing the sandbox tools in `tools`."""
    lines = "\n".join(doc for name, doc in TOOL_DOCS if name in tools)
    return (
        "Run a Python script that can call Hermes tools programmatically. "
        "Use this when you need 3+ tool calls with processing logic between them, "
        "need to filter/reduce large tool outputs before they enter your context, "
        "need conditional branching (if X then Y else Z), or need to loop "
        "(fetch N pages, process N files, retry on failure).\n\n"
        "Use normal tool calls instead when: single tool call with no processing, "
        "you need to see the full result and apply complex reasoning, "
        "or the task requires interactive user input.\n\n"
        f"Available via `from hermes_tools import ...`:\n\n{lines}\n\n"
        "Limits: 5-minute timeout, 50KB stdout cap, max 50 tool calls per script. "
        "terminal() is foreground-only (no background or pty).\n\n"
        "Scripts run in the session's working directory with the active venv's python, "
        "so project deps (pandas, etc.) and relative paths work like in terminal().\n\n"
        "Print your final result to stdout. Use Python stdlib (json, re, math, csv, "
        "datetime, collections, etc.) for processing between tool calls.\n\n"
        "Also available (no import needed — built into hermes_tools):\n"
        "  json_parse(text: str) — json.loads with strict=False; use for terminal() output with control "
        "chars\n"
        "  shell_quote(s: str) — shlex.quote(); use when interpolating dynamic strings into shell commands\n"
        "  retry(fn, max_attempts=3, delay=2) — retry with exponential backoff for transient failures"
    )


class ExecuteCodeArgs(BaseModel):
    code: str = Field(
        description="Python code to execute. Import tools with `from hermes_tools import web_search, "
        "terminal, ...` and print your final result to stdout."
    )


def _limits(ctx: ToolContext) -> tuple[float, int]:
    settings = ctx.settings
    if settings is None:
        return DEFAULT_TIMEOUT, DEFAULT_MAX_TOOL_CALLS
    return settings.code_execution_timeout, settings.code_execution_max_tool_calls


def _result(outcome: ScriptOutcome, calls: int, timeout: float) -> tuple[dict[str, Any], str]:
    """Hermes' result object, and the tool status it is."""
    result: dict[str, Any] = {
        "status": outcome.status,
        "output": outcome.stdout,
        "exit_code": outcome.exit_code,
        "tool_calls_made": calls,
        "duration_seconds": round(outcome.duration, 2),
        "stdout_truncated": outcome.truncated,
        "stdout_bytes_captured": outcome.stdout_captured,
        "stdout_bytes_total": outcome.stdout_total,
        "stdout_bytes_omitted": outcome.stdout_total - outcome.stdout_captured,
    }
    if outcome.truncated:
        result["warning"] = (
            f"execute_code stdout was over {MAX_STDOUT_BYTES // 1000} KB and was truncated; the script did "
            "run, but only the captured head/tail output is included. Re-run only with narrower output if "
            "the omitted data is required."
        )
    if outcome.status == "timeout":
        message = f"Script timed out after {timeout:g}s and was killed."
        result["error"] = message
        result["output"] = f"{outcome.stdout}\n\n⏰ {message}" if outcome.stdout else f"⏰ {message}"
        return result, "error"
    if outcome.status == "interrupted":
        result["output"] = outcome.stdout + "\n[execution interrupted — user sent a new message]"
        return result, "cancelled"
    if outcome.status == "error":
        result["error"] = outcome.stderr or f"Script exited with code {outcome.exit_code}"
        if outcome.stderr:
            result["output"] = f"{outcome.stdout}\n--- stderr ---\n{outcome.stderr}"
        return result, "error"
    return result, "ok"


def _script_label(code: str) -> str:
    lines = [line for line in code.splitlines() if line.strip()]
    return f"{len(lines)} line{'s' if len(lines) != 1 else ''} of Python"


def execute_code(args: ExecuteCodeArgs, ctx: ToolContext) -> ToolResult:
    if not args.code.strip():
        return ToolResult.error("No code provided.")
    if ctx.tools is None:
        return ToolResult.error("execute_code needs the session's tools (no registry in this context)")
    if not ctx.env.is_local:
        # Its child is a Python on this machine: it must not run here when the session's commands run in
        # a container or on another host.
        return ToolResult.error(
            f"execute_code is not available with the {ctx.env.backend} backend ({ctx.env.label}): its "
            "script would run on this machine. Use the terminal tool there instead."
        )
    from agent.environments.local import sandbox_of

    # In the OS sandbox the script runs inside it too, and reaches its tools over a socket pair it inherits
    # (it may not open a Unix socket there).
    sandboxed = sandbox_of(ctx.env) is not None
    timeout, max_calls = _limits(ctx)
    calls = InnerCalls(ctx, ctx.tools)
    allowed = frozenset(SANDBOX_TOOLS & calls.offered())
    started = time.monotonic()
    ctx.ui.on_event(ChildStarted(ctx.call_id, 0, _script_label(args.code), label="script"))
    # /tmp, not a long TMPDIR: a Unix socket's path has at most 107 bytes.
    staging = Path(tempfile.mkdtemp(prefix="hermes_exec_", dir="/tmp" if Path("/tmp").is_dir() else None))
    server: RpcServer | None = None
    try:
        (staging / "hermes_tools.py").write_text(hermes_tools_source(allowed), encoding="utf-8")
        script = staging / "script.py"
        script.write_text(args.code, encoding="utf-8")
        server = RpcServer(
            staging / "rpc.sock", calls, allowed=allowed, max_calls=max_calls, paired=sandboxed
        )
        server.start()
        rpc_fd = server.child_fd
        env = child_environment(
            dict(os.environ),
            modules=staging,
            socket_path=server.socket_path,
            token=server.token,
            rpc_fd=rpc_fd,
        )
        cwd = ctx.cwd if ctx.cwd.is_dir() else staging
        outcome = run_script(
            script,
            cwd=cwd,
            env=env,
            timeout=timeout,
            interrupt=ctx.interrupt,
            environment=ctx.env,
            pass_fds=(rpc_fd,) if rpc_fd is not None else (),
        )
        server.close()
        result, status = _result(outcome, server.calls, timeout)
    except OSError as exc:
        result, status = {"status": "error", "error": f"could not run the script: {exc}"}, "error"
    finally:
        if server is not None:
            server.close(wait=0)
        shutil.rmtree(staging, ignore_errors=True)
    duration = time.monotonic() - started
    ctx.ui.on_event(
        ChildFinished(
            call_id=ctx.call_id,
            child=0,
            status={"success": "completed", "interrupted": "interrupted"}.get(str(result["status"]), "error"),
            summary=_first_line(str(result.get("output", ""))),
            tool_calls=calls.ui.tool_calls,
            duration=duration,
            error=_last_line(str(result["error"])) if "error" in result else None,
        )
    )
    data = {"exit_code": result.get("exit_code", -1), "tool_calls_made": result.get("tool_calls_made", 0)}
    return ToolResult(content=json.dumps(result, ensure_ascii=False), status=status, data=data)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:160]
    return ""


def _last_line(text: str) -> str:
    """A traceback's last line says what went wrong (`ValueError: boom`)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:160] if lines else ""


TOOLS = [
    Tool(
        name="execute_code",
        description=describe(),
        args_model=ExecuteCodeArgs,
        handler=execute_code,
        summary_arg="code",
        toolset="code_execution",
        max_result_chars=100_000,  # Hermes' cap: the script's 50 KB of stdout and the JSON around it
    )
]

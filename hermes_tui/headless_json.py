"""`-z ... --output-format stream-json|json`: a headless turn as JSON for scripts and CI.

The events follow Claude Code's `stream-json` (`claude -p --output-format stream-json`) where they fit, so
a script written for it needs little change: `system`/`init` first, `stream_event` text deltas as they
stream, `assistant` messages (text and `tool_use` blocks), `user` messages carrying `tool_result` blocks,
and a final `result`. What Claude Code has no event for (an approval refused, a notice such as a retry)
is a `system` event with its own subtype. `json` prints the `result` object alone, at the end. The schema
is in `docs/headless.md`.

stdout carries only these objects, one per line, so a parser never meets anything else; one-line notes
stay on stderr. Every string is JSON-escaped, so a model's terminal escapes are never raw on stdout.
"""

from __future__ import annotations

import json
import threading
import time
from typing import TYPE_CHECKING, Any, TextIO

from agent.api import (
    AgentEvent,
    ApiCallStarted,
    AssistantMessageDone,
    StatusNotice,
    StreamStalled,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnStarted,
    UsageUpdated,
)

if TYPE_CHECKING:
    from agent.api import ApprovalRequest, TurnResult, Usage

OUTPUT_FORMATS = ("text", "json", "stream-json")

_NOTICE_SUBTYPES = {"info": "notice", "warn": "warning", "retry": "retry", "error": "error"}


def tool_input_line(tool_input: object) -> str:
    if tool_input is None:
        return ""
    return json.dumps(tool_input, ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=str)


def usage_fields(usage: Usage) -> dict[str, int]:
    """Claude Code's usage names; `input_tokens` is the prompt as the provider counted it (cached part
    included: `cache_read_input_tokens` says how much of it was)."""
    return {
        "input_tokens": usage.prompt_tokens,
        "output_tokens": usage.completion_tokens,
        "cache_creation_input_tokens": usage.cache_write_tokens,
        "cache_read_input_tokens": usage.cache_read_tokens,
        "reasoning_tokens": usage.reasoning_tokens,
    }


def _arguments(text: str) -> Any:
    """A tool call's input as an object; arguments that are not JSON are kept as the string the model sent."""
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError:
        return text


class JsonEvents:
    """The JSON writer of one headless run. `on_event` may be called from tool threads: one lock orders
    the lines, and a line is written whole before the next."""

    def __init__(
        self,
        out: TextIO | None,
        *,
        streaming: bool,
        model: str,
        cwd: str,
        tools: list[str],
        mcp_servers: list[dict[str, str]],
        permission_mode: str,
    ) -> None:
        self.out = out
        self.streaming = streaming
        self.model = model
        self.cwd = cwd
        self.tools = tools
        self.mcp_servers = mcp_servers
        self.permission_mode = permission_mode
        self.session_id = ""
        self.started = time.monotonic()
        self.api_seconds = 0.0
        self._call_started: float | None = None
        self.cost = 0.0
        self.priced_calls = 0
        self.unpriced_calls = 0
        self.denials: list[dict[str, Any]] = []
        self._inputs: dict[str, Any] = {}
        self._lock = threading.Lock()

    def emit(self, event: dict[str, Any]) -> None:
        if self.out is None or (not self.streaming and event.get("type") != "result"):
            return
        line = json.dumps(event, ensure_ascii=False)
        with self._lock:
            self.out.write(line + "\n")
            self.out.flush()

    def on_event(self, event: AgentEvent) -> None:
        if isinstance(event, TurnStarted):
            self.session_id = event.session_id
            self.emit(
                {
                    "type": "system",
                    "subtype": "init",
                    "session_id": self.session_id,
                    "model": self.model,
                    "cwd": self.cwd,
                    "tools": self.tools,
                    "mcp_servers": self.mcp_servers,
                    "permissionMode": self.permission_mode,
                }
            )
        elif isinstance(event, ApiCallStarted):
            self._call_started = time.monotonic()
        elif isinstance(event, TextDelta):
            self.emit(
                {
                    "type": "stream_event",
                    "event": {
                        "type": "content_block_delta",
                        "delta": {"type": "text_delta", "text": event.text},
                    },
                    "parent_tool_use_id": None,
                    "session_id": self.session_id,
                }
            )
        elif isinstance(event, AssistantMessageDone):
            self._assistant(event)
        elif isinstance(event, ToolStarted):
            self._inputs[event.call_id] = event.arguments
        elif isinstance(event, ToolFinished):
            tool_input = self._inputs.pop(event.call_id, None)
            mode = event.data.get("mode")
            if (
                event.status == "denied"
                and event.data.get("decision") == "plan_mode"
                and isinstance(mode, str)
            ):
                self.mode_refusal(event.name, tool_input, mode)
            self.emit(
                {
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": event.call_id,
                                "content": event.result,
                                "is_error": event.status != "ok",
                            }
                        ],
                    },
                    "status": event.status,
                    "duration_ms": round(event.duration * 1000),
                    "parent_tool_use_id": None,
                    "session_id": self.session_id,
                }
            )
        elif isinstance(event, UsageUpdated):
            if event.cost is None:
                self.unpriced_calls += 1
            else:
                self.priced_calls += 1
                self.cost += event.cost
            if self._call_started is not None:
                self.api_seconds += time.monotonic() - self._call_started
                self._call_started = None
        elif isinstance(event, StatusNotice):
            self.emit(
                {
                    "type": "system",
                    "subtype": _NOTICE_SUBTYPES.get(event.kind, "notice"),
                    "text": event.text,
                    "session_id": self.session_id,
                }
            )
        elif isinstance(event, StreamStalled):
            self.emit(
                {
                    "type": "system",
                    "subtype": "stream_stalled",
                    "seconds": round(event.seconds, 1),
                    "session_id": self.session_id,
                }
            )

    def _assistant(self, event: AssistantMessageDone) -> None:
        content: list[dict[str, Any]] = []
        if event.text:
            content.append({"type": "text", "text": event.text})
        for call_id, name, arguments in event.tool_calls:
            content.append({"type": "tool_use", "id": call_id, "name": name, "input": _arguments(arguments)})
        message: dict[str, Any] = {
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": content,
            "stop_reason": event.finish_reason,
        }
        if event.usage is not None:
            message["usage"] = usage_fields(event.usage)
        self.emit(
            {
                "type": "assistant",
                "message": message,
                "parent_tool_use_id": None,
                "session_id": self.session_id,
            }
        )

    def approval_denied(self, request: ApprovalRequest, why: str) -> None:
        """Nobody approves in a headless run: the refusal is an event and is listed in the result."""
        denial = {
            "tool_name": request.tool_name,
            "command": request.command,
            "reasons": list(request.reasons),
        }
        self.denials.append(denial)
        self.emit(
            {
                "type": "system",
                "subtype": "approval",
                "decision": "deny",
                "why": why,
                **denial,
                "session_id": self.session_id,
            }
        )

    def mode_refusal(self, tool_name: str, tool_input: object, mode: str) -> None:
        """A call the permission mode refused without a question (plan mode): an approval event like a
        denial, and listed with the denials in the result."""
        denial = {
            "tool_name": tool_name,
            "command": tool_input_line(tool_input),
            "reasons": [f"{mode} mode"],
        }
        self.denials.append(denial)
        self.emit(
            {
                "type": "system",
                "subtype": "approval",
                "decision": "deny",
                "why": f"permission mode {mode}",
                **denial,
                "session_id": self.session_id,
            }
        )

    def result(
        self, turn: TurnResult | None, *, exit_code: int, error: str | None, text: str = ""
    ) -> dict[str, Any]:
        """The last object: `is_error` is true exactly when the exit code is not 0."""
        exit_reason = turn.exit_reason if turn is not None else "error"
        if exit_code == 0:
            subtype = "error_max_turns" if exit_reason == "budget_exhausted" else "success"
        else:
            subtype = "error_during_execution"
        event: dict[str, Any] = {
            "type": "result",
            "subtype": subtype,
            "is_error": exit_code != 0,
            "exit_code": exit_code,
            "exit_reason": exit_reason,
            "result": turn.final_text if turn is not None else text,
            "session_id": (turn.session_id if turn is not None else "") or self.session_id,
            "duration_ms": round((time.monotonic() - self.started) * 1000),
            "duration_api_ms": round(self.api_seconds * 1000),
            "num_turns": turn.api_calls if turn is not None else 0,
            # null when no call had a known price (a local or scripted model): unknown is not free
            "total_cost_usd": round(self.cost, 6) if self.priced_calls or not self.unpriced_calls else None,
            "unpriced_calls": self.unpriced_calls,
            "usage": usage_fields(turn.usage) if turn is not None else None,
            "permission_denials": self.denials,
        }
        if error:
            event["error"] = error
        self.emit(event)
        return event

    def usage_report(self, result: dict[str, Any], provider: str) -> dict[str, Any]:
        """`--usage-file`'s report, in Hermes' field names (its `hermes_cli/oneshot.py`), from the result."""
        usage = result["usage"] or {}
        cost = result["total_cost_usd"]
        report: dict[str, Any] = {
            "estimated_cost_usd": cost,
            "cost_status": "unknown" if cost is None else ("partial" if self.unpriced_calls else "estimated"),
            "input_tokens": usage.get("input_tokens"),
            "output_tokens": usage.get("output_tokens"),
            "cache_read_tokens": usage.get("cache_read_input_tokens"),
            "cache_write_tokens": usage.get("cache_creation_input_tokens"),
            "reasoning_tokens": usage.get("reasoning_tokens"),
            "total_tokens": (usage.get("input_tokens") or 0) + (usage.get("output_tokens") or 0),
            "api_calls": result["num_turns"],
            "model": self.model,
            "provider": provider,
            "session_id": result["session_id"],
            "completed": result["exit_reason"] == "completed",
            "failed": result["is_error"],
        }
        if result.get("error"):
            report["failure"] = result["error"]
        return report

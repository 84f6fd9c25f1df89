"""Trajectories: one JSON line per model call, the exact request and the response, for debugging and datasets.

`root/<session_id>.jsonl` (root = `$HERMES_HOME/tui/trajectories/`), append-only, file 0600 in a 0700 dir.
A line is built by `record_call(...)`, completed by `record_tool_results(...)` (the results of the tool calls
that response asked for) and written when the next call is recorded or on `flush()` (turn end). Strings that
look like credentials are redacted before anything is written. The writer never raises into the loop.

Line shape:
    {"ts", "iteration", "model",
     "request": {"messages": [...wire messages...], "tools": [names]},
     "response": {"text", "reasoning", "tool_calls": [...], "finish_reason", "usage"},
     "tool_results": [{"tool_call_id", "name", "status", "content"}]}
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import threading
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.core.secrets import REDACTED, redact

log = logging.getLogger(__name__)


def redact_secrets(text: str, extra: Iterable[str] = ()) -> str:
    """Credential-looking substrings, every secret the process knows and every string in `extra` masked
    (`agent.core.secrets`, the one redactor)."""
    return redact(text, extra)


class TrajectoryWriter:
    def __init__(self, root: Path, session_id: str, *, secrets: Iterable[str] = ()) -> None:
        self.root = Path(root)
        self.session_id = session_id
        self.secrets = tuple(s for s in secrets if s)
        self._pending: dict[str, Any] | None = None
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        safe = (
            "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in self.session_id).strip(".")
            or "session"
        )
        return self.root / f"{safe}.jsonl"

    def record_call(
        self,
        iteration: int,
        model: str,
        wire_messages: list[dict[str, Any]],
        tool_names: Iterable[str],
        response: Any,
    ) -> None:
        """Buffer one model call (writing the previous one). `response`: a dict or a ModelResponse."""
        try:
            line = {
                "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
                "iteration": iteration,
                "model": model,
                "request": {
                    "messages": self._clean(wire_messages),
                    "tools": [str(_tool_name(t)) for t in tool_names],
                },
                "response": self._clean(_response_dict(response)),
                "tool_results": [],
            }
        except Exception:
            log.warning("trajectory: could not record call %s", iteration, exc_info=True)
            return
        with self._lock:
            previous, self._pending = self._pending, line
        if previous is not None:
            self._write(previous)

    def record_tool_results(self, results: Iterable[Any]) -> None:
        """Attach tool results to the last recorded call: ExecutedCall-like, tool Messages, or dicts."""
        try:
            items = [self._clean(_result_dict(r)) for r in results]
        except Exception:
            log.warning("trajectory: could not record tool results", exc_info=True)
            return
        with self._lock:
            if self._pending is None:
                log.debug("trajectory: %d tool result(s) with no recorded call", len(items))
                return
            self._pending["tool_results"].extend(items)

    def flush(self) -> None:
        """Write the buffered line (call it at the end of every turn)."""
        with self._lock:
            line, self._pending = self._pending, None
        if line is not None:
            self._write(line)

    close = flush

    def _clean(self, value: Any) -> Any:
        return _jsonable(value, self.secrets)

    def _write(self, line: dict[str, Any]) -> None:
        try:
            text = json.dumps(line, ensure_ascii=False, separators=(",", ":"), default=str)
            data = (text + "\n").encode("utf-8", "replace")
            self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        except Exception:
            log.warning("trajectory: could not write %s", self.path, exc_info=True)


# --------------------------------------------------------------------- conversion helpers


def _jsonable(value: Any, secrets: tuple[str, ...], depth: int = 0) -> Any:
    """A JSON-ready deep copy with every string redacted."""
    if depth > 64:
        return "[too deep]"
    if isinstance(value, str):
        return redact_secrets(value, secrets)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v, secrets, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v, secrets, depth + 1) for v in value]
    if isinstance(value, Path):
        return str(value)
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return _jsonable(to_dict(), secrets, depth + 1)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _jsonable(dataclasses.asdict(value), secrets, depth + 1)
    if hasattr(value, "get_secret_value"):  # pydantic SecretStr
        return REDACTED
    return redact_secrets(str(value), secrets)


def _response_dict(response: Any) -> dict[str, Any]:
    if isinstance(response, dict):
        data = dict(response)
    else:
        data = {
            "text": getattr(response, "text", ""),
            "reasoning": getattr(response, "reasoning", ""),
            "tool_calls": list(getattr(response, "tool_calls", None) or []),
            "finish_reason": getattr(response, "finish_reason", None),
            "usage": getattr(response, "usage", None),
        }
    for key, default in (
        ("text", ""),
        ("reasoning", ""),
        ("tool_calls", []),
        ("finish_reason", None),
        ("usage", None),
    ):
        data.setdefault(key, default)
    return data


def _result_dict(item: Any) -> dict[str, Any]:
    if isinstance(item, dict):
        return {
            "tool_call_id": item.get("tool_call_id") or item.get("id"),
            "name": item.get("name") or item.get("tool_name"),
            "status": item.get("status", "ok"),
            "content": item.get("content", ""),
        }
    call = getattr(item, "call", None)
    result = getattr(item, "result", None)
    if call is not None and result is not None:  # agent.toolkit.executor.ExecutedCall
        return {
            "tool_call_id": getattr(call, "id", None),
            "name": getattr(call, "name", None),
            "status": getattr(result, "status", "ok"),
            "content": getattr(result, "content", ""),
        }
    if getattr(item, "role", None) == "tool":  # a tool Message
        meta = getattr(item, "meta", None) or {}
        return {
            "tool_call_id": item.tool_call_id,
            "name": item.tool_name,
            "status": meta.get("status", "ok"),
            "content": item.content,
        }
    if isinstance(item, tuple) and len(item) == 2:  # (ToolCall, ToolResult)
        call, result = item
        return {
            "tool_call_id": getattr(call, "id", None),
            "name": getattr(call, "name", None),
            "status": getattr(result, "status", "ok"),
            "content": getattr(result, "content", ""),
        }
    raise TypeError(f"cannot record a tool result of type {type(item).__name__}")


def _tool_name(tool: Any) -> str:
    """A tool name, or the name inside an OpenAI/Anthropic tool schema."""
    if isinstance(tool, dict):
        fn = tool.get("function")
        if isinstance(fn, dict) and "name" in fn:
            return str(fn["name"])
        return str(tool.get("name", ""))
    return str(tool)


__all__ = ["REDACTED", "TrajectoryWriter", "redact_secrets"]

"""Hermes' rows as ours: a `sessions` row becomes a `SessionInfo` whose id is `hermes:<id>`, a `messages`
row a `Message` (OpenAI-shaped tool calls, JSON-encoded multimodal content flattened to text)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from agent.core.messages import API_CONTENT, Message, Role, ToolCall, strip_surrogates
from agent.store.hermes.db import HermesSchema
from agent.store.records import HERMES_PREFIX, PREVIEW_CHARS, SessionInfo, collapse

__all__ = [
    "MESSAGE_COLUMNS",
    "active_clause",
    "message_from_row",
    "session_from_row",
    "session_select",
    "tool_args_text",
]

_CONTENT_JSON_PREFIX = "\x00json:"  # Hermes' marker for list content (text + image parts)
_OPTIONAL_SESSION = (
    "title",
    "model",
    "billing_provider",
    "billing_base_url",
    "cwd",
    "parent_session_id",
    "source",
    "ended_at",
    "end_reason",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "api_call_count",
    "tool_call_count",
    "estimated_cost_usd",
    "actual_cost_usd",
    "cost_status",
)
_OPTIONAL_MESSAGE = (
    "tool_call_id",
    "tool_calls",
    "tool_name",
    "finish_reason",
    "reasoning",
    "reasoning_content",
    "api_content",  # what Hermes sent for the message when it differs (its sidecar): replayed as sent
)
MESSAGE_COLUMNS = ("id", "role", "content", "timestamp", *_OPTIONAL_MESSAGE)


def _column(schema: HermesSchema, table: str, name: str, alias: str) -> str:
    return f"{alias}.{name} AS {name}" if schema.has(table, name) else f"NULL AS {name}"


def active_clause(schema: HermesSchema, alias: str = "m") -> str:
    """Rows Hermes shows: rewound ones (`active = 0`) are left out, as its own loaders do."""
    return f" AND coalesce({alias}.active, 1) = 1" if schema.has("messages", "active") else ""


def session_select(schema: HermesSchema, *, system_prompt: bool = False) -> str:
    """SELECT ... FROM sessions s, with NULL for the columns this schema lacks, plus the live message
    count, the last activity and the first user message."""
    active = active_clause(schema)
    columns = ", ".join(_column(schema, "sessions", name, "s") for name in _OPTIONAL_SESSION)
    prompt = _column(schema, "sessions", "system_prompt", "s") if system_prompt else "NULL AS system_prompt"
    return (
        f"SELECT s.id AS id, s.started_at AS started_at, {columns}, {prompt}, "
        f"(SELECT count(*) FROM messages m WHERE m.session_id = s.id{active}) AS live_count, "
        f"(SELECT max(m.timestamp) FROM messages m WHERE m.session_id = s.id) AS last_active, "
        f"(SELECT substr(m.content, 1, 400) FROM messages m WHERE m.session_id = s.id AND m.role = 'user'"
        f"{active} ORDER BY m.id LIMIT 1) AS first_user FROM sessions s"
    )


def listable_clause(schema: HermesSchema) -> str:
    """The sessions Hermes' own picker lists: roots and branches (not subagent runs or compression
    continuations), not archived, not from the internal sources."""
    parts = []
    if schema.has("sessions", "parent_session_id"):
        branched = (
            "(s.model_config IS NOT NULL AND json_valid(s.model_config) "
            "AND json_extract(s.model_config, '$._branched_from') IS NOT NULL)"
            if schema.has("sessions", "model_config")
            else "0"
        )
        parts.append(f"(s.parent_session_id IS NULL OR {branched})")
    if schema.has("sessions", "archived"):
        parts.append("coalesce(s.archived, 0) = 0")
    if schema.has("sessions", "source"):
        parts.append("coalesce(s.source, '') NOT IN ('subagent', 'tool')")
    return " AND ".join(parts) or "1"


def _status(row: sqlite3.Row, count: int) -> str:
    if not count:
        return "empty"
    reason = (row["end_reason"] or "").lower()
    if "error" in reason or "fail" in reason:
        return "error"
    if "interrupt" in reason:
        return "interrupted"
    return "completed"


def session_from_row(row: sqlite3.Row) -> SessionInfo:
    count = int(row["live_count"] or 0)
    calls = int(row["api_call_count"] or 0)
    actual, estimated = row["actual_cost_usd"], row["estimated_cost_usd"]
    cost = float(actual or estimated or 0.0)
    unknown = (row["cost_status"] or "").lower() in ("unknown", "") and not cost and calls > 0
    started = float(row["started_at"] or 0.0)
    parent = row["parent_session_id"]
    return SessionInfo(
        id=HERMES_PREFIX + str(row["id"]),
        title=strip_surrogates(row["title"]) if row["title"] else None,
        model=row["model"] or "",
        provider=row["billing_provider"] or "",
        base_url=row["billing_base_url"] or "",
        cwd=row["cwd"] or "",
        system_prompt=row["system_prompt"] or "",
        parent_session_id=HERMES_PREFIX + str(parent) if parent else None,
        parent_message_id=None,
        source=row["source"] or "hermes",
        created_at=started,
        updated_at=float(row["last_active"] or row["ended_at"] or started),
        status=_status(row, count),
        message_count=count,
        tool_call_count=int(row["tool_call_count"] or 0),
        api_call_count=calls,
        input_tokens=int(row["input_tokens"] or 0),
        output_tokens=int(row["output_tokens"] or 0),
        cache_read_tokens=int(row["cache_read_tokens"] or 0),
        cache_write_tokens=int(row["cache_write_tokens"] or 0),
        reasoning_tokens=int(row["reasoning_tokens"] or 0),
        cost_usd=cost,
        cost_unknown_calls=calls if unknown else 0,
        preview=collapse(content_text(row["first_user"]))[:PREVIEW_CHARS],
    )


def content_text(raw: Any) -> str:
    """A message's content as text: Hermes stores list content (text and image parts) as JSON behind a
    marker; the text parts are kept, an image becomes "[image]"."""
    if raw is None:
        return ""
    text = str(raw)
    if not text.startswith(_CONTENT_JSON_PREFIX):
        return strip_surrogates(text)
    try:
        parts = json.loads(text[len(_CONTENT_JSON_PREFIX) :])
    except ValueError:
        return strip_surrogates(text[len(_CONTENT_JSON_PREFIX) :])
    if isinstance(parts, str):
        return strip_surrogates(parts)
    out = []
    for part in parts if isinstance(parts, list) else [parts]:
        if isinstance(part, dict):
            if isinstance(part.get("text"), str):
                out.append(part["text"])
            elif "image" in str(part.get("type", "")):
                out.append("[image]")
        elif isinstance(part, str):
            out.append(part)
    return strip_surrogates("\n".join(out))


def tool_calls_from_json(raw: Any) -> list[ToolCall]:
    """OpenAI-shaped calls (`{"id", "function": {"name", "arguments"}}`, or flat) as ours."""
    if not raw:
        return []
    try:
        calls = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return []
    out = []
    for index, call in enumerate(calls if isinstance(calls, list) else []):
        if not isinstance(call, dict):
            continue
        nested = call.get("function")
        function = nested if isinstance(nested, dict) else call
        name = function.get("name")
        if not isinstance(name, str) or not name:
            continue
        arguments = function.get("arguments", "{}")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        call_id = call.get("id") or call.get("call_id") or f"call_{index}"
        out.append(ToolCall(id=str(call_id), name=name, arguments=arguments or "{}"))
    return out


def tool_args_text(calls: list[ToolCall]) -> str:
    """The searchable text of tool calls, as our index has it: each name, then its arguments' keys and
    scalar values (the raw text when it is not JSON)."""
    parts: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                parts.append(str(key))
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif value is not None:
            parts.append(str(value))

    for call in calls:
        parts.append(call.name)
        try:
            walk(json.loads(call.arguments))
        except ValueError:
            parts.append(call.arguments)
    return " ".join(parts)


_ROLES: dict[str, Role] = {"system": "system", "user": "user", "assistant": "assistant", "tool": "tool"}
"""Hermes' roles that are ours too; any other role is read as the user's."""


def message_from_row(row: sqlite3.Row) -> Message:
    role = _ROLES.get(row["role"], "user")
    reasoning = row["reasoning"] or row["reasoning_content"]
    sidecar = row["api_content"]
    return Message(
        role=role,
        content=content_text(row["content"]),
        reasoning=strip_surrogates(reasoning) if reasoning else None,
        tool_calls=tool_calls_from_json(row["tool_calls"]),
        tool_call_id=row["tool_call_id"],
        tool_name=row["tool_name"],
        finish_reason=row["finish_reason"],
        created_at=float(row["timestamp"] or 0.0),
        id=int(row["id"]),
        meta={API_CONTENT: strip_surrogates(sidecar)} if isinstance(sidecar, str) and sidecar else {},
    )


def message_select(schema: HermesSchema) -> str:
    columns = ", ".join(
        f"m.{name} AS {name}"
        if name in ("id", "role", "content", "timestamp")
        else _column(schema, "messages", name, "m")
        for name in MESSAGE_COLUMNS
    )
    return f"SELECT {columns} FROM messages m"

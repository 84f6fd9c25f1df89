"""Wire sanitizers: the stored transcript is never touched; every model call gets a repaired copy.

Providers reject (or hallucinate on) histories that a crash, an interrupt or a misbehaving model can leave
behind: lone surrogates, tool results without a call, calls without results, two user turns in a row,
malformed tool-call JSON. Each fix here is cheap and idempotent, so it runs on every call.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agent.core.messages import Message, ToolCall, strip_surrogates

STUB_RESULT = "[Result unavailable: the tool did not return a result (the turn was interrupted or crashed).]"

_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def repair_json(raw: str | None) -> object:
    """Best-effort repair of tool-call JSON: the parsed value (any JSON value: callers check for the
    object they need), None when it cannot be turned into JSON."""
    text = (raw or "").strip()
    if not text:
        return {}
    try:
        return json.loads(text, strict=False)
    except (json.JSONDecodeError, ValueError):
        pass
    text = _TRAILING_COMMA.sub(r"\1", text)
    # Close an unterminated string, then unbalanced brackets, in the order they were opened.
    stack: list[str] = []
    in_string = False
    escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack and stack[-1] == ch:
            stack.pop()
    if in_string:
        text += '"'
    text = _TRAILING_COMMA.sub(r"\1", text + "".join(reversed(stack)))
    for _ in range(50):
        try:
            return json.loads(text, strict=False)
        except json.JSONDecodeError as exc:
            # Excess closers at the end: trim one and retry.
            if exc.msg.startswith("Extra data") and text and text[-1] in "}]":
                text = text[: exc.pos].rstrip()
                continue
            return None
    return None


def canonical_arguments(raw: str | None) -> tuple[str, bool]:
    """(canonical JSON, was_valid). Sorted keys and compact separators keep prompt-cache prefixes stable."""
    parsed = repair_json(raw)
    if not isinstance(parsed, dict):
        return "{}", False
    return json.dumps(parsed, sort_keys=True, separators=(",", ":"), ensure_ascii=False), True


def _clean(text: str | None) -> str:
    return strip_surrogates(text or "")


REASONING_PAD = " "
"""What a turn without reasoning sends to a provider that requires the field (an empty string is refused)."""


def _thinking_only(row: dict[str, Any]) -> bool:
    return (
        row["role"] == "assistant"
        and not row["tool_calls"]
        and not row["content"].strip()
        and bool(row["reasoning"].strip() or row["details"])
    )


def sanitize_for_wire(messages: list[Message], *, reasoning_echo: bool = False) -> list[dict[str, Any]]:
    """Turn the stored transcript into a valid chat-completions message list (a new list of dicts).

    `reasoning_echo`: every assistant turn carries its reasoning back as `reasoning_content` (thinking
    modes that require it: `agent.transports.endpoint.Endpoint.needs_reasoning_echo`); never otherwise,
    strict providers reject the field."""
    rows = _pair_results([_row(msg) for msg in messages if msg.role in _WIRE_ROLES])
    # Thinking-only replies (reasoning, nothing visible, no call) are left out, as Hermes does
    # (`_drop_thinking_only_and_merge_users`): Anthropic refuses an assistant turn ending in thinking, and
    # the users' messages either side of one merge below.
    rows = _merge_turns([row for row in rows if not _thinking_only(row)])
    return [_wire_item(row, reasoning_echo) if row["role"] == "assistant" else row for row in rows]


_WIRE_ROLES = ("assistant", "tool", "user", "system")


def _row(msg: Message) -> dict[str, Any]:
    """A copy of one message: text cleaned, tool-call arguments canonical, duplicate call ids dropped."""
    if msg.role == "assistant":
        calls: list[ToolCall] = []
        seen_ids: set[str] = set()
        for call in msg.tool_calls:
            if not call.id or call.id in seen_ids:
                continue
            seen_ids.add(call.id)
            args, _ = canonical_arguments(strip_surrogates(call.arguments))
            calls.append(ToolCall(id=call.id, name=call.name or "invalid_tool_call", arguments=args))
        return {
            "role": "assistant",
            "content": _clean(msg.content),
            "tool_calls": calls,
            "reasoning": _clean(msg.reasoning),
            "details": msg.reasoning_details,
        }
    if msg.role == "tool":
        row: dict[str, Any] = {
            "role": "tool",
            "content": _clean(msg.content),
            "tool_call_id": msg.tool_call_id or "",
        }
    else:
        row = {"role": msg.role, "content": _clean(msg.content)}
    if msg.role in ("tool", "user") and msg.meta.get("images"):
        # A user's references (agent.images sends them), or what a tool returned (an MCP server's).
        row["images"] = list(msg.meta["images"])
    return row


def _pair_results(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each call answered right after its reply: orphan or duplicate results dropped, a stub result for a
    call that has none."""
    out: list[dict[str, Any]] = []
    i = 0
    answered: set[str] = set()
    while i < len(rows):
        row = rows[i]
        i += 1
        if row["role"] == "tool":
            continue  # a result not directly after its call (or with an unknown id) is an orphan
        out.append(row)
        if row["role"] == "assistant" and row["tool_calls"]:
            wanted = [c.id for c in row["tool_calls"]]
            results: dict[str, dict[str, Any]] = {}
            while i < len(rows) and rows[i]["role"] == "tool":
                tid = rows[i]["tool_call_id"]
                if tid in wanted and tid not in results and tid not in answered:
                    results[tid] = rows[i]
                i += 1
            for cid in wanted:
                answered.add(cid)
                out.append(results.get(cid) or {"role": "tool", "tool_call_id": cid, "content": STUB_RESULT})
    return out


def _joined(*parts: str) -> str:
    return "\n\n".join(p for p in parts if p)


def _merge_turns(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive same-role messages merged (never tool results: each answers its own call)."""
    merged: list[dict[str, Any]] = []
    for row in rows:
        prev = merged[-1] if merged else None
        if prev is not None and prev["role"] == row["role"] and row["role"] in ("user", "system"):
            prev["content"] = _joined(prev["content"], row["content"])
            if "images" in row:
                prev["images"] = [*prev.get("images", []), *row["images"]]
            continue
        if (
            prev is not None
            and row["role"] == "assistant"
            and prev["role"] == "assistant"
            and not prev["tool_calls"]
        ):
            prev["content"] = _joined(prev["content"], row["content"])
            prev["reasoning"] = _joined(prev["reasoning"], row["reasoning"])
            prev["details"] = [*prev["details"], *row["details"]]
            prev["tool_calls"] = row["tool_calls"]
            continue
        merged.append(row)
    return merged


def _wire_item(row: dict[str, Any], reasoning_echo: bool) -> dict[str, Any]:
    """An assistant turn in the wire shape."""
    # Text or "", never null: llama.cpp's server (and those built on it) rejects `content: null` beside
    # `tool_calls`, and every provider accepts "" there (Hermes sends "" too).
    item: dict[str, Any] = {"role": "assistant", "content": row["content"] or ""}
    if row["tool_calls"]:
        item["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in row["tool_calls"]
        ]
    if reasoning_echo:
        item["reasoning_content"] = row["reasoning"] or REASONING_PAD
    if row["details"]:  # each transport keeps what its endpoint takes (`agent.transports.reasoning`)
        item["reasoning_details"] = row["details"]
    return item

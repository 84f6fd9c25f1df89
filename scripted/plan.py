"""What one scripted call plays as: which call answers a request, and the answer laid out as the pieces
a stream sends (the unit of `delay` and `after_chunks`), with its ids and token counts.

Both wire encoders read a `Plan`; the scenario says what to answer, the plan how much of it each chunk
carries, so OpenAI and Anthropic streams of one call break at the same places.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from .request import first_user_text
from .scenario import ModelCall, split_chunks

__all__ = ["Piece", "Plan", "PlannedToolCall", "make_plan", "pick_call"]


@dataclass(frozen=True)
class PlannedToolCall:
    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Piece:
    """One content chunk of a streamed answer (the unit of `delay` and `after_chunks`)."""

    kind: Literal["redacted", "reasoning", "text", "tool_start", "tool_args"]
    text: str = ""
    index: int = 0
    """Tool call index for tool pieces."""


@dataclass
class Plan:
    call: ModelCall
    model: str
    response_id: str
    created: int
    text: str
    reasoning: str
    tool_calls: list[PlannedToolCall]
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    reasoning_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    include_usage: bool
    cost: float | None
    signature: str
    pieces: list[Piece] = field(default_factory=list)


def _wants_cost(body: dict[str, Any]) -> bool:
    usage = body.get("usage")
    return isinstance(usage, dict) and usage.get("include") is True


def _estimate_tokens(text_len: int) -> int:
    return max(1, text_len // 4)


def make_plan(
    call: ModelCall, *, model: str, body: dict[str, Any], serial: int, tool_ids: Iterable[str]
) -> Plan:
    ids = iter(tool_ids)
    tool_calls = [PlannedToolCall(tc.id or next(ids), tc.name, tc.arguments_text) for tc in call.tool_calls]
    text = call.full_text
    reasoning = call.reasoning or ""
    prompt_material = json.dumps(
        [body.get("system"), body.get("messages"), body.get("tools")], ensure_ascii=False, default=str
    )
    usage = call.usage
    completion_chars = len(text) + len(reasoning) + sum(len(t.arguments) + len(t.name) for t in tool_calls)
    plan = Plan(
        call=call,
        model=model,
        response_id=str(serial),
        created=int(time.time()),
        text=text,
        reasoning=reasoning,
        tool_calls=tool_calls,
        finish_reason=call.effective_finish_reason,
        prompt_tokens=(
            usage.prompt_tokens
            if usage and usage.prompt_tokens is not None
            else _estimate_tokens(len(prompt_material))
        ),
        completion_tokens=(
            usage.completion_tokens
            if usage and usage.completion_tokens is not None
            else _estimate_tokens(completion_chars)
        ),
        reasoning_tokens=(
            usage.reasoning_tokens if usage and usage.reasoning_tokens is not None else (len(reasoning) // 4)
        ),
        cache_read_tokens=usage.cache_read_tokens if usage else 0,
        cache_write_tokens=usage.cache_write_tokens if usage else 0,
        include_usage=bool((body.get("stream_options") or {}).get("include_usage")),
        cost=usage.cost if usage and _wants_cost(body) else None,
        signature=f"scripted-signature-{serial}",
    )
    size = call.chunk_size
    pieces = plan.pieces
    if call.redacted_thinking:
        pieces.append(Piece("redacted", call.redacted_thinking))
    pieces.extend(Piece("reasoning", c) for c in split_chunks(reasoning, size))
    pieces.extend(Piece("text", c) for c in call.text_chunks)
    for i, tc in enumerate(tool_calls):
        pieces.append(Piece("tool_start", index=i))
        pieces.extend(Piece("tool_args", c, i) for c in split_chunks(tc.arguments, size))
    return plan


def pick_call(calls: list[ModelCall], taken: set[int], body: dict[str, Any]) -> int | None:
    """The call that answers a request: the first unplayed one whose `match` is in the request's first
    user message (concurrent conversations, such as subagents, each get their own calls whatever order
    their requests come in), else the first unplayed call without a `match`, in order."""
    first = None
    opening = first_user_text(body)
    for index, call in enumerate(calls):
        if index in taken:
            continue
        if call.match is not None:
            if call.match in opening:
                return index
        elif first is None:
            first = index
    return first

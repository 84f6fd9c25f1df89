"""Context compression: summarize the middle of a long conversation so it fits the model again.

The stored transcript is never rewritten: the summary is appended as a marker message whose `meta` lists
which earlier messages stay verbatim on the wire: the first `compression.protect_first_n` (3), and the
recent ones, at least `protect_last_n` (20) and more while they fit `compression.target_ratio` of the
threshold's tokens, as Hermes does; a tool call is never separated from its result. `wire_view` replays
that: head + summary + kept tail + everything after the marker. Search and resume still see the whole
history; the model sees the compact one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agent.messages import Message

KEEP_HEAD = 3
KEEP_TAIL = 20
RESULT_EXCERPT = 2_000
SUMMARY_PREFIX = "[Summary of the earlier conversation, written to save context]\n\n"
SUMMARY_INSTRUCTIONS = (
    "You are compressing the middle of a long conversation between a user and a coding agent so the agent "
    "can continue without it. Write a concise summary for the agent's own future reference: the user's "
    "goals and preferences, decisions made, files read or changed (with paths), commands run and their "
    "outcomes, errors met, and what is still open. Keep specifics (names, paths, numbers); drop chit-chat. "
    "Answer with the summary only."
)


def estimate_tokens(wire: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """A cheap estimate (4 characters a token) of a request's size, tools included."""
    chars = len(json.dumps(wire, ensure_ascii=False))
    if tools:
        chars += len(json.dumps(tools))
    return chars // 4


def _latest_marker(messages: list[Message]) -> int | None:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].meta.get("synthetic") == "compression":
            return i
    return None


def wire_view(messages: list[Message]) -> list[Message]:
    """The messages the model sees: the latest compression marker replaces what it summarized."""
    marker_at = _latest_marker(messages)
    if marker_at is None:
        return list(messages)
    marker = messages[marker_at]
    head = [messages[i] for i in marker.meta.get("head", []) if i < marker_at]
    tail = [messages[i] for i in marker.meta.get("tail", []) if i < marker_at]
    return [*head, marker, *tail, *messages[marker_at + 1 :]]


def _view_indexes(messages: list[Message]) -> list[int]:
    """Indexes into `messages` of what `wire_view` shows (the marker included)."""
    marker_at = _latest_marker(messages)
    if marker_at is None:
        return list(range(len(messages)))
    meta = messages[marker_at].meta
    return [*meta.get("head", []), marker_at, *meta.get("tail", []), *range(marker_at + 1, len(messages))]


@dataclass
class CompressionPlan:
    head: list[int]
    middle: list[int]
    tail: list[int]

    @property
    def worthwhile(self) -> bool:
        return len(self.middle) >= 2


def message_tokens(message: Message) -> int:
    """The same 4-characters-a-token estimate for one message (its text and tool calls)."""
    chars = len(message.content) + sum(len(c.name) + len(c.arguments) for c in message.tool_calls)
    return chars // 4 + 4


def plan(
    messages: list[Message],
    keep_head: int = KEEP_HEAD,
    keep_tail: int = KEEP_TAIL,
    tail_tokens: int = 0,
) -> CompressionPlan:
    """Choose head/middle/tail over the current wire view, never splitting a tool call from its result:
    the first `keep_head` messages, and a tail of at least `keep_tail` that grows back while the tail's
    estimate stays within `tail_tokens` (leaving at least 2 messages to summarize)."""
    view = _view_indexes(messages)
    if len(view) <= keep_head + keep_tail:
        return CompressionPlan(view, [], [])
    head_end = keep_head
    # Extend the head over results of a call it contains.
    while head_end < len(view) and messages[view[head_end]].role == "tool":
        head_end += 1
    tail_start = max(head_end, len(view) - keep_tail)
    kept = sum(message_tokens(messages[i]) for i in view[tail_start:])
    while tail_start - 1 > head_end + 1:
        more = message_tokens(messages[view[tail_start - 1]])
        if kept + more > tail_tokens:
            break
        kept += more
        tail_start -= 1
    # The tail must not start with a tool result: pull its assistant call (and siblings) in.
    while tail_start > head_end and messages[view[tail_start]].role == "tool":
        tail_start -= 1
    return CompressionPlan(view[:head_end], view[head_end:tail_start], view[tail_start:])


def render_for_summary(messages: list[Message], indexes: list[int]) -> str:
    lines: list[str] = []
    for i in indexes:
        m = messages[i]
        if m.meta.get("synthetic") == "compression":
            lines.append(f"(earlier summary)\n{m.content}")
        elif m.role == "user":
            lines.append(f"USER: {m.content}")
        elif m.role == "assistant":
            if m.content:
                lines.append(f"ASSISTANT: {m.content}")
            for call in m.tool_calls:
                lines.append(f"ASSISTANT called {call.name}({call.arguments[:500]})")
        elif m.role == "tool":
            body = m.content if len(m.content) <= RESULT_EXCERPT else m.content[:RESULT_EXCERPT] + " [...]"
            lines.append(f"TOOL {m.tool_name or ''} result: {body}")
    return "\n\n".join(lines)


def make_marker(summary: str, compression_plan: CompressionPlan, saved_tokens: int) -> Message:
    return Message(
        role="user",
        content=SUMMARY_PREFIX + summary.strip(),
        meta={
            "synthetic": "compression",
            "head": compression_plan.head,
            "tail": compression_plan.tail,
            "summarized": len(compression_plan.middle),
            "saved_tokens": saved_tokens,
        },
    )

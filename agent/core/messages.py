"""The transcript model shared by the loop, the store and the transports.

One neutral shape (OpenAI chat-completions flavoured) is stored; each transport converts it on the wire.
Plain dataclasses: they are created and mutated by the loop thread only, and crossing a boundary (store,
wire) goes through explicit conversion functions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]
API_CONTENT = "api_content"  # the meta key of a message's wire text when it differs from `content`
REASONING_DETAILS = "reasoning_details"  # the meta key of a reply's provider reasoning items (Hermes' name)


@dataclass
class ToolCall:
    """One function call requested by the model. `arguments` is the raw JSON text the model produced."""

    id: str
    name: str
    arguments: str = "{}"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCall:
        return cls(
            id=str(data.get("id", "")),
            name=str(data.get("name", "")),
            arguments=str(data.get("arguments") or "{}"),
        )


@dataclass
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    # The cost the provider reported for the call (OpenRouter's `usage.cost`), in USD; None when it did not.
    reported_cost: float | None = None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: Usage | None) -> None:
        if other is None:
            return
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_tokens += other.cache_write_tokens
        self.reasoning_tokens += other.reasoning_tokens
        if other.reported_cost is not None:
            self.reported_cost = (self.reported_cost or 0.0) + other.reported_cost

    def copy(self) -> Usage:
        return Usage(
            self.prompt_tokens,
            self.completion_tokens,
            self.cache_read_tokens,
            self.cache_write_tokens,
            self.reasoning_tokens,
            self.reported_cost,
        )


@dataclass
class Message:
    """A transcript row. `id` is the store's row id once persisted (None before)."""

    role: Role
    content: str = ""
    reasoning: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    tool_name: str | None = None
    finish_reason: str | None = None
    usage: Usage | None = None
    created_at: float = field(default_factory=time.time)
    id: int | None = None
    # True while an assistant reply is still streaming (a checkpointed partial row in the store).
    partial: bool = False
    # Free-form metadata that must survive a resume (tool status, duration, compression marker, ...).
    meta: dict[str, Any] = field(default_factory=dict)
    # When a rewind took it out of the model's context (None while live): the store keeps it, search finds
    # it, the transcript shows it dimmed; the model is never sent it again.
    rewound_at: float | None = None

    @property
    def is_tool_result(self) -> bool:
        return self.role == "tool"

    @property
    def api_content(self) -> str:
        """What the model is sent for this message, every turn: a user message's wire-only additions
        (a `/skill-name` skill's text, plugin context, reminders) ride in `meta["api_content"]`, Hermes'
        sidecar, so later requests repeat them byte for byte while `content` stays what was typed."""
        sidecar = self.meta.get(API_CONTENT)
        return sidecar if isinstance(sidecar, str) else self.content

    @property
    def reasoning_details(self) -> list[dict[str, Any]]:
        """The provider's reasoning items of this reply, kept verbatim to be sent back (Anthropic's thinking
        blocks with their signatures and redacted blocks, OpenRouter's `reasoning_details`); stored in
        `meta` so a resumed session replays them too."""
        details = self.meta.get(REASONING_DETAILS)
        return [d for d in details if isinstance(d, dict)] if isinstance(details, list) else []


def strip_surrogates(text: str) -> str:
    """Replace lone UTF-16 surrogates (some providers emit them) so json.dumps/encode never crash."""
    if not text:
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text)

"""Context compression: summarize the middle of a long conversation so it fits the model again.

The stored transcript is never rewritten: the summary is appended as a marker message whose `meta` lists
which earlier messages stay verbatim on the wire: the first `compression.protect_first_n` (3), and the
recent ones, at least `protect_last_n` (20) and more while they fit `compression.target_ratio` of the
threshold's tokens, as Hermes does; a tool call is never separated from its result. `wire_view` replays
that: head + summary + kept tail + everything after the marker. Search and resume still see the whole
history; the model sees the compact one.

The pure parts (what to keep, the marker, the wire view) come first; `Compressor` is the part that asks
the model for the summary and tells the user what it did, so the turn loop only says *when*: before a
request over the threshold (`maybe`), after a provider's context-too-large error (`run`), and on
`/compress`. It reads the agent's current settings, transport and model through `CompressionHost`, since
`/model` and a fallback change them between calls.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from agent.config.settings import Settings
from agent.core.errors import InterruptedByUser, classify
from agent.core.events import StatusNotice
from agent.core.messages import Message
from agent.core.ui import AgentUI
from agent.transports.base import ModelRequest, PartialInterrupt, SilentSink, Transport

if TYPE_CHECKING:
    from agent.store import SessionStoreProtocol

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


MAX_COMPRESSIONS_PER_TURN = 3
MIN_FRESH_TO_COMPRESS = 4


class CompressionHost(Protocol):
    """What compression reads of the agent it works for (the current values, looked up each time)."""

    settings: Settings
    ui: AgentUI
    store: SessionStoreProtocol | None
    messages: list[Message]

    @property
    def transport(self) -> Transport: ...

    @property
    def model(self) -> str: ...


class Compressor:
    def __init__(
        self,
        host: CompressionHost,
        *,
        wire: Callable[[], list[dict[str, Any]]],
        append: Callable[[Message], None],
        interrupt: threading.Event,
    ) -> None:
        """`wire`: the request's messages as the model would see them now; `append`: add a message to the
        session (and the store); `interrupt`: the agent's, so Esc stops a summary being written."""
        self.host = host
        self._wire = wire
        self._append = append
        self._interrupt = interrupt
        self.count = 0  # compressions this turn

    def new_turn(self) -> None:
        self.count = 0

    @property
    def may_run(self) -> bool:
        """A turn compresses at most MAX_COMPRESSIONS_PER_TURN times (each one costs a model call)."""
        return self.count < MAX_COMPRESSIONS_PER_TURN

    def threshold(self) -> int:
        settings = self.host.settings
        return int(settings.effective_context_window * settings.compression_threshold)

    def plan(self) -> CompressionPlan:
        """What to keep and what to summarize, by the session's compression settings."""
        settings = self.host.settings
        ratio = min(max(settings.compression_target_ratio, 0.1), 0.8)  # Hermes' clamp
        return plan(
            self.host.messages,
            keep_head=settings.compression_protect_first_n,
            keep_tail=settings.compression_protect_last_n,
            tail_tokens=int(self.threshold() * ratio),
        )

    def maybe(self, tools: list[dict[str, Any]]) -> None:
        """Compress before a request whose estimate is over the threshold."""
        if not self.host.settings.compression_enabled or not self.may_run:
            return
        if estimate_tokens(self._wire(), tools) <= self.threshold():
            return
        messages = self.host.messages
        fresh = [i for i in self.plan().middle if messages[i].meta.get("synthetic") != "compression"]
        if len(fresh) < MIN_FRESH_TO_COMPRESS:
            return  # the recent tail alone is this big: summarizing a few messages again would not help
        self.run("the conversation is over the compression threshold")

    def run(self, reason: str) -> bool:
        """Summarize the middle of the conversation into a marker message. False (and a notice saying
        why) when there was nothing to compress or the summary failed; InterruptedByUser on Esc."""
        host = self.host
        chosen = self.plan()
        if not chosen.worthwhile:
            self._notice("info", "Nothing to compress yet: the conversation is short.")
            return False
        self.count += 1
        before = estimate_tokens(self._wire())
        self._notice("info", f"Compressing the conversation ({reason})…")
        request = ModelRequest(
            messages=[
                {"role": "system", "content": SUMMARY_INSTRUCTIONS},
                {"role": "user", "content": render_for_summary(host.messages, chosen.middle)},
            ],
            tools=[],
        )
        try:
            summary = host.transport.stream(request, SilentSink(), self._interrupt).text.strip()
        except PartialInterrupt:
            raise InterruptedByUser() from None
        except Exception as exc:
            c = classify(exc, provider=host.settings.provider, model=host.model)
            self._notice("warn", f"Compression failed: {c.user_line()}")
            return False
        if not summary:
            self._notice("warn", "Compression failed: the model returned an empty summary.")
            return False
        marker = make_marker(summary, chosen, 0)
        self._append(marker)
        after = estimate_tokens(self._wire())
        marker.meta["saved_tokens"] = max(0, before - after)
        if host.store is not None and marker.id is not None:
            host.store.update_message(marker)
        self._notice(
            "info",
            f"Compressed {len(chosen.middle)} messages: ~{before:,} → ~{after:,} tokens "
            f"(saved ~{max(0, before - after):,}). The full history stays searchable.",
        )
        return True

    def _notice(self, kind: str, text: str) -> None:
        self.host.ui.on_event(StatusNotice(kind=kind, text=text))

"""Anthropic prompt-caching markers on chat-completions messages (Claude through OpenRouter and the like).

Hermes' `system_and_3` layout: four breakpoints, the system prompt and the last three messages that can
carry one. In the chat-completions envelope a marker is honoured only on a content part, so a marked
message's text becomes one `{"type": "text", ...}` part carrying it, and a message with no text (an
assistant turn that only calls tools) is skipped rather than wasting a breakpoint. The native Anthropic
transport marks its own blocks (`agent.transports.anthropic.apply_cache_control`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["CACHE_MARKER", "mark_envelope"]

CACHE_MARKER = {"type": "ephemeral"}
BREAKPOINTS_AFTER_SYSTEM = 3


def _marked(message: dict[str, Any]) -> dict[str, Any] | None:
    content = message.get("content")
    if isinstance(content, str) and content:
        return {**message, "content": [{"type": "text", "text": content, "cache_control": CACHE_MARKER}]}
    if isinstance(content, list) and content and isinstance(content[-1], dict):
        return {**message, "content": [*content[:-1], {**content[-1], "cache_control": CACHE_MARKER}]}
    return None


def mark_envelope(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A copy of `messages` with the markers set; the marked messages are new dicts, the rest shared."""
    out = list(messages)
    for index, message in enumerate(out):
        if message.get("role") == "system":
            marked = _marked(message)
            if marked is not None:
                out[index] = marked
            break
    left = BREAKPOINTS_AFTER_SYSTEM
    for index in range(len(out) - 1, -1, -1):
        if left == 0:
            break
        if out[index].get("role") == "system":
            continue
        marked = _marked(out[index])
        if marked is not None:
            out[index] = marked
            left -= 1
    return out

"""What fills a request, part by part: the tool schemas, the system prompt (with the project's context
files), the conversation. A small window is filled by the parts sent with every request before the
conversation has any room: a local model of 2,048 or 8,192 tokens with every built-in tool on overflows on
"Say hello" or on a turn's third call, and compressing the conversation cannot help. The user is then told
which parts take the window, with their sizes and what to change (`-t`/`toolsets`, `model.context_length`),
and, where the window is known before the first request, how much of it the tools take.

Sizes are the compressor's estimate (`estimate_tokens`, 4 characters a token): a small model's tokenizer
counts more, so they are said as "about".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent.core.humanize import format_tokens
from agent.session.compression import estimate_tokens

__all__ = ["RequestParts", "fixed_parts_overflow", "window_note"]

FIXED_SHARE_THAT_OVERFLOWS = 0.5
"""An overflow is the fixed parts' fault when they take at least this share of the window."""

FIXED_SHARE_WORTH_A_NOTE = 0.25
"""A known local window whose fixed parts take at least this share gets a note at the session's start."""

FIX = (
    "Offer fewer tools (-t file,terminal, or `toolsets:` in config.yaml; /tools in a session), or give the "
    "model a larger window (start the server with a larger context, e.g. llama.cpp's -c / n_ctx, and set "
    "model.context_length)."
)


@dataclass(frozen=True)
class RequestParts:
    """A request's estimated size in tokens, by part."""

    tools: int
    tool_count: int
    system: int
    context_files: int
    """Of `system`: the project's instruction files (AGENTS.md, CLAUDE.md, ...)."""
    conversation: int

    @classmethod
    def of(
        cls, messages: list[dict[str, Any]], tools: list[dict[str, Any]], context_chars: int = 0
    ) -> RequestParts:
        """`messages` as sent (a system message first, if any), `tools` as offered, and how many characters
        of the system prompt the context files are."""
        system = [m for m in messages[:1] if m.get("role") == "system"]
        return cls(
            tools=estimate_tokens([], tools) if tools else 0,
            tool_count=len(tools),
            system=estimate_tokens(system) if system else 0,
            context_files=context_chars // 4,
            conversation=estimate_tokens(messages[len(system) :]),
        )

    @property
    def fixed(self) -> int:
        """What every request carries whatever was said: the tool schemas and the system prompt."""
        return self.tools + self.system

    def fixed_parts(self, window: int) -> str:
        """ "the 29 tools' schemas ~5.1k (62%), the system prompt ~2.3k (28%, AGENTS.md ~1.2k)"."""
        pieces = []
        if self.tools:
            tools = "the tool's schema" if self.tool_count == 1 else f"the {self.tool_count} tools' schemas"
            pieces.append(f"{tools} about {format_tokens(self.tools)} ({self._share(self.tools, window)})")
        if self.system:
            files = f", context files about {format_tokens(self.context_files)}" if self.context_files else ""
            share = self._share(self.system, window)
            pieces.append(f"the system prompt about {format_tokens(self.system)} ({share}{files})")
        return " and ".join(pieces)

    @staticmethod
    def _share(tokens: int, window: int) -> str:
        return f"{100 * tokens / window:.0f}%" if window > 0 else "?"


def fixed_parts_overflow(parts: RequestParts, window: int) -> str | None:
    """The line an overflow ends with when the fixed parts are what does not fit (None: the conversation
    is the larger part, and the usual advice, compress or start anew, holds): which parts, how big, and
    what to change."""
    if window <= 0 or parts.fixed < window * FIXED_SHARE_THAT_OVERFLOWS or parts.conversation > parts.fixed:
        return None
    return (
        f"The request does not fit this model's {window:,}-token window: {parts.fixed_parts(window)} go "
        f"with every request, the conversation is about {format_tokens(parts.conversation)}. {FIX}"
    )


def window_note(parts: RequestParts, window: int) -> str | None:
    """The note a session on a small known window starts with: how much of it the fixed parts take (None
    when they leave most of it to the conversation)."""
    if window <= 0 or parts.fixed < window * FIXED_SHARE_WORTH_A_NOTE:
        return None
    left = window - parts.fixed
    room = (
        f"leaving about {format_tokens(left)} for the conversation"
        if left > 0  # a server whose chat template leaves the tools out (llama-cpp-python's) counts less
        else "by this estimate more than the window itself, unless the server's chat template leaves the "
        "tools out"
    )
    fixed = parts.fixed_parts(window)
    return f"This model's window is {window:,} tokens: {fixed} go with every request, {room}. {FIX}"

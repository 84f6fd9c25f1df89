"""A transcript entry as plain data: what `Transcript.load_history` takes, what `records()` gives, and what
a resumed session is rebuilt into (hermes_tui/history.py).

Kept apart from the entries so that code building records (history, learning actions) needs no Textual
and no entry: a record is plain data, an entry is made from it when the transcript shows it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["EntryKind", "ToolSnapshot", "TranscriptRecord"]

EntryKind = Literal["user", "assistant", "reasoning", "tool", "notice"]


@dataclass(frozen=True, slots=True)
class ToolSnapshot:
    """Everything needed to redraw a finished panel: what the transcript keeps for a stored one."""

    call_id: str
    name: str
    index: int
    status: str
    summary: str = ""
    arguments: Mapping[str, Any] = field(default_factory=dict)
    duration: float | None = None
    result: str = ""
    data: Mapping[str, Any] = field(default_factory=dict)
    output: str = ""
    dropped_chars: int = 0
    dropped_lines: int = 0
    expanded: bool | None = None


@dataclass(frozen=True, slots=True)
class TranscriptRecord:
    """A transcript entry as plain data: what is kept for an unmounted entry, and what `load_history` takes.

    `text` is the user/assistant/reasoning/notice text; a tool entry carries a `ToolSnapshot` instead.
    """

    kind: EntryKind
    text: str = ""
    notice_kind: str = "info"
    hint: str | None = None
    tool: ToolSnapshot | None = None
    expanded: bool = False
    images: tuple[str, ...] = ()  # a user message's attached images, as badge labels
    rewound: bool = False  # out of the model's context since a rewind: drawn dimmed

    @classmethod
    def user(cls, text: str, images: Sequence[str] = ()) -> TranscriptRecord:
        return cls("user", text, images=tuple(images))

    @classmethod
    def assistant(cls, text: str) -> TranscriptRecord:
        return cls("assistant", text)

    @classmethod
    def reasoning(cls, text: str) -> TranscriptRecord:
        return cls("reasoning", text)

    @classmethod
    def notice(cls, kind: str, text: str, hint: str | None = None) -> TranscriptRecord:
        return cls("notice", text, notice_kind=kind, hint=hint)

    @classmethod
    def tool_call(
        cls,
        name: str,
        *,
        summary: str = "",
        status: str = "ok",
        duration: float | None = None,
        result: str = "",
        data: dict[str, Any] | None = None,
        call_id: str = "",
        index: int = 0,
        output: str = "",
    ) -> TranscriptRecord:
        """A finished tool call, e.g. rebuilt from a stored session."""
        snapshot = ToolSnapshot(
            call_id=call_id,
            name=name,
            index=index,
            status=status,
            summary=summary,
            duration=duration,
            result=result,
            data=dict(data or {}),
            output=output,
        )
        return cls("tool", tool=snapshot)

"""The entries the transcript makes from what the app tells it and from a stored session's records, with
the display settings the view holds (diffs open, reasoning shown, the tool icon table)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from widgets.transcript.entries.base import Entry
from widgets.transcript.entries.notice import NoticeEntry
from widgets.transcript.entries.reasoning import ReasoningEntry
from widgets.transcript.entries.reply import ReplyEntry
from widgets.transcript.entries.tool_call import ToolCallEntry
from widgets.transcript.entries.user_message import UserMessageEntry
from widgets.transcript.record import TranscriptRecord

__all__ = ["EntryFactory", "EntryOptions"]


class EntryOptions(Protocol):
    """The display settings new entries follow (the transcript's attributes)."""

    expand_diffs: bool
    show_reasoning: bool
    tool_icons: Mapping[str, str]


class EntryFactory:
    def __init__(self, options: EntryOptions) -> None:
        self._options = options

    def tool_call(self, call_id: str, name: str, index: int) -> ToolCallEntry:
        options = self._options
        return ToolCallEntry(
            call_id, name, index, expand_diffs=options.expand_diffs, icons=options.tool_icons
        )

    def from_records(self, records: Iterable[TranscriptRecord]) -> list[Entry]:
        """A stored session's entries (its reasoning left out while reasoning is hidden)."""
        shown = self._options.show_reasoning
        entries: list[Entry] = []
        for record in records:
            if shown or record.kind != "reasoning":
                entry = self._from_record(record)
                entry.rewound = record.rewound
                entries.append(entry)
        return entries

    def _from_record(self, record: TranscriptRecord) -> Entry:
        if record.kind == "user":
            return UserMessageEntry(record.text, images=record.images, expanded=record.expanded)
        if record.kind == "assistant":
            return ReplyEntry(record.text, finished=True)
        if record.kind == "reasoning":
            return ReasoningEntry(record.text, finished=True, expanded=record.expanded)
        if record.kind == "tool" and record.tool is not None:
            options = self._options
            return ToolCallEntry.from_snapshot(
                record.tool, expand_diffs=options.expand_diffs, icons=options.tool_icons
            )
        # Only a multi-line notice keeps a newline in its text.
        return NoticeEntry(record.notice_kind, record.text, hint=record.hint, multiline="\n" in record.text)

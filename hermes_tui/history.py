"""Turn a stored transcript into display records, for a resumed session (tool panels collapsed; what a
rewind took out of the model's context marked, to be drawn dimmed)."""

from __future__ import annotations

from dataclasses import replace

from agent.api import Message, ToolCatalog, badge_line, reply_marker, split_attached, summarize_call
from agent.api import image_refs_of as refs_of
from widgets.transcript.view import TranscriptRecord


def records_from_messages(
    messages: list[Message], tools: ToolCatalog | None = None
) -> list[TranscriptRecord]:
    records: list[TranscriptRecord] = []
    calls: dict[str, tuple[str, str, int]] = {}  # call id -> (name, summary, index)
    for message in messages:
        start = len(records)
        _add_records(records, calls, message, tools)
        if message.rewound_at is not None:
            records[start:] = [replace(record, rewound=True) for record in records[start:]]
    return records


def _add_records(
    records: list[TranscriptRecord],
    calls: dict[str, tuple[str, str, int]],
    message: Message,
    tools: ToolCatalog | None,
) -> None:
    """The records of one message (a tool result finds its call's name and summary in `calls`)."""
    synthetic = message.meta.get("synthetic") if message.meta else None
    if message.role == "user":
        if synthetic == "continuation":
            records.append(
                TranscriptRecord.notice("info", "Reply cut at the output limit: the model continued.")
            )
        elif synthetic == "budget":
            records.append(
                TranscriptRecord.notice("warn", "Iteration budget exhausted: the model summarized.")
            )
        elif synthetic == "processes":
            records.append(TranscriptRecord.notice("warn", message.content.strip("[]")))
        else:
            typed, attached = split_attached(message.content)
            records.append(TranscriptRecord.user(typed, [ref.label() for ref in refs_of(message.meta)]))
            if attached:
                records.append(TranscriptRecord.notice("info", badge_line(attached)))
    elif message.role == "assistant":
        if message.reasoning:
            records.append(TranscriptRecord.reasoning(message.reasoning))
        if message.content:
            records.append(TranscriptRecord.assistant(message.content))
        for index, call in enumerate(message.tool_calls):
            calls[call.id] = (call.name, summarize_call(call.name, call.arguments, tools), index)
        if message.finish_reason == "interrupted":
            records.append(TranscriptRecord.notice("warn", "Interrupted."))
        elif marker := reply_marker(message.meta.get("incomplete") if message.meta else None):
            records.append(TranscriptRecord.notice("warn", marker))
    elif message.role == "tool":
        name, summary, index = calls.get(message.tool_call_id or "", (message.tool_name or "tool", "", 0))
        meta = message.meta or {}
        data = {k: v for k, v in meta.items() if k in ("diff", "exit_code", "todos", "path")}
        records.append(
            TranscriptRecord.tool_call(
                name,
                summary=summary,
                status=str(meta.get("status", "ok")),
                duration=meta.get("duration"),
                result=message.content,
                data=data,
                call_id=message.tool_call_id or "",
                index=index,
            )
        )

"""The engine's events as ACP session updates, and a stored conversation replayed as the same updates.

One table says what each tool is for the editor (`KINDS`: execute, read, edit, search, fetch, think), one
function titles a call, one finds the files it touches (absolute paths, for the editor's "follow"). An edit
(`write_file`, `patch`) carries a diff content block: the patch's old and new strings, or the whole file
before and after a write. Everything the model or a tool wrote is sent as text with terminal escapes and
controls removed (`sanitize_display`; streamed text through a `StreamSanitizer`, so an escape split across
two deltas is still removed). A long tool result is cut with a line saying how much is not shown.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import acp
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    Cost,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolKind,
    UsageUpdate,
    UserMessageChunk,
)

from agent.api import (
    AgentEvent,
    ChildFinished,
    ChildStarted,
    Message,
    ReasoningDelta,
    StatusNotice,
    StreamSanitizer,
    TextDelta,
    TodoUpdated,
    ToolFinished,
    ToolOutput,
    ToolStarted,
    TurnFinished,
    UsageUpdated,
    read_bounded_text,
    sanitize_display,
    split_attached,
    summarize_call,
)

Update = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCallStart
    | ToolCallProgress
    | AgentPlanUpdate
    | UsageUpdate
)

KINDS: dict[str, ToolKind] = {
    "terminal": "execute",
    "process": "execute",
    "execute_code": "execute",
    "read_file": "read",
    "skill_view": "read",
    "write_file": "edit",
    "patch": "edit",
    "skill_manage": "edit",
    "search_files": "search",
    "session_search": "search",
    "skills_list": "search",
    "web_search": "fetch",
    "web_extract": "fetch",
    "todo": "think",
    "clarify": "think",
}
EDITS = frozenset({"write_file", "patch"})
RESULT_CHARS = 60_000
"""A tool result's text sent to the editor; the rest is named in one line (the model saw it all)."""
OUTPUT_INTERVAL = 0.25
"""A running tool's output is sent at most this often (seconds); its final result always."""
LIVE_CHARS = 8_000
"""While a tool runs, the tail of its output it sends (each update replaces the last); the result is whole."""
BEFORE_EDIT_BYTES = 2 * 1024 * 1024
"""A file bigger than this is not read before a write: its diff shows the new text only."""


def tool_kind(name: str) -> ToolKind:
    if name.startswith("browser_"):
        return "fetch"
    return KINDS.get(name, "other")


def tool_title(name: str, arguments: Mapping[str, Any] | str) -> str:
    summary = summarize_call(name, arguments)
    return sanitize_display(f"{name}: {summary}" if summary and summary != name else name)


def _absolute(cwd: Path, path: str) -> str:
    target = Path(path).expanduser()
    return str(target if target.is_absolute() else cwd / target)


def tool_locations(arguments: Mapping[str, Any], cwd: Path) -> list[ToolCallLocation]:
    path = arguments.get("path")
    if not isinstance(path, str) or not path.strip():
        return []
    offset = arguments.get("offset")
    line = offset if isinstance(offset, int) and offset > 0 else None
    return [ToolCallLocation(path=_absolute(cwd, path), line=line)]


def file_before_edit(name: str, arguments: Mapping[str, Any], cwd: Path) -> str | None:
    """The file a `write_file` is about to replace (None: new, unreadable or too big). Called on the
    engine's thread as the tool starts, before it writes."""
    path = arguments.get("path")
    if name != "write_file" or not isinstance(path, str):
        return None
    try:
        return read_bounded_text(_absolute(cwd, path), limit=BEFORE_EDIT_BYTES)
    except (OSError, ValueError):
        return None


def edit_diff(name: str, arguments: Mapping[str, Any], cwd: Path, before: str | None) -> list[Any]:
    """An edit's diff content block (none for any other call): what the tool call and its approval show."""
    path = arguments.get("path")
    if name not in EDITS or not isinstance(path, str):
        return []
    if name == "patch":
        old, new = arguments.get("old_string"), arguments.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str):
            return []
        return [acp.tool_diff_content(_absolute(cwd, path), new, old)]
    content = arguments.get("content")
    if not isinstance(content, str):
        return []
    return [acp.tool_diff_content(_absolute(cwd, path), content, before)]


def _text(text: str) -> Any:
    return acp.tool_content(acp.text_block(text))


def _capped(text: str) -> str:
    text = sanitize_display(text)
    if len(text) <= RESULT_CHARS:
        return text
    return f"{text[:RESULT_CHARS]}\n… ({len(text) - RESULT_CHARS:,} more characters not shown here)"


def _status(status: str) -> str:
    return "completed" if status == "ok" else "failed"


def plan_update(items: Iterable[Mapping[str, str]]) -> AgentPlanUpdate:
    """The todo list as the editor's plan: ACP has no "cancelled": such an item is completed and says so."""
    entries = []
    for item in items:
        status = item.get("status", "pending")
        content = sanitize_display(item.get("content", ""))
        if status == "cancelled":
            status, content = "completed", f"(cancelled) {content}"
        if status not in ("pending", "in_progress", "completed"):
            status = "pending"
        entries.append(acp.plan_entry(content, status=status))  # type: ignore[arg-type]
    return acp.update_plan(entries)


@dataclass
class _Call:
    name: str
    arguments: dict[str, Any]
    before: str | None
    output: str = ""  # the tail of what it printed so far
    seen: int = 0  # characters printed so far
    sent_at: float = 0.0
    children: dict[int, str] = field(default_factory=dict)  # a delegate_task's subagents, one line each


class TurnUpdates:
    """One session's events -> updates, in order. Not thread-safe: the session's pump alone calls it."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self._text = StreamSanitizer()
        self._thought = StreamSanitizer()
        self._calls: dict[str, _Call] = {}

    def updates(self, event: AgentEvent, before: str | None = None) -> list[Update]:
        """`before`: the file a `write_file` replaces, read as the tool started (`file_before_edit`)."""
        if isinstance(event, TextDelta):
            text = self._text.feed(event.text)
            return [acp.update_agent_message_text(text)] if text else []
        if isinstance(event, ReasoningDelta):
            text = self._thought.feed(event.text)
            return [acp.update_agent_thought_text(text)] if text else []
        out = self._flush()
        if isinstance(event, ToolStarted):
            out.append(self._started(event, before))
        elif isinstance(event, ToolOutput):
            out += self._output(event)
        elif isinstance(event, ToolFinished):
            out.append(self._finished(event))
        elif isinstance(event, ChildStarted | ChildFinished):
            out += self._child(event)
        elif isinstance(event, TodoUpdated):
            out.append(plan_update(event.items))
        elif isinstance(event, StatusNotice) and event.kind in ("warn", "error", "retry"):
            out.append(acp.update_agent_thought_text(f"\n[{event.kind}] {sanitize_display(event.text)}\n"))
        elif isinstance(event, UsageUpdated):
            out.append(self._usage(event))
        elif isinstance(event, TurnFinished):
            out += self._turn_finished(event)
        return out

    def finish(self) -> list[Update]:
        """What the sanitizers still hold (the turn ended)."""
        return self._flush()

    def _flush(self) -> list[Update]:
        out: list[Update] = []
        if held := self._text.flush():
            out.append(acp.update_agent_message_text(held))
        if held := self._thought.flush():
            out.append(acp.update_agent_thought_text(held))
        return out

    def _started(self, event: ToolStarted, before: str | None) -> ToolCallStart:
        arguments = dict(event.arguments)
        self._calls[event.call_id] = _Call(event.name, arguments, before)
        return acp.start_tool_call(
            event.call_id,
            tool_title(event.name, arguments),
            kind=tool_kind(event.name),
            status="in_progress",
            content=edit_diff(event.name, arguments, self.cwd, before) or None,
            locations=tool_locations(arguments, self.cwd) or None,
            raw_input=arguments,
        )

    def _output(self, event: ToolOutput) -> list[Update]:
        call = self._calls.get(event.call_id)
        if call is None:
            return []
        call.output = (call.output + event.chunk)[-LIVE_CHARS:]
        call.seen += len(event.chunk)
        now = time.monotonic()
        if now - call.sent_at < OUTPUT_INTERVAL:
            return []
        call.sent_at = now
        shown = sanitize_display(call.output)
        if call.seen > len(call.output):
            shown = f"… (the last {LIVE_CHARS:,} characters of the output so far)\n{shown}"
        return [acp.update_tool_call(event.call_id, content=[_text(shown)])]

    def _child(self, event: ChildStarted | ChildFinished) -> list[Update]:
        """A subagent of a `delegate_task` call started or ended: one line each in that call's content."""
        call = self._calls.get(event.call_id)
        if call is None:
            return []
        label = f"{event.label or 'subagent'} {event.child + 1}" if isinstance(event, ChildStarted) else ""
        if isinstance(event, ChildStarted):
            call.children[event.child] = f"{label}: {event.goal} (running)"
        else:
            start = call.children.get(event.child, f"subagent {event.child + 1}")
            head = start.removesuffix(" (running)")
            tail = f" — {event.summary}" if event.summary else ""
            call.children[event.child] = f"{head} ({event.status}){tail}"
        lines = "\n".join(sanitize_display(line) for _, line in sorted(call.children.items()))
        return [acp.update_tool_call(event.call_id, content=[_text(lines)])]

    def _finished(self, event: ToolFinished) -> ToolCallProgress:
        call = self._calls.pop(event.call_id, None)
        arguments = call.arguments if call is not None else {}
        content = edit_diff(event.name, arguments, self.cwd, call.before if call else None)
        if event.status != "ok":
            content = []  # nothing was changed: the diff would say otherwise
        content.append(_text(_capped(event.result)))
        return acp.update_tool_call(
            event.call_id,
            status=_status(event.status),  # type: ignore[arg-type]
            content=content,
            raw_output={"status": event.status, "result": sanitize_display(event.result)},
        )

    @staticmethod
    def _usage(event: UsageUpdated) -> UsageUpdate:
        cost = Cost(amount=event.session_cost, currency="USD") if event.session_cost is not None else None
        return UsageUpdate(
            session_update="usage_update",
            used=max(0, event.context_tokens),
            size=max(0, event.context_window),
            cost=cost,
        )

    @staticmethod
    def _turn_finished(event: TurnFinished) -> list[Update]:
        out: list[Update] = []
        if event.rewritten and event.final_text:  # a plugin replaced the answer that streamed
            out.append(acp.update_agent_message_text("\n\n" + sanitize_display(event.final_text)))
        if event.marker:
            out.append(acp.update_agent_message_text(f"\n\n_({sanitize_display(event.marker)})_"))
        if event.error:
            out.append(acp.update_agent_message_text(f"\n\n⚠ {sanitize_display(event.error)}"))
        return out


def history_updates(messages: Iterable[Message], cwd: Path) -> list[Update]:
    """A stored conversation as the updates that first showed it (`session/load`): the user's words as
    typed (attachments named, not repeated), reasoning, replies, each tool call with its stored result."""
    out: list[Update] = []
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    for message in messages:
        if message.role == "user":
            typed, labels = split_attached(message.content)
            text = typed + ("\n" + "   ".join(f"📎 {label}" for label in labels) if labels else "")
            if text:
                out.append(acp.update_user_message_text(sanitize_display(text)))
        elif message.role == "assistant":
            if message.reasoning:
                out.append(acp.update_agent_thought_text(sanitize_display(message.reasoning)))
            if message.content:
                out.append(acp.update_agent_message_text(sanitize_display(message.content)))
            for call in message.tool_calls:
                arguments = _arguments(call.arguments)
                calls[call.id] = (call.name, arguments)
                out.append(
                    acp.start_tool_call(
                        call.id,
                        tool_title(call.name, arguments),
                        kind=tool_kind(call.name),
                        status="pending",
                        locations=tool_locations(arguments, cwd) or None,
                        raw_input=arguments,
                    )
                )
        elif message.role == "tool" and message.tool_call_id:
            name, arguments = calls.get(message.tool_call_id, (message.tool_name or "", {}))
            status = str(message.meta.get("status", "ok"))
            content = edit_diff(name, arguments, cwd, None) if status == "ok" else []
            content.append(_text(_capped(message.content)))
            out.append(
                acp.update_tool_call(
                    message.tool_call_id,
                    status=_status(status),  # type: ignore[arg-type]
                    content=content,
                )
            )
    return out


def _arguments(raw: str) -> dict[str, Any]:
    try:
        parsed = json.loads(raw or "{}")
    except ValueError:
        return {"arguments": raw}
    return parsed if isinstance(parsed, dict) else {"arguments": raw}

"""The preview pane of the session browser: the highlighted session's header and the messages around the
search hit (or the start and the end of the session), tool calls one line each.

Loaded in a thread (`fetch_preview`), built on the UI thread (`build_preview`) into plain Rich `Text`:
model and tool text is shown as text, never interpreted as markup, control characters made visible.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text

from agent.api import (
    clarify_answer,
    format_absolute,
    format_age,
    reply_marker,
    result_status,
    summarize_call,
)
from hermes_tui.export import short_path
from hermes_tui.screens.sessions.rows import (
    HERMES_BADGE,
    STATUS_GLYPHS,
    RowStyles,
    SessionRow,
    display_status,
    highlight,
    highlight_query,
    one_line,
    plural,
    session_cost,
)
from widgets.support.text_safety import sanitize_display

if TYPE_CHECKING:
    from agent.api import Message, SessionStoreProtocol, ToolRegistry

__all__ = ["PreviewData", "build_preview", "fetch_preview"]

PREVIEW_BEFORE = 4
PREVIEW_AFTER = 4
PREVIEW_HEAD = 2
PREVIEW_TAIL = 6
MESSAGE_LINES = 6
MESSAGE_CHARS = 480
ANCHOR_LINES = 14
ANCHOR_CHARS = 1400


@dataclass
class PreviewData:
    """What the preview shows, loaded in a thread: message windows (an int = a gap of N messages)."""

    row: SessionRow
    blocks: list[list[Message] | int]
    registry: ToolRegistry | None = None
    # results of the shown calls that fall in a gap between two blocks (shown on their call's line)
    results: dict[str, Message] = field(default_factory=dict)
    # why each shown turn ended (Hermes' names), by the id of the user message that started it
    turn_ends: dict[int, str] = field(default_factory=dict)


def fetch_preview(store: SessionStoreProtocol, row: SessionRow, registry: ToolRegistry | None) -> PreviewData:
    """Runs in a thread: the messages around the hit, or the head and the tail of the session, with the
    results of the calls they show and how their turns ended."""
    data = PreviewData(row, _blocks(store, row), registry)
    answered = {m.tool_call_id for b in data.blocks if isinstance(b, list) for m in b if m.role == "tool"}
    seq = 0
    for block in data.blocks:
        if isinstance(block, int):
            seq += block
            continue
        seq += len(block)
        calls = [c.id for m in block[-1:] for c in m.tool_calls if c.id not in answered]
        if calls:  # the block ends on a call whose results come right after it
            for message in store.load_messages(row.info.id, seq, seq + len(calls)):
                if message.role == "tool" and message.tool_call_id in calls:
                    data.results[message.tool_call_id] = message
    try:
        data.turn_ends = {
            turn["user_message_id"]: turn["exit_reason"]
            for turn in store.turns(row.info.id)
            if turn["user_message_id"] is not None
        }
    except Exception:  # a store without turn records (an older schema opened read-only)
        pass
    return data


def _blocks(store: SessionStoreProtocol, row: SessionRow) -> list[list[Message] | int]:
    info = row.info
    count = info.message_count
    blocks: list[list[Message] | int] = []
    if row.hit is not None:
        start = max(0, row.hit.seq - PREVIEW_BEFORE)
        end = row.hit.seq + PREVIEW_AFTER + 1
        if start > 0:
            blocks.append(start)
        blocks.append(store.load_messages(info.id, start, end))
        if end < count:
            blocks.append(count - end)
    elif count <= PREVIEW_HEAD + PREVIEW_TAIL + 1:
        blocks.append(store.load_messages(info.id))
    else:
        tail_start = count - PREVIEW_TAIL
        blocks.append(store.load_messages(info.id, 0, PREVIEW_HEAD))
        blocks.append(tail_start - PREVIEW_HEAD)
        blocks.append(store.load_messages(info.id, tail_start))
    return blocks


def _excerpt(text: str, terms: Sequence[str], max_lines: int, max_chars: int) -> str:
    """Up to `max_lines` / `max_chars` of `text`, centred on the first occurrence of a term if any."""
    text = sanitize_display(text or "").replace("\r", "")
    lines = text.strip("\n").split("\n")
    lowered = [line.lower() for line in lines]
    at = 0
    column = -1
    for term in terms:
        for index, line in enumerate(lowered):
            column = line.find(term)
            if column >= 0:
                at = index
                break
        if column >= 0:
            break
    start = max(0, at - max_lines // 3) if column >= 0 else 0
    window = lines[start : start + max_lines]
    # A very long line (minified JSON, a base64 blob): keep the part around the match.
    if column >= 0:
        hit_line = window[at - start]
        if len(hit_line) > max_chars // 2:
            left = max(0, column - max_chars // 6)
            window[at - start] = ("…" if left else "") + hit_line[left : left + max_chars // 2] + "…"
    body = "\n".join(window)
    if len(body) > max_chars:
        body = body[:max_chars].rstrip() + "…"
    prefix = "…\n" if start > 0 else ""
    suffix = "\n…" if start + max_lines < len(lines) else ""
    return prefix + body + suffix


def _markdown_excerpt(excerpt: str, markdown: Callable[[str], Text]) -> Text:
    """An excerpt drawn as Markdown, its "…" lines (text left out) kept outside it: a cut inside a code
    block must not show the ellipsis as code."""
    head, tail = excerpt.startswith("…\n"), excerpt.endswith("\n…")
    out = Text("…\n" if head else "", end="")
    out.append_text(markdown(excerpt[2 if head else 0 : len(excerpt) - 2 if tail else len(excerpt)]))
    if tail:
        out.append("\n…")
    return out


def _indent(text: Text, prefix: str = "  ", style: Style | str = "") -> Text:
    """Each line of `text` after `prefix` (styled on its own, so the body keeps its column everywhere)."""
    out = Text(end="")
    for index, line in enumerate(text.split("\n", allow_blank=True)):
        if index:
            out.append("\n")
        out.append(prefix, style)
        out.append_text(line)
    return out


def build_preview(
    data: PreviewData,
    styles: RowStyles,
    now: float,
    home: str | None,
    current_id: str | None,
    markdown: Callable[[str], Text] | None = None,
) -> tuple[Text, int | None]:
    """The preview text: a header about the session, then the messages around the hit (or the start and
    the end of the session), tool calls one line each. Plain `Text`, nothing interpreted as markup; the
    replies' excerpts drawn as Markdown by `markdown` (the transcript's renderer) when given.

    Returns the text and the character offset where the matching message starts (None without a hit)."""
    row = data.row
    info = row.info
    hit = row.hit
    terms = row.terms
    status = display_status(info, current_id)
    out = Text(end="")
    out.append(STATUS_GLYPHS[status] + " ", styles.glyphs.get(status))
    if info.from_hermes:
        out.append(HERMES_BADGE, styles.badge)
        out.append(" ")
    heading = Text(one_line(info.display_title) or info.id, style=styles.heading, end="")
    if hit is None:
        highlight_query(heading, row.query, styles.match)
    out.append_text(heading)
    lines = [
        " · ".join(
            (
                f"active {format_age(info.updated_at, now)}",
                plural(info.message_count, "message"),
                plural(info.tool_call_count, "tool call"),
                *([f"cost {cost}"] if (cost := session_cost(info)) else []),
                status,
            )
        ),
        " · ".join(
            part for part in (one_line(info.model), short_path(one_line(info.cwd), home, 200)) if part
        ),
        f"{info.id} · started {format_absolute(info.created_at, now)}",
    ]
    if info.exit_reason and info.exit_reason != "text_response":
        lines.append(f"last turn ended: {one_line(info.exit_reason)}")
    if info.is_hermes:
        lines.append("From Hermes' history, which is never changed here: Enter continues it in a copy.")
    elif info.origin:
        lines.append(f"A copy of {info.origin}, continued here (Hermes' original is unchanged).")
    for line in lines:
        out.append("\n")
        out.append(line, styles.meta)
    if not info.message_count:
        out.append("\n\nNo messages yet.", styles.meta)
        return out, None

    results: dict[str, Message] = dict(data.results)
    for block in data.blocks:
        if isinstance(block, list):
            for message in block:
                if message.role == "tool" and message.tool_call_id:
                    results.setdefault(message.tool_call_id, message)
    shown_results: set[int] = set()
    anchor_id = hit.message_id if hit is not None else None
    anchor_at: int | None = None

    for block in data.blocks:
        if isinstance(block, int):
            if block > 0:
                noun = "message" if block == 1 else "messages"
                out.append(f"\n\n  ⋯ {block} {noun} ⋯", styles.meta)
            continue
        for message in block:
            anchored = message.id is not None and message.id == anchor_id
            if message.role == "tool":
                if id(message) in shown_results:
                    continue
                out.append("\n")
                if anchored:
                    anchor_at = len(out)
                out.append_text(
                    _tool_line(message.tool_name or "tool", "", message, styles, data.registry, None)
                )
                if anchored:
                    out.append("\n")
                    out.append_text(_anchored_output(message, terms, styles))
                continue
            synthetic = (message.meta or {}).get("synthetic")
            out.append("\n\n")
            if anchored:
                anchor_at = len(out)
                out.append("▌", styles.anchor)
            if message.role == "user" and synthetic:
                out.append("note", styles.label.get("note"))
            else:
                out.append(
                    {"user": "You", "assistant": "Assistant"}.get(message.role, message.role.title()),
                    styles.label.get(message.role, styles.label.get("assistant")),
                )
            if message.rewound_at is not None:  # out of the model's context since a rewind
                out.append("  rewound", styles.meta)
            if message.partial or message.finish_reason == "interrupted":
                out.append("  interrupted", styles.meta)
            elif marker := reply_marker((message.meta or {}).get("incomplete")):
                out.append(f"  {marker.split(':')[0]}", styles.meta)
            ended = data.turn_ends.get(message.id) if message.role == "user" and message.id else None
            if ended and ended != "text_response":
                out.append(f"  turn ended: {one_line(ended)}", styles.meta)
            if anchored:
                out.append("  ◂ match", styles.anchor)
            limit_lines, limit_chars = (
                (ANCHOR_LINES, ANCHOR_CHARS) if anchored else (MESSAGE_LINES, MESSAGE_CHARS)
            )
            if message.role == "assistant" and message.reasoning and not message.content:
                body = Text(_excerpt(message.reasoning, terms, 2, 200), style=styles.meta, end="")
                out.append("\n")
                out.append_text(_indent(highlight(body, terms, styles.match), style=styles.meta))
            if message.content and message.content.strip():
                excerpt = _excerpt(message.content, terms, limit_lines, limit_chars)
                if markdown is not None and message.role == "assistant":
                    body = _markdown_excerpt(excerpt, markdown)
                else:
                    body = Text(excerpt, end="")
                out.append("\n")
                out.append_text(_indent(highlight(body, terms, styles.match), style=styles.meta))
            for call in message.tool_calls:
                result = results.get(call.id)
                out.append("\n")
                if result is not None and result.id is not None and result.id == anchor_id:
                    anchor_at = len(out)
                out.append_text(
                    _tool_line(
                        call.name, call.arguments, result, styles, data.registry, terms if anchored else None
                    )
                )
                if result is not None:
                    shown_results.add(id(result))
                    if result.id is not None and result.id == anchor_id:
                        out.append("\n")
                        out.append_text(_anchored_output(result, terms, styles))
    return out, anchor_at


def _tool_line(
    name: str,
    arguments: str,
    result: Message | None,
    styles: RowStyles,
    registry: ToolRegistry | None,
    terms: Sequence[str] | None,
) -> Text:
    """`  → name: summary  ok · 1.2s` on one line."""
    line = Text("  → ", style=styles.tool, end="")
    summary = one_line(summarize_call(name, arguments, registry))[:80] if arguments else ""
    head = Text(one_line(name) + (f": {summary}" if summary else ""), style=styles.tool, end="")
    if terms:
        highlight(head, terms, styles.match)
    line.append_text(head)
    if result is not None:
        meta = result.meta or {}
        bits = [result_status(meta)]
        duration = meta.get("duration")
        if isinstance(duration, (int, float)):
            bits.append(f"{duration:.1f}s")
        line.append("  " + " · ".join(bits), styles.meta)
        if name == "clarify" and (answered := clarify_answer(result.content or "")) is not None:
            answer = Text(_excerpt(answered[1], terms or (), 2, 200), end="")  # not the question alone
            if terms:
                highlight(answer, terms, styles.match)
            line.append("\n")
            line.append_text(_indent(Text("→ ", end="") + answer, "    │ ", styles.meta))
    else:
        line.append("  no result", styles.meta)
    return line


def _anchored_output(message: Message, terms: Sequence[str], styles: RowStyles) -> Text:
    body = Text(_excerpt(message.content or "", terms, ANCHOR_LINES, ANCHOR_CHARS), style=styles.meta, end="")
    highlight(body, terms, styles.match)
    return _indent(body, "    │ ", styles.meta)

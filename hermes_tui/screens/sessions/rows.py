"""The rows of the session browser: what one session (or one search hit in it) looks like in the list.

Rows are Rich `Text` built from data (never markup), styled with the screen's component classes (resolved
into `RowStyles` on the UI thread), so they follow the theme and can be built in a worker thread.
Relative times take `now` from the caller, so snapshots do not depend on the wall clock.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text

from agent.api import format_absolute as absolute_time
from agent.api import format_age, format_cost
from hermes_tui.export import short_path
from widgets.support.text_safety import sanitize_display

if TYPE_CHECKING:
    from agent.api import SearchHit, SearchQuery, SessionInfo

__all__ = [
    "HERMES_BADGE",
    "STATUS_GLYPHS",
    "RowStyles",
    "SessionRow",
    "absolute_time",
    "display_status",
    "highlight",
    "highlight_query",
    "nest_subagents",
    "one_line",
    "plural",
    "session_cost",
    "session_prompt",
    "snippet_terms",
    "snippet_text",
]


@dataclass
class SessionRow:
    """One row of the list: a session, and the search hit it stands for (None for a plain session row).
    `query` is the search that found a title row (its matches are highlighted). A search shows a session
    once: `matches` counts its messages that match (the hit shown is the first)."""

    info: SessionInfo
    hit: SearchHit | None = None
    query: SearchQuery | None = None
    matches: int = 1

    @property
    def session_id(self) -> str:
        return self.info.id

    @property
    def key(self) -> str:
        return self.info.id if self.hit is None else f"{self.info.id}#{self.hit.seq}"

    @property
    def terms(self) -> tuple[str, ...]:
        """Words to highlight in the preview: the marked words of the hit's snippet, else the query's."""
        if self.hit is not None:
            return snippet_terms(self.hit.snippet)
        return tuple(term.lower() for term in self.query.terms()) if self.query is not None else ()


HERMES_BADGE = "hermes"
"""Marks a session of Hermes' own history (read-only) or our copy of one."""

STATUS_GLYPHS = {
    "completed": "●",
    "active": "▶",
    "interrupted": "◐",
    "error": "✗",
    "empty": "○",
}


def display_status(info: SessionInfo, current_id: str | None = None) -> str:
    """completed / interrupted / error / empty, or active for the session open in the chat (`current_id`).

    The store says "active" while a turn runs; a session still "active" that is not the current one was
    cut off (the app was closed or crashed mid-turn), so it shows as interrupted."""
    if info.id == current_id:
        return "active"
    if not info.message_count:
        return "empty"
    status = info.status
    if status == "active":
        return "interrupted"
    return status if status in STATUS_GLYPHS else "completed"


SUBAGENT_SOURCE = "subagent"
EDITOR_SOURCE = "acp"  # made in an editor through `hermes-tui acp`


def nest_subagents(sessions: list[SessionInfo]) -> list[SessionInfo]:
    """The list with each subagent's session right under its parent's (children in the list's order);
    a child whose parent is not in the list keeps its place."""
    present = {info.id for info in sessions}
    children: dict[str, list[SessionInfo]] = {}
    for info in sessions:
        if info.source == SUBAGENT_SOURCE and info.parent_session_id in present:
            children.setdefault(info.parent_session_id or "", []).append(info)
    if not children:
        return sessions
    out: list[SessionInfo] = []

    def place(info: SessionInfo) -> None:
        out.append(info)
        for child in children.get(info.id, ()):
            place(child)

    for info in sessions:
        if not (info.source == SUBAGENT_SOURCE and info.parent_session_id in present):
            place(info)
    return out


def one_line(text: str) -> str:
    return " ".join(sanitize_display(text or "").split())


def snippet_text(
    snippet: str,
    match_style: Style | str,
    style: Style | str = "",
    *,
    max_lead: int | None = 28,
) -> Text:
    """A store snippet ('\\x02' starts a match, '\\x03' ends it) as a `Text` with the matches styled.

    Control characters are dropped (never interpreted); `max_lead` trims text before the first match so
    the match stays visible in a narrow row (the cut is shown as '…')."""
    text = Text(style=style, end="")
    pieces = re.split(r"(\x02|\x03)", snippet or "")
    in_match = False
    for piece in pieces:
        if piece == "\x02":
            in_match = True
        elif piece == "\x03":
            in_match = False
        elif piece:
            clean = " ".join(sanitize_display(piece).replace("\x02", "").replace("\x03", "").split(" "))
            clean = clean.replace("\n", " ")
            text.append(clean, match_style if in_match else None)
    if max_lead is not None and text.spans:
        first = min(span.start for span in text.spans)
        if first > max_lead:
            cut = text.plain.rfind(" ", 0, first - max_lead // 2)
            cut = cut + 1 if cut > 0 else first - max_lead // 2
            text = Text("…", style=style, end="") + text[cut:]
    return text


def snippet_terms(snippet: str) -> tuple[str, ...]:
    """The matched words of a snippet (what lies between the markers), deduplicated, longest first."""
    found = {m.strip().lower() for m in re.findall(r"\x02(.*?)\x03", snippet or "", flags=re.S) if m.strip()}
    return tuple(sorted(found, key=len, reverse=True))


def highlight(text: Text, terms: Iterable[str], style: Style | str) -> Text:
    """Style every case-insensitive occurrence of the words (those a snippet marked) in `text`."""
    for term in terms:
        if term:
            text.highlight_regex(re.compile(re.escape(term), re.IGNORECASE), style)
    return text


def highlight_query(text: Text, query: SearchQuery | None, style: Style | str) -> Text:
    """Style what `query` matches in `text` (whole tokens, as the search reads them)."""
    if query is not None:
        for start, end in query.spans(text.plain):
            text.stylize(style, start, end)
    return text


# ------------------------------------------------------------------------------------------ styles


@dataclass(frozen=True)
class RowStyles:
    """Rich styles resolved from the screen's component classes (theme variables) on the UI thread."""

    glyphs: dict[str, Style] = field(default_factory=dict)
    title: Style = field(default_factory=Style)
    meta: Style = field(default_factory=Style)
    match: Style = field(default_factory=Style)
    label: dict[str, Style] = field(default_factory=dict)
    tool: Style = field(default_factory=Style)
    anchor: Style = field(default_factory=Style)
    heading: Style = field(default_factory=Style)
    badge: Style = field(default_factory=Style)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def session_cost(info: SessionInfo) -> str:
    """What the session cost ("$0.0123", "?" when no call could be priced), "" before any model call."""
    if not info.api_call_count and not info.cost_usd:
        return ""
    return format_cost(info.cost_usd, info.cost_unknown_calls)


def _meta_line(info: SessionInfo, status: str, now: float, home: str | None) -> str:
    parts = [format_age(info.updated_at, now)]
    count = info.message_count
    parts.append(f"{count} msg" + ("s" if count != 1 else ""))
    parts.append(session_cost(info))
    if info.model:
        parts.append(one_line(info.model))
    if info.cwd:
        parts.append(short_path(one_line(info.cwd), home, 32))
    if status != "completed":
        parts.append(status)
    return " · ".join(part for part in parts if part)


_ROLE_LABELS = {"user": "you", "assistant": "assistant", "tool": "tool", "system": "system"}


def _matching(count: int) -> str:
    return "1 message matches" if count == 1 else f"{count:,} messages match"


def session_prompt(
    row: SessionRow, styles: RowStyles, now: float, home: str | None, current_id: str | None
) -> Text:
    """The two lines of a list row: status glyph + title, then metadata (plain row) or the snippet (hit)."""
    info = row.info
    status = display_status(info, current_id)
    text = Text(end="")
    subagent = info.source == SUBAGENT_SOURCE
    if subagent:
        text.append("↳ ", styles.meta)
    text.append(STATUS_GLYPHS[status] + " ", styles.glyphs.get(status))
    if info.from_hermes:
        text.append(HERMES_BADGE, styles.badge)
        text.append(" ")
    title = Text(one_line(info.display_title)[:200] or info.id, style=styles.title, end="")
    hit = row.hit
    query = row.query if hit is None else None
    highlight_query(title, query, styles.match)
    text.append_text(title)
    if hit is None:
        text.append("\n    " if subagent else "\n  ")
        meta = Text(_meta_line(info, status, now, home), style=styles.meta, end="")
        if subagent:
            meta.append(" · subagent")
        elif info.source == EDITOR_SOURCE:
            meta.append(" · editor")
        if query is not None and query.spans(info.id) and not query.spans(info.title or ""):
            meta.append(" · ")  # found by its id: show where
            meta.append_text(highlight_query(Text(info.id, end=""), query, styles.match))
        if query is not None and row.matches:  # first: the end of a long meta line is cut
            text.append(f"{_matching(row.matches)} · ", styles.meta)
        text.append_text(meta)
        return text
    text.append("  ")
    text.append(format_age(hit.created_at or info.updated_at, now), styles.meta)
    if row.matches > 1:
        text.append(f" · {_matching(row.matches)}", styles.meta)
    label = _ROLE_LABELS.get(hit.role, hit.role)
    if hit.role == "tool" and hit.tool_name:
        label = f"tool {one_line(hit.tool_name)}"
    text.append("\n  ")
    text.append(f"{label} › ", styles.meta)
    text.append_text(snippet_text(hit.snippet, styles.match))
    return text

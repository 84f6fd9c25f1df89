"""The session browser: every session, full-text search over their messages, and what to do with one.

A search `Input` over a list of sessions (most recently active first) and a preview of the highlighted one.
Typing filters live: plain words search message content, tool names and tool arguments (the store's FTS5
index, bm25-ranked, with snippets) as well as titles and ids; `"phrases"`, `OR`, `NOT` and `prefix*` work,
and any other text is searched literally (the store translates it; this screen catches whatever might still
go wrong and shows "no results").

Why it is built this way:

- `OptionList`, not `ListView`: 5,000 rows fill in ~0.3 s instead of ~10 s (design.md §9). Rows are Rich
  `Text` built from data (never markup), styled with this screen's component classes, so they follow the
  theme; they are rebuilt when the theme changes.
- The store is queried in a thread (`asyncio.to_thread` inside an exclusive worker): typing never waits on
  SQLite, and a new keystroke cancels the previous, debounced search before it shows stale results.
- Relative times use an injectable clock (`now=`) so snapshots do not depend on the wall clock.

Keys: Enter (or a double click) resumes, `r` renames, `d` deletes (after a confirmation whose default is
Cancel), `b` branches (up to the selected search hit, else the whole session) and opens the branch, `e`
exports (Markdown, or JSON for a `.json` path), `/` goes back to the search, Escape clears the search and
then closes. The screen dismisses with a `SessionsResult`, or None when closed.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, Literal

from rich.style import Style
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from hermes_tui.export import (
    default_export_path,
    format_for_path,
    short_path,
    tool_summary,
    write_export,
)
from widgets.text_safety import sanitize_display

__all__ = [
    "ConfirmDeleteModal",
    "ExportPathModal",
    "RenameModal",
    "SessionRow",
    "SessionsResult",
    "SessionsScreen",
    "display_status",
    "parse_query",
    "relative_time",
    "snippet_text",
]

# ------------------------------------------------------------------------------------------ results


@dataclass(frozen=True)
class SessionsResult:
    """What the user chose in the browser. `action` is always "resume" for now: resume `session_id`
    (an existing session, or the branch just created)."""

    action: Literal["resume"]
    session_id: str


@dataclass
class SessionRow:
    """One row of the list: a session, and the search hit it stands for (None for a plain session row)."""

    info: Any  # agent.store.SessionInfo
    hit: Any = None  # agent.store.SearchHit | None
    terms: tuple[str, ...] = ()  # words to highlight in the title / preview

    @property
    def session_id(self) -> str:
        return self.info.id

    @property
    def key(self) -> str:
        return self.info.id if self.hit is None else f"{self.info.id}#{self.hit.seq}"


# ------------------------------------------------------------------------------------------ pure helpers

STATUS_GLYPHS = {
    "completed": "●",
    "active": "▶",
    "interrupted": "◐",
    "error": "✗",
    "empty": "○",
}

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def relative_time(timestamp: float, now: float) -> str:
    """ "just now", "3 min ago", "5 h ago", "yesterday", "3 days ago", "Mar 4", "Mar 4 2024" (local time)."""
    try:
        delta = now - timestamp
        then = datetime.fromtimestamp(timestamp)
        today = datetime.fromtimestamp(now)
    except (OverflowError, OSError, ValueError, TypeError):
        return ""
    if delta < 60:
        return "just now"
    if delta < 3600:
        return f"{int(delta // 60)} min ago"
    days = (today.date() - then.date()).days
    if days == 0:
        return f"{int(delta // 3600)} h ago"
    if days == 1:
        return "yesterday"
    if days < 7:
        return f"{days} days ago"
    label = f"{_MONTHS[then.month - 1]} {then.day}"
    return label if then.year == today.year else f"{label} {then.year}"


def absolute_time(timestamp: float, now: float | None = None) -> str:
    """ "Mar 4, 14:02" (local time), with the year when it is not the year of `now`."""
    try:
        then = datetime.fromtimestamp(timestamp)
        year = datetime.fromtimestamp(now).year if now is not None else then.year
    except (OverflowError, OSError, ValueError, TypeError):
        return ""
    day = f"{_MONTHS[then.month - 1]} {then.day}" + (f" {then.year}" if then.year != year else "")
    return f"{day}, {then:%H:%M}"


def display_status(info: Any, current_id: str | None = None) -> str:
    """completed / interrupted / error / empty, or active for the session open in the chat (`current_id`).

    The store says "active" while a turn runs; a session still "active" that is not the current one was
    cut off (the app was closed or crashed mid-turn), so it shows as interrupted."""
    if info.id == current_id:
        return "active"
    if not getattr(info, "message_count", 0):
        return "empty"
    status = getattr(info, "status", "completed")
    if status == "active":
        return "interrupted"
    return status if status in STATUS_GLYPHS else "completed"


def _one_line(text: str) -> str:
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


# A query as OR-ed clauses, each a list of (term, negated): the same reading FTS5 gives the text
# (NOT binds tighter than AND, AND tighter than OR).
Clause = list[tuple[str, bool]]


def parse_query(text: str) -> list[Clause]:
    """Read the search text the way the store's FTS translation does, for matching titles and ids.

    Words and "quoted phrases" (a trailing `*` is allowed and ignored: matching is by substring), ANDed;
    uppercase `OR` starts a new clause; `NOT term` excludes a term. Terms without a letter or digit are
    dropped. Case-insensitive."""
    clauses: list[Clause] = [[]]
    negate = False
    for match in re.finditer(r'"([^"]*)"?\**|(\S+)', text or ""):
        phrase, word = match.group(1), match.group(2)
        if word in ("AND", "OR", "NOT"):
            if word == "OR" and clauses[-1]:
                clauses.append([])
                negate = False
            elif word == "NOT" and clauses[-1]:
                negate = True
            continue
        term = (phrase if phrase is not None else (word or "").rstrip("*")).strip().lower()
        if not any(ch.isalnum() for ch in term):
            continue
        clauses[-1].append((term, negate))
        negate = False
    return [clause for clause in clauses if any(not neg for _term, neg in clause)]


def query_matches(haystack: str, clauses: Sequence[Clause]) -> bool:
    """Whether a lowercased `haystack` satisfies the parsed query (substring matching)."""
    return any(all((term in haystack) != negated for term, negated in clause) for clause in clauses)


def query_terms(clauses: Sequence[Clause]) -> tuple[str, ...]:
    """The positive terms of a parsed query, longest first (for highlighting)."""
    terms = {term for clause in clauses for term, negated in clause if not negated}
    return tuple(sorted(terms, key=len, reverse=True))


def _highlight(text: Text, terms: Iterable[str], style: Style | str) -> Text:
    for term in terms:
        if term:
            text.highlight_regex(re.compile(re.escape(term), re.IGNORECASE), style)
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


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _meta_line(info: Any, status: str, now: float, home: str | None) -> str:
    parts = [relative_time(info.updated_at, now)]
    count = info.message_count
    parts.append(f"{count} msg" + ("s" if count != 1 else ""))
    if info.model:
        parts.append(_one_line(info.model))
    if info.cwd:
        parts.append(short_path(_one_line(info.cwd), home, 32))
    if status != "completed":
        parts.append(status)
    return " · ".join(part for part in parts if part)


_ROLE_LABELS = {"user": "you", "assistant": "assistant", "tool": "tool", "system": "system"}


def session_prompt(
    row: SessionRow, styles: RowStyles, now: float, home: str | None, current_id: str | None
) -> Text:
    """The two lines of a list row: status glyph + title, then metadata (plain row) or the snippet (hit)."""
    info = row.info
    status = display_status(info, current_id)
    text = Text(end="")
    text.append(STATUS_GLYPHS[status] + " ", styles.glyphs.get(status))
    title = Text(_one_line(info.display_title)[:200] or info.id, style=styles.title, end="")
    hit = row.hit
    if hit is None and row.terms:
        _highlight(title, row.terms, styles.match)
    text.append_text(title)
    if hit is None:
        text.append("\n  ")
        meta = Text(_meta_line(info, status, now, home), style=styles.meta, end="")
        lowered_title = (info.title or "").lower()
        id_terms = [t for t in row.terms if t in info.id.lower() and t not in lowered_title]
        if id_terms:
            meta.append(" · ")
            meta.append_text(_highlight(Text(info.id, end=""), id_terms, styles.match))
        text.append_text(meta)
        return text
    text.append("  ")
    text.append(relative_time(hit.created_at or info.updated_at, now), styles.meta)
    label = _ROLE_LABELS.get(hit.role, hit.role)
    if hit.role == "tool" and hit.tool_name:
        label = f"tool {_one_line(hit.tool_name)}"
    text.append("\n  ")
    text.append(f"{label} › ", styles.meta)
    text.append_text(snippet_text(hit.snippet, styles.match))
    return text


# ------------------------------------------------------------------------------------------ preview

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
    """What the preview shows, loaded in a thread: message windows (None = a gap of N messages)."""

    row: SessionRow
    blocks: list[list[Any] | int]
    registry: Any = None


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
) -> tuple[Text, int | None]:
    """The preview text: a header about the session, then the messages around the hit (or the start and
    the end of the session), tool calls one line each. Plain `Text`, nothing interpreted.

    Returns the text and the character offset where the matching message starts (None without a hit)."""
    row = data.row
    info = row.info
    hit = row.hit
    terms = snippet_terms(hit.snippet) if hit is not None else row.terms
    status = display_status(info, current_id)
    out = Text(end="")
    out.append(STATUS_GLYPHS[status] + " ", styles.glyphs.get(status))
    heading = Text(_one_line(info.display_title) or info.id, style=styles.heading, end="")
    if hit is None:
        _highlight(heading, terms, styles.match)
    out.append_text(heading)
    lines = [
        " · ".join(
            (
                f"active {relative_time(info.updated_at, now)}",
                _plural(info.message_count, "message"),
                _plural(info.tool_call_count, "tool call"),
                status,
            )
        ),
        " · ".join(
            part for part in (_one_line(info.model), short_path(_one_line(info.cwd), home, 200)) if part
        ),
        f"{info.id} · started {absolute_time(info.created_at, now)}",
    ]
    for line in lines:
        out.append("\n")
        out.append(line, styles.meta)
    if not info.message_count:
        out.append("\n\nNo messages yet.", styles.meta)
        return out, None

    results: dict[str, Any] = {}
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
            if message.partial or message.finish_reason == "interrupted":
                out.append("  interrupted", styles.meta)
            if anchored:
                out.append("  ◂ match", styles.anchor)
            limit_lines, limit_chars = (
                (ANCHOR_LINES, ANCHOR_CHARS) if anchored else (MESSAGE_LINES, MESSAGE_CHARS)
            )
            if message.role == "assistant" and message.reasoning and not message.content:
                body = Text(_excerpt(message.reasoning, terms, 2, 200), style=styles.meta, end="")
                out.append("\n")
                out.append_text(_indent(_highlight(body, terms, styles.match), style=styles.meta))
            if message.content and message.content.strip():
                body = Text(_excerpt(message.content, terms, limit_lines, limit_chars), end="")
                out.append("\n")
                out.append_text(_indent(_highlight(body, terms, styles.match), style=styles.meta))
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
    result: Any,
    styles: RowStyles,
    registry: Any,
    terms: Sequence[str] | None,
) -> Text:
    """`  → name: summary  ok · 1.2s` on one line."""
    line = Text("  → ", style=styles.tool, end="")
    summary = _one_line(tool_summary(name, arguments, registry))[:80] if arguments else ""
    head = Text(_one_line(name) + (f": {summary}" if summary else ""), style=styles.tool, end="")
    if terms:
        _highlight(head, terms, styles.match)
    line.append_text(head)
    if result is not None:
        meta = result.meta or {}
        bits = [str(meta.get("status", "ok"))]
        duration = meta.get("duration")
        if isinstance(duration, (int, float)):
            bits.append(f"{duration:.1f}s")
        line.append("  " + " · ".join(bits), styles.meta)
    else:
        line.append("  no result", styles.meta)
    return line


def _anchored_output(message: Any, terms: Sequence[str], styles: RowStyles) -> Text:
    body = Text(_excerpt(message.content or "", terms, ANCHOR_LINES, ANCHOR_CHARS), style=styles.meta, end="")
    _highlight(body, terms, styles.match)
    return _indent(body, "    │ ", styles.meta)


# ------------------------------------------------------------------------------------------ widgets


class SearchInput(Input):
    """The search field: Enter resumes the highlighted session (shown in the footer as such)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Resume", key_display="↵"),
        # Up/down/page keys move through the results (a one-line Input has nothing to scroll).
        Binding("down", "screen.cursor_down", "Results", key_display="↓"),
        Binding("up", "screen.cursor_up", show=False),
        Binding("pagedown", "screen.page_down", show=False),
        Binding("pageup", "screen.page_up", show=False),
    ]


class SessionList(OptionList):
    """The rows. A click highlights a row; a double click (or Enter) selects it, which resumes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Resume", key_display="↵"),
        Binding("up", "up_or_leave", "Previous", show=False),
    ]

    class LeftTop(Message):
        """Up was pressed on the first row: the search box above should take the focus."""

    def action_up_or_leave(self) -> None:
        if not self.highlighted:
            self.post_message(self.LeftTop())
        else:
            self.action_cursor_up()

    async def _on_click(self, event: events.Click) -> None:
        event.prevent_default()  # not OptionList's click handler, which selects on the first click
        index = event.style.meta.get("option")
        if index is None or not (0 <= index < self.option_count):
            return
        if self.get_option_at_index(index).disabled:
            return
        self.highlighted = index
        if event.chain >= 2:
            self.action_select()


class _Dialog(ModalScreen[Any]):
    DEFAULT_CSS = """
    _Dialog {
        align: center middle;
        & > #dialog {
            width: 72;
            max-width: 100%;
            height: auto;
            max-height: 100%;
            border: round $primary;
            border-title-color: $primary;
            border-title-style: bold;
            background: $surface;
            padding: 1 2 0 2;
        }
        & .dialog-text { width: 1fr; height: auto; }
        & .dialog-hint { color: $text-muted; height: auto; margin-top: 1; }
        & .dialog-error { color: $error; height: auto; display: none; }
        & .dialog-error.-visible { display: block; }
        & .dialog-warning { color: $warning; }
        & Input { margin-top: 1; }
        & #buttons { height: auto; align-horizontal: right; margin-top: 1; }
        & Button { margin-left: 2; }
    }
    """


class RenameModal(_Dialog):
    """Asks for a new title; dismisses with the text (possibly empty: clears the title) or None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", show=False)]
    AUTO_FOCUS = "#rename-input"

    def __init__(self, title: str) -> None:
        super().__init__()
        self.initial = title

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Rename session"
            yield Input(
                value=self.initial, placeholder="A short title", id="rename-input", select_on_focus=True
            )
            yield Static(
                "enter save · esc cancel · an empty title shows the first message", classes="dialog-hint"
            )

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmDeleteModal(_Dialog):
    """ "Delete this session?" with Cancel focused; dismisses True only for Delete (button or `y`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "cancel", "Cancel", show=False),
        Binding("y", "confirm", "Delete", show=False),
        Binding("left", "app.focus_previous", show=False),
        Binding("right", "app.focus_next", show=False),
    ]
    AUTO_FOCUS = "#cancel"

    def __init__(self, title: str, message_count: int) -> None:
        super().__init__()
        self.session_title = title
        self.message_count = message_count

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Delete session"
            text = Text("Delete “", end="")
            text.append(_one_line(self.session_title)[:120], "bold")
            noun = "message" if self.message_count == 1 else "messages"
            text.append(f"” and its {self.message_count} {noun}? This cannot be undone.")
            yield Static(text, classes="dialog-text")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Delete", id="delete", variant="error")
            yield Static("y delete · esc cancel", classes="dialog-hint")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "delete")

    def action_cancel(self) -> None:
        self.dismiss(False)

    def action_confirm(self) -> None:
        self.dismiss(True)


class ExportPathModal(_Dialog):
    """Asks where to export; dismisses with (path, "markdown" | "json") or None.

    A path ending in `.json` exports JSON, anything else Markdown. A directory is refused; an existing
    file must be confirmed with a second Enter."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", show=False)]
    AUTO_FOCUS = "#export-input"

    def __init__(self, default_path: str, base_dir: Path | None = None) -> None:
        super().__init__()
        self.default_path = default_path
        self.base_dir = base_dir
        self._confirmed: Path | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = "Export session"
            yield Input(value=self.default_path, id="export-input")
            yield Static("", id="export-error", classes="dialog-error")
            yield Static(
                "enter export · esc cancel · .json exports JSON, anything else Markdown",
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        field_ = self.query_one(Input)
        field_.cursor_position = len(field_.value)

    def _resolve(self, value: str) -> Path:
        path = Path(value).expanduser()
        if not path.is_absolute() and self.base_dir is not None:
            path = self.base_dir / path
        return path

    def _show_error(self, message: str, warning: bool = False) -> None:
        label = self.query_one("#export-error", Static)
        label.update(Text(message))
        label.set_class(True, "-visible")
        label.set_class(warning, "dialog-warning")

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self._confirmed = None
        self.query_one("#export-error", Static).set_class(False, "-visible")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        if not value:
            self._show_error("Type a file name.")
            return
        path = self._resolve(value)
        try:
            if path.is_dir():
                self._show_error(f"{value} is a directory: add a file name.")
                return
            if path.exists() and self._confirmed != path:
                self._confirmed = path
                self._show_error(f"{value} exists. Press enter again to replace it.", warning=True)
                return
        except OSError as exc:
            self._show_error(f"Cannot use {value}: {exc.strerror or exc}")
            return
        self.dismiss((path, format_for_path(path)))

    def action_cancel(self) -> None:
        self.dismiss(None)


# ------------------------------------------------------------------------------------------ the screen


@dataclass
class _Fetched:
    query: str
    sessions: list[Any]
    rows: list[SessionRow]
    options: list[Option]
    failed: bool = False


class SessionsScreen(Screen["SessionsResult | None"]):
    """Browse, search and manage sessions; dismisses with `SessionsResult` or None.

    Args:
        store: the `SessionStore`.
        now: the clock for relative times: a timestamp, or a callable returning one (default `time.time`).
        current_id: the session open in the chat, if any (shown as active rather than interrupted).
        home: the directory shown as `~` (default: the user's home).
        query: initial search text.
        export_dir: where relative export paths resolve (default: the current directory).
        registry: the agent's `ToolRegistry`, for tool-call summaries in the preview (optional).
    """

    DEBOUNCE: ClassVar[float] = 0.15
    """Seconds of typing pause before a search runs."""
    LIST_LIMIT: ClassVar[int] = 20_000
    """At most this many sessions are listed (most recent first)."""
    HIT_LIMIT: ClassVar[int] = 200
    """Message hits fetched per search."""
    HITS_PER_SESSION: ClassVar[int] = 5
    """Message hits shown per session (the best ones)."""
    FIRST_PAGE: ClassVar[int] = 100
    """Sessions fetched and shown first when the screen opens, before the full list."""
    CHUNK: ClassVar[int] = 200
    """Options put in the list at once (a screenful and more); the rest follow in `FEED_CHUNK`s."""
    FEED_CHUNK: ClassVar[int] = 1000
    """Options added per step in the background (~50 ms of work: keys stay responsive)."""

    AUTO_FOCUS = "#sessions-search"
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (100, "-wide")]

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="sessions.back"),
        Binding("enter", "resume", "Resume", key_display="↵", id="sessions.resume"),
        Binding("r", "rename", "Rename", id="sessions.rename"),
        Binding("d", "delete", "Delete", id="sessions.delete"),
        Binding("b", "branch", "Branch", id="sessions.branch"),
        Binding("e", "export", "Export", id="sessions.export"),
        Binding("slash", "focus_search", "Search", show=False, id="sessions.search"),
        Binding("down", "cursor_down", "Next", show=False),
        Binding("up", "cursor_up", "Previous", show=False),
        Binding("pagedown", "page_down", show=False),
        Binding("pageup", "page_up", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "sessions--completed",
        "sessions--active",
        "sessions--interrupted",
        "sessions--error",
        "sessions--empty",
        "sessions--title",
        "sessions--meta",
        "sessions--match",
        "sessions--user",
        "sessions--assistant",
        "sessions--note",
        "sessions--tool",
        "sessions--anchor",
        "sessions--heading",
    }

    DEFAULT_CSS = """
    SessionsScreen {
        layout: vertical;
        background: $background;

        & > .sessions--completed { color: $success; }
        & > .sessions--active { color: $accent; }
        & > .sessions--interrupted { color: $warning; }
        & > .sessions--error { color: $error; }
        & > .sessions--empty { color: $text-muted; }
        & > .sessions--title { color: $foreground; }
        & > .sessions--meta { color: $text-muted; }
        & > .sessions--match { color: $text-warning; background: $warning-muted; text-style: bold; }
        & > .sessions--user { color: $text-primary; text-style: bold; }
        & > .sessions--assistant { color: $text-secondary; text-style: bold; }
        & > .sessions--note { color: $text-muted; text-style: italic; }
        & > .sessions--tool { color: $text-secondary; }
        & > .sessions--anchor { color: $accent; text-style: bold; }
        & > .sessions--heading { color: $foreground; text-style: bold; }

        #sessions-search {
            margin: 0 1;
            border: round $border-blurred;
            border-title-color: $primary;
            border-title-style: bold;
            border-subtitle-color: $text-muted;
            background: $background;
            &:focus { border: round $primary; background-tint: transparent; }
        }
        #sessions-body { height: 1fr; }
        #sessions-list-area { width: 3fr; height: 1fr; }
        #sessions-list {
            height: 1fr;
            border: none;
            background: $background;
            text-wrap: nowrap;
            text-overflow: ellipsis;
            scrollbar-size-vertical: 1;
            padding: 0;
            & > .option-list--option { padding: 0 1; }
            & > .option-list--option-highlighted {
                color: $foreground;
                background: $primary 12%;
                text-style: none;
            }
            &:focus {
                background-tint: transparent;
                & > .option-list--option-highlighted {
                    color: $foreground;
                    background: $primary 25%;
                    text-style: none;
                }
            }
        }
        #sessions-empty {
            height: 1fr;
            width: 1fr;
            content-align: center middle;
            text-align: center;
            color: $text-muted;
            display: none;
            padding: 0 2;
        }
        #sessions-preview {
            width: 2fr;
            height: 1fr;
            border-left: tall $panel;
            padding: 0 1 0 2;
            scrollbar-size-vertical: 1;
            &:focus { background-tint: transparent; }
        }
        #sessions-preview-body { width: 1fr; height: auto; }
        &.-empty #sessions-list { display: none; }
        &.-empty #sessions-empty { display: block; }
        &.-empty #sessions-preview { display: none; }
        &.-narrow #sessions-body { layout: vertical; }
        &.-narrow #sessions-list-area { width: 1fr; height: 3fr; }
        &.-narrow #sessions-preview {
            width: 1fr;
            height: 2fr;
            border-left: none;
            border-top: hkey $panel;
            padding: 0 1;
        }
    }
    """

    def __init__(
        self,
        store: Any,
        *,
        now: float | Callable[[], float] | None = None,
        current_id: str | None = None,
        home: str | None = None,
        query: str = "",
        export_dir: Path | None = None,
        registry: Any = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.store = store
        self._clock: Callable[[], float] = (
            now if callable(now) else (lambda: float(now)) if now is not None else time.time
        )
        self.current_id = current_id
        self.home = home if home is not None else os.path.expanduser("~")
        self.initial_query = query
        self.export_dir = export_dir
        self.rows: list[SessionRow] = []
        """The rows on screen, in order (row i is option i)."""
        self.shown_query: str | None = None
        """The search text whose results are on screen (None until the first load completes)."""
        self.search_failed = False
        self._sessions: list[Any] | None = None
        self._all: tuple[list[SessionRow], list[Option]] | None = None
        self._styles = RowStyles()
        self.registry: Any = registry
        """A `ToolRegistry` for tool-call summaries in the preview (None: the first string argument)."""
        self._pending_query: str | None = None
        self.preview_text: Text = Text("")
        """What the preview pane shows (for tests and screenshots)."""
        self.preview_row: SessionRow | None = None
        """The row whose preview is shown."""
        self._pending: list[Option] = []  # options of all rows; the first `_loaded` are in the list
        self._loaded = 0
        self._feed_generation = 0
        self._resume_when_shown = False

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        search = SearchInput(
            value=self.initial_query,
            placeholder='Search titles and messages: words, "a phrase", OR, NOT, prefix*',
            id="sessions-search",
        )
        search.border_title = "Sessions"
        yield search
        with Horizontal(id="sessions-body"):
            with Vertical(id="sessions-list-area"):
                yield SessionList(id="sessions-list")
                yield Static(Text("Loading sessions…"), id="sessions-empty")
            with VerticalScroll(id="sessions-preview"):
                yield Static(Text(""), id="sessions-preview-body")
        yield Footer()

    @property
    def search_input(self) -> Input:
        return self.query_one("#sessions-search", Input)

    @property
    def option_list(self) -> SessionList:
        return self.query_one("#sessions-list", SessionList)

    @property
    def highlighted_row(self) -> SessionRow | None:
        index = self.option_list.highlighted
        if index is None or not (0 <= index < len(self.rows)):
            return None
        return self.rows[index]

    @property
    def now(self) -> float:
        return self._clock()

    def on_mount(self) -> None:
        self._styles = self._resolve_styles()
        self.watch(self.app, "theme", self._theme_changed, init=False)
        self._pending_query = self.initial_query
        self._run_query(self.initial_query, 0.0)

    # ------------------------------------------------------------------ styles
    def _resolve_styles(self) -> RowStyles:
        def style(name: str) -> Style:
            """The component's colours blended over the screen (as the theme defines them), without a
            background unless the rule sets one, so the row highlight shows through."""
            try:
                styles = self.get_component_styles(name)
                full = self.get_component_rich_style(name)
            except Exception:  # a missing rule must not break the list
                return Style()
            bgcolor = full.bgcolor if styles.has_rule("background") else None
            return Style(color=full.color, bgcolor=bgcolor) + styles.partial_rich_style.without_color

        return RowStyles(
            glyphs={status: style(f"sessions--{status}") for status in STATUS_GLYPHS},
            title=style("sessions--title"),
            meta=style("sessions--meta"),
            match=style("sessions--match"),
            label={
                "user": style("sessions--user"),
                "assistant": style("sessions--assistant"),
                "note": style("sessions--note"),
            },
            tool=style("sessions--tool"),
            anchor=style("sessions--anchor"),
            heading=style("sessions--heading"),
        )

    def _theme_changed(self, _theme: str) -> None:
        self.call_after_refresh(self._restyle)

    def _restyle(self) -> None:
        self._styles = self._resolve_styles()
        self._all = None
        if self.shown_query is not None:
            self._run_query(self.search_input.value, 0.0)

    # ------------------------------------------------------------------ querying
    @on(Input.Changed, "#sessions-search")
    def _search_changed(self, event: Input.Changed) -> None:
        event.stop()
        text = event.value
        if text == self._pending_query:
            return  # nothing new to search for
        self._pending_query = text
        self._resume_when_shown = False
        if not text.strip() and self._all is not None:
            self.workers.cancel_group(self, "sessions-query")
            self._show(text, *self._all)
            return
        self._run_query(text, self.DEBOUNCE)

    @work(exclusive=True, group="sessions-query", exit_on_error=False)
    async def _run_query(self, text: str, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        styles, now = self._styles, self.now
        first_load = self._sessions is None and not text.strip()
        if first_load:
            # First load: show the most recent page at once, then the rest.
            try:
                page = await asyncio.to_thread(self.store.list_sessions, self.FIRST_PAGE)
            except Exception as exc:  # an unreadable store reads as "no sessions", never a traceback
                self.log.error(f"listing sessions failed: {exc!r}")
                page = []
            if len(page) >= self.FIRST_PAGE:
                rows = [SessionRow(info) for info in page]
                self._show(text, rows, self._options(rows, styles, now), total=None)
        sessions = self._sessions
        try:
            fetched = await asyncio.to_thread(self._fetch, text, sessions, styles, now)
        except Exception as exc:  # any failure reads as "no results", never a traceback
            self.log.error(f"session search failed for {text!r}: {exc!r}")
            fetched = _Fetched(text, sessions or [], [], [], failed=True)
        if self._pending_query is not None and text != self._pending_query:
            return  # the user typed on; the newer query's worker will show its results
        self._apply(fetched, extend=first_load)

    def _fetch(self, text: str, sessions: list[Any] | None, styles: RowStyles, now: float) -> _Fetched:
        """Runs in a thread: the rows and options for `text` (all sessions when it is blank)."""
        if sessions is None:
            sessions = self.store.list_sessions(limit=self.LIST_LIMIT)
        if not text.strip():
            rows = [SessionRow(info) for info in sessions]
            return _Fetched(text, sessions, rows, self._options(rows, styles, now))
        clauses = parse_query(text)
        terms = query_terms(clauses)
        rows = []
        if clauses:
            for info in sessions:
                if query_matches(f"{info.title or ''} {info.id}".lower(), clauses):
                    rows.append(SessionRow(info, terms=terms))
        known = {info.id: info for info in sessions}
        per_session: dict[str, int] = {}
        failed = False
        try:
            hits = self.store.search(text, limit=self.HIT_LIMIT)
        except Exception:  # the store promises not to raise on user text; belt and braces
            hits, failed = [], True
        for hit in hits:
            count = per_session.get(hit.session_id, 0)
            if count >= self.HITS_PER_SESSION:
                continue
            info = known.get(hit.session_id)
            if info is None:
                info = self.store.get_session(hit.session_id)
                if info is None:
                    continue
                known[info.id] = info
            per_session[hit.session_id] = count + 1
            rows.append(SessionRow(info, hit=hit))
        return _Fetched(text, sessions, rows, self._options(rows, styles, now), failed=failed)

    def _options(self, rows: list[SessionRow], styles: RowStyles, now: float) -> list[Option]:
        home, current = self.home, self.current_id
        return [Option(session_prompt(row, styles, now, home, current), id=row.key) for row in rows]

    def _apply(self, fetched: _Fetched, extend: bool = False) -> None:
        self._sessions = fetched.sessions
        if not fetched.query.strip() and not fetched.failed:
            self._all = (list(fetched.rows), list(fetched.options))
        self.search_failed = fetched.failed
        self._show(fetched.query, fetched.rows, fetched.options, extend=extend)
        if self._resume_when_shown and fetched.query == self.search_input.value:
            self._resume_when_shown = False
            self.action_resume()

    def _show(
        self,
        query: str,
        rows: list[SessionRow],
        options: list[Option],
        keep: str | None = None,
        total: int | None = -1,
        extend: bool = False,
    ) -> None:
        """Put `rows` on screen. The first `CHUNK` options go in now, the rest in later chunks (a 5,000
        row list is usable at once and never blocks typing). With `extend` (the full list following the
        first page), rows already shown are kept when the new list starts with them."""
        option_list = self.option_list
        previous = self.highlighted_row
        same_prefix = (
            extend
            and query == self.shown_query
            and 0 < self._loaded <= len(rows)
            and len(self.rows) <= len(rows)
            and all(old.key == new.key for old, new in zip(self.rows[: self._loaded], rows, strict=False))
        )
        self.rows = list(rows)
        self._feed_generation += 1
        if same_prefix:
            self._pending = self._pending[: self._loaded] + list(options[self._loaded :])
            self.shown_query = query
            self._update_chrome(query, total)
            self._feed_more()
            return
        self._pending = list(options)
        index: int | None = 0 if rows else None
        wanted = keep or (previous.session_id if previous is not None and not query.strip() else None)
        if wanted is not None:
            index = next((i for i, row in enumerate(self.rows) if row.session_id == wanted), index)
        first = max(self.CHUNK, (index or 0) + self.CHUNK)
        option_list.set_options(self._pending[:first])
        self._loaded = option_list.option_count
        self.shown_query = query
        option_list.highlighted = index
        if index is not None:
            option_list.scroll_to_highlight(top=index == 0)
        self._update_chrome(query, total)
        self.refresh_bindings()
        if index is None:
            self._set_preview(Text(""))
        self._feed_more()

    def _feed_more(self) -> None:
        if self._loaded < len(self._pending):
            self._feed(self._feed_generation)

    @work(exclusive=True, group="sessions-feed", exit_on_error=False)
    async def _feed(self, generation: int) -> None:
        """Add the remaining options a chunk per frame, until done or another list replaced this one."""
        option_list = self.option_list
        while generation == self._feed_generation and self._loaded < len(self._pending):
            await asyncio.sleep(0.01)
            if generation != self._feed_generation:
                return
            chunk = self._pending[self._loaded : self._loaded + self.FEED_CHUNK]
            option_list.add_options(chunk)
            self._loaded += len(chunk)

    @property
    def is_filling(self) -> bool:
        """True while rows are still being added to the list in the background."""
        return self._loaded < len(self._pending)

    def _update_chrome(self, query: str, total: int | None = -1) -> None:
        search = self.search_input
        sessions = len(self._sessions or [])
        if not query.strip():
            if total is None:
                search.border_subtitle = f"{len(self.rows):,}+ sessions"
            else:
                search.border_subtitle = f"{sessions:,} session{'s' if sessions != 1 else ''}"
        else:
            count = len(self.rows)
            search.border_subtitle = f"{count:,} result{'s' if count != 1 else ''}"
        empty = not self.rows
        self.set_class(empty, "-empty")
        message = self.query_one("#sessions-empty", Static)
        if not empty:
            return
        if not sessions:
            message.update(
                Text("No sessions yet. Start typing in the chat, and your conversations will be here.")
            )
        elif self.search_failed:
            message.update(Text("No results (the search could not run; try other words)."))
        else:
            shown = query.strip()
            shown = shown if len(shown) <= 60 else shown[:59] + "…"
            text = Text("No results for “", end="")
            text.append(_one_line(shown))
            text.append("”.\nTry fewer words, or a prefix such as migr*")
            message.update(text)

    def _refresh_session(self, session_id: str) -> None:
        """Rebuild the rows of one session (after a rename), loaded or still pending."""
        styles, now = self._styles, self.now
        option_list = self.option_list
        for index, row in enumerate(self.rows):
            if row.session_id != session_id:
                continue
            prompt = session_prompt(row, styles, now, self.home, self.current_id)
            if index < self._loaded:
                option_list.replace_option_prompt_at_index(index, prompt)
            else:
                self._pending[index] = Option(prompt, id=row.key)
        row = self.highlighted_row
        if row is not None and row.session_id == session_id:
            self._load_preview(row, 0.0)

    # ------------------------------------------------------------------ preview
    @on(OptionList.OptionHighlighted, "#sessions-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self.refresh_bindings()
        row = self.highlighted_row
        if row is not None:
            self._load_preview(row, 0.05)

    @work(exclusive=True, group="sessions-preview", exit_on_error=False)
    async def _load_preview(self, row: SessionRow, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        try:
            data = await asyncio.to_thread(self._fetch_preview, row)
            text, anchor = build_preview(data, self._styles, self.now, self.home, self.current_id)
        except Exception as exc:  # a broken row must not take the screen down: say so instead
            self.log.error(f"preview failed for {row.session_id}: {exc!r}")
            text, anchor = Text("The preview could not be loaded."), None
        self._set_preview(text, anchor)
        self.preview_row = row

    def _fetch_preview(self, row: SessionRow) -> PreviewData:
        info = row.info
        count = info.message_count
        store = self.store
        blocks: list[list[Any] | int] = []
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
        return PreviewData(row, blocks, self.registry)

    def _set_preview(self, text: Text, anchor: int | None = None) -> None:
        """Show `text`; with an anchor (the matching message), scroll so it is near the top."""
        self.preview_text = text
        self.query_one("#sessions-preview-body", Static).update(text)
        scroller = self.query_one("#sessions-preview", VerticalScroll)
        scroller.scroll_home(animate=False)
        if anchor:
            self.call_after_refresh(self._scroll_preview_to, text, anchor)

    def _scroll_preview_to(self, text: Text, anchor: int) -> None:
        if text is not self.preview_text:
            return  # another preview replaced this one meanwhile
        body = self.query_one("#sessions-preview-body", Static)
        width = body.content_region.width or body.size.width
        if width <= 0:
            return
        try:
            lines = len(text[:anchor].wrap(self.app.console, width))
        except Exception:  # scrolling to the match is a nicety
            return
        scroller = self.query_one("#sessions-preview", VerticalScroll)
        scroller.scroll_to(y=max(0, lines - 2), animate=False)

    # ------------------------------------------------------------------ navigation
    def action_cursor_down(self) -> None:
        self._move(self.option_list.action_cursor_down)

    def action_cursor_up(self) -> None:
        self._move(self.option_list.action_cursor_up)

    def action_page_down(self) -> None:
        self._move(self.option_list.action_page_down)

    def action_page_up(self) -> None:
        self._move(self.option_list.action_page_up)

    def _move(self, step: Callable[[], None]) -> None:
        option_list = self.option_list
        if not self.rows:
            return
        option_list.focus()
        step()

    def action_focus_search(self) -> None:
        self.search_input.focus()

    @on(SessionList.LeftTop)
    def _left_top(self, event: SessionList.LeftTop) -> None:
        event.stop()
        self.search_input.focus()

    def action_back(self) -> None:
        search = self.search_input
        if search.value:
            search.value = ""
            search.focus()
            return
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("resume", "rename", "delete", "branch", "export"):
            try:
                return True if self.highlighted_row is not None else None
            except Exception:  # asked before the list is composed
                return None
        return True

    # ------------------------------------------------------------------ actions
    @on(Input.Submitted, "#sessions-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.shown_query != event.value:
            # Enter before the debounced search ran: search now, then resume its best result.
            self._resume_when_shown = True
            self._run_query(event.value, 0.0)
            return
        self.action_resume()

    @on(OptionList.OptionSelected, "#sessions-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_resume()

    def action_resume(self) -> None:
        row = self.highlighted_row
        if row is not None:
            self.dismiss(SessionsResult("resume", row.session_id))

    def action_rename(self) -> None:
        row = self.highlighted_row
        if row is None:
            return
        info = row.info

        def renamed(title: str | None) -> None:
            if title is None:
                return
            try:
                stored = self.store.set_title(info.id, title)
            except Exception as exc:
                self.notify(f"Could not rename: {exc}", severity="error")
                return
            for session in self._sessions or []:
                if session.id == info.id:
                    session.title = stored or None
            for shown in self.rows:
                if shown.session_id == info.id:
                    shown.info.title = stored or None
            info.title = stored or None
            self._all = None
            self._refresh_session(info.id)

        self.app.push_screen(RenameModal(info.title or ""), renamed)

    def action_delete(self) -> None:
        row = self.highlighted_row
        if row is None:
            return
        info = row.info
        if info.id == self.current_id:
            self.notify(
                "This session is open in the chat. Start a new one (ctrl+n) before deleting it.",
                severity="warning",
            )
            return

        def confirmed(yes: bool | None) -> None:
            if not yes:
                return
            try:
                self.store.delete_session(info.id)
            except Exception as exc:
                self.notify(f"Could not delete: {exc}", severity="error")
                return
            self._forget(info.id)

        self.app.push_screen(ConfirmDeleteModal(info.display_title, info.message_count), confirmed)

    def _forget(self, session_id: str) -> None:
        """Drop a deleted session from the cache and the rows on screen, keeping the cursor in place."""
        if self._sessions is not None:
            self._sessions = [s for s in self._sessions if s.id != session_id]
        if self._all is not None:
            rows, options = self._all
            keep = [i for i, row in enumerate(rows) if row.session_id != session_id]
            self._all = ([rows[i] for i in keep], [options[i] for i in keep])
        option_list = self.option_list
        index = option_list.highlighted or 0
        for position in range(len(self.rows) - 1, -1, -1):
            if self.rows[position].session_id != session_id:
                continue
            if position < self._loaded:
                option_list.remove_option_at_index(position)
                self._loaded -= 1
            del self.rows[position]
            del self._pending[position]
            if position < index:
                index -= 1
        if self.rows:
            option_list.highlighted = min(index, option_list.option_count - 1)
        self._update_chrome(self.shown_query or "")
        self.refresh_bindings()
        if not self.rows:
            self._set_preview(Text(""))

    def action_branch(self) -> None:
        row = self.highlighted_row
        if row is None:
            return
        if not row.info.message_count:
            self.notify("This session has no messages to branch from.", severity="warning")
            return
        up_to = row.hit.seq if row.hit is not None else max(row.info.message_count - 1, 0) + 1_000_000
        try:
            new_id = self.store.branch(row.session_id, up_to)
        except Exception as exc:
            self.notify(f"Could not branch: {exc}", severity="error")
            return
        self.dismiss(SessionsResult("resume", new_id))

    def action_export(self) -> None:
        row = self.highlighted_row
        if row is None:
            return
        info = row.info
        default = default_export_path(info)
        shown = f"./{default.name}"

        def chosen(answer: tuple[Path, str] | None) -> None:
            if answer is not None:
                path, fmt = answer
                self._export(info.id, path, fmt)

        self.app.push_screen(ExportPathModal(shown, base_dir=self.export_dir), chosen)

    @work(group="sessions-export", exit_on_error=False)
    async def _export(self, session_id: str, path: Path, fmt: str) -> None:
        try:
            written = await asyncio.to_thread(write_export, self.store, session_id, path, fmt)  # type: ignore[arg-type]
        except Exception as exc:
            reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
            self.notify(f"Export failed: {reason}", severity="error", timeout=8)
            return
        self.notify(f"Exported to {short_path(str(written), self.home, 80)}", title="Export")

"""What the store hands out (`SessionInfo`, `LoadedSession`, `SearchHit`) and the conversions between them
and SQLite rows; plus the small rules every part of the store shares (ids, titles, JSON columns)."""

from __future__ import annotations

import json
import re
import secrets
import sqlite3
import time
import unicodedata
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from agent.core.messages import Message, ToolCall, Usage, strip_surrogates

__all__ = [
    "CHILD_SOURCES",
    "HERMES_PREFIX",
    "HIGHLIGHT_END",
    "HIGHLIGHT_START",
    "SESSION_STATUSES",
    "TITLE_MAX_CHARS",
    "USER_CONVERSATION",
    "LoadedSession",
    "SearchHit",
    "SessionInfo",
    "new_session_id",
    "sanitize_title",
]

HERMES_PREFIX = "hermes:"
"""Ids of sessions in Hermes' own `state.db` carry this prefix everywhere in the app (our ids never hold
a colon), and our copy of one records it as its `origin`."""

SESSION_STATUSES = frozenset({"active", "completed", "interrupted", "error", "empty"})

HIGHLIGHT_START = "\x02"
HIGHLIGHT_END = "\x03"
PREVIEW_CHARS = 100
TITLE_MAX_CHARS = 100


@dataclass
class SessionInfo:
    """One `sessions` row, plus `preview` (the first user message, whitespace collapsed, 100 chars)."""

    id: str
    title: str | None
    model: str
    provider: str
    base_url: str
    cwd: str
    system_prompt: str
    parent_session_id: str | None
    parent_message_id: int | None
    source: str
    created_at: float
    updated_at: float
    status: str
    message_count: int = 0
    tool_call_count: int = 0
    api_call_count: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float = 0.0
    duration_s: float = 0.0
    exit_reason: str | None = None  # why the last turn ended (Hermes' name; None before any turn)
    cost_unknown_calls: int = 0  # calls whose price is unknown: cost_usd is then a lower bound
    origin: str | None = None  # where an imported session came from: "hermes:<id>"
    permission_mode: str | None = None  # plan, ask, default, yolo; None: never set (the configured one)
    preview: str = ""

    @property
    def display_title(self) -> str:
        """The title, else the preview, else the id: what a list row shows."""
        return self.title or self.preview or self.id

    @property
    def is_hermes(self) -> bool:
        """A session read from Hermes' own history (`hermes:<id>`), not one of ours."""
        return self.id.startswith(HERMES_PREFIX)

    @property
    def from_hermes(self) -> bool:
        """Shown with Hermes' badge: a session of Hermes' history, or our copy of one."""
        return self.is_hermes or (self.origin or "").startswith(HERMES_PREFIX)


@dataclass
class LoadedSession:
    """A session and its transcript in `seq` order; `seqs[i]` is the seq of `messages[i]`."""

    info: SessionInfo
    messages: list[Message]
    seqs: list[int] = field(default_factory=list)


@dataclass
class SearchHit:
    """One matching message. `snippet` marks matches with '\\x02'...'\\x03'; `rank` orders the hits of one
    search (lower = better, like SQLite's bm25; 0.0 for unranked hits, which come newest first)."""

    session_id: str
    message_id: int
    seq: int
    role: str
    snippet: str
    session_title: str | None
    tool_name: str | None
    rank: float
    created_at: float


SESSION_FIELDS = [f.name for f in fields(SessionInfo) if f.name != "preview"]
CHILD_SOURCES = ("subagent",)
"""Sessions a run of the app's own wrote (a delegated subagent's), not a conversation of the user's."""
USER_CONVERSATION = "s.source NOT IN ({})".format(", ".join(f"'{source}'" for source in CHILD_SOURCES))
"""SQL (on `sessions s`): the session is a conversation of the user's (what `-c` and `-r` may mean)."""

SESSION_SELECT = (
    f"SELECT {', '.join(f's.{name}' for name in SESSION_FIELDS)}, "
    "(SELECT substr(m.content, 1, 400) FROM messages m WHERE m.session_id = s.id AND m.role = 'user' "
    "ORDER BY m.seq LIMIT 1) AS preview FROM sessions s"
)
MESSAGE_DATA_COLUMNS = (
    "seq, role, content, reasoning, tool_calls, tool_call_id, tool_name, finish_reason, created_at, "
    "prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, partial, meta"
)
"""What an insert writes: a new row is live (`rewound_at` NULL), so inserts never name the later column."""
MESSAGE_COLUMNS = "id, " + MESSAGE_DATA_COLUMNS + ", rewound_at"


def new_session_id(now: float | None = None) -> str:
    """`YYYYMMDD_HHMMSS_<6 hex>` in local time."""
    stamp = datetime.fromtimestamp(time.time() if now is None else now).strftime("%Y%m%d_%H%M%S")
    return f"{stamp}_{secrets.token_hex(3)}"


_BIDI_AND_INVISIBLE = frozenset(
    "\u061c\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2060\ufeff"
)
TITLE_SUFFIX_RE = re.compile(r"^(.*?) #(\d+)$")


def collapse(text: str) -> str:
    return " ".join(text.split())


def sanitize_title(title: str) -> str:
    """Strip control and bidi/invisible chars, collapse whitespace, cap at 100 chars ('' if none left)."""
    text = collapse(strip_surrogates(title or ""))
    text = "".join(
        ch for ch in text if ch not in _BIDI_AND_INVISIBLE and unicodedata.category(ch) not in ("Cc", "Cs")
    )
    return collapse(text)[:TITLE_MAX_CHARS].rstrip()


def json_dumps(value: Any) -> str:
    return strip_surrogates(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str))


def json_loads(text: str | None, default: Any) -> Any:
    if not text:
        return default
    try:
        value = json.loads(text)
    except (ValueError, TypeError):
        return default
    return value if isinstance(value, type(default)) else default


def optional_text(text: str | None) -> str | None:
    return None if text is None else strip_surrogates(text)


def session_info(row: sqlite3.Row) -> SessionInfo:
    values = {name: row[name] for name in SESSION_FIELDS}
    return SessionInfo(**values, preview=collapse(row["preview"] or "")[:PREVIEW_CHARS])


def message_from_row(row: sqlite3.Row) -> Message:
    token_columns = (
        row["prompt_tokens"],
        row["completion_tokens"],
        row["cache_read_tokens"],
        row["cache_write_tokens"],
        row["reasoning_tokens"],
    )
    usage = None
    if any(value is not None for value in token_columns):
        usage = Usage(*(int(value or 0) for value in token_columns))
    calls = json_loads(row["tool_calls"], [])
    return Message(
        role=row["role"],
        content=row["content"] or "",
        reasoning=row["reasoning"],
        tool_calls=[ToolCall.from_dict(call) for call in calls if isinstance(call, dict)],
        tool_call_id=row["tool_call_id"],
        tool_name=row["tool_name"],
        finish_reason=row["finish_reason"],
        usage=usage,
        created_at=row["created_at"],
        id=row["id"],
        partial=bool(row["partial"]),
        meta=json_loads(row["meta"], {}),
        rewound_at=row["rewound_at"],
    )


def message_values(message: Message) -> tuple[Any, ...]:
    """The values of MESSAGE_DATA_COLUMNS after `seq`, for an insert (content and JSON made storable)."""
    usage = message.usage
    tool_calls = json_dumps([tc.to_dict() for tc in message.tool_calls]) if message.tool_calls else None
    return (
        message.role,
        strip_surrogates(message.content or ""),
        optional_text(message.reasoning),
        tool_calls,
        message.tool_call_id,
        message.tool_name,
        message.finish_reason,
        message.created_at,
        usage.prompt_tokens if usage else None,
        usage.completion_tokens if usage else None,
        usage.cache_read_tokens if usage else None,
        usage.cache_write_tokens if usage else None,
        usage.reasoning_tokens if usage else None,
        1 if message.partial else 0,
        json_dumps(message.meta) if message.meta else None,
    )

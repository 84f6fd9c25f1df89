"""SessionStore: sessions, transcripts and search in one SQLite file (WAL, FTS5).

One file per user (the app uses `$HERMES_HOME/tui/state.db`), created 0600. Every write is a short
transaction committed at once, so a crash (even `kill -9`) loses nothing that a method call returned from; a
streaming assistant reply is stored as a *partial* row (`partial = 1`) whose text is checkpointed with
`checkpoint_partial()` and rewritten by `update_message()` when it completes.

Thread safety: one connection (`check_same_thread=False`) guarded by an `RLock`; the agent worker thread,
tool threads and the UI thread may all call any method. Several processes may share the file (WAL + busy
timeout; `seq` numbers are assigned inside `BEGIN IMMEDIATE`).

Schema: `MIGRATIONS` is a list of functions, migration *i* (0-based) brings the schema to version *i + 1*;
`schema_version` records the versions applied. Each migration runs in its own transaction (SQLite DDL is
transactional: a failing migration leaves the file at the previous version). Adding version 2 means
appending one function to `MIGRATIONS`. A file written by a newer version (unknown higher version) is opened
as-is, never downgraded.

Full-text search: `messages_fts` (an FTS5 table holding its own copy of the text, keyed by `messages.id`)
indexes each message's content, its tool name and the names + argument values of its tool calls. INSERT,
DELETE and UPDATE triggers on `messages` keep it in sync (an UPDATE of content during streaming replaces the
row). `search()` accepts any user text; see `build_fts_query()`.

This module never imports textual.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sqlite3
import threading
import time
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from agent.messages import Message, ToolCall, Usage, strip_surrogates

__all__ = [
    "MIGRATIONS",
    "SESSION_STATUSES",
    "LoadedSession",
    "SearchHit",
    "SessionInfo",
    "SessionStore",
    "build_fts_query",
    "new_session_id",
    "sanitize_title",
]

SESSION_STATUSES = frozenset({"active", "completed", "interrupted", "error", "empty"})

HIGHLIGHT_START = "\x02"
HIGHLIGHT_END = "\x03"
RANK_CANDIDATES = 1_000  # bm25 ranks at most this many of the newest matches
SNIPPET_TOKENS = 12
PREVIEW_CHARS = 100
TITLE_MAX_CHARS = 100
BUSY_TIMEOUT_S = 10.0

# --------------------------------------------------------------------------------------------- schema


def _tool_args_sql(ref: str) -> str:
    """SQL text, evaluated in a trigger, giving the searchable text of `<ref>.tool_calls`.

    For each tool call: its name, then the keys and scalar values of its arguments when they are valid JSON
    (so `{"command": "rm -rf /tmp/x"}` indexes `command rm -rf /tmp/x` with its escapes decoded), else the raw
    arguments text. Malformed JSON anywhere yields '' rather than an error (a failing trigger would make the
    write fail).
    """
    return f"""coalesce((
        SELECT group_concat(
            coalesce(json_extract(tc.value, '$.name'), '') || ' ' ||
            CASE WHEN json_valid(json_extract(tc.value, '$.arguments')) THEN coalesce((
                SELECT group_concat(
                    CASE WHEN typeof(t.key) = 'text' THEN t.key || ' ' ELSE '' END || coalesce(t.atom, ''),
                    ' ')
                FROM json_tree(json_extract(tc.value, '$.arguments')) AS t
                WHERE t.atom IS NOT NULL), '')
            ELSE coalesce(json_extract(tc.value, '$.arguments'), '') END,
            ' ')
        FROM json_each(CASE WHEN json_valid({ref}.tool_calls) THEN {ref}.tool_calls ELSE '[]' END) AS tc
        WHERE tc.type = 'object'
    ), '')"""


_FTS_INSERT = f"""INSERT INTO messages_fts(rowid, content, tool_name, tool_args)
    VALUES (new.id, coalesce(new.content, ''), coalesce(new.tool_name, ''), {_tool_args_sql("new")});"""

_SCHEMA_V1 = [
    """CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        title TEXT,
        model TEXT NOT NULL DEFAULT '',
        provider TEXT NOT NULL DEFAULT '',
        base_url TEXT NOT NULL DEFAULT '',
        cwd TEXT NOT NULL DEFAULT '',
        system_prompt TEXT NOT NULL DEFAULT '',
        parent_session_id TEXT REFERENCES sessions(id) ON DELETE SET NULL,
        parent_message_id INTEGER,
        source TEXT NOT NULL DEFAULT 'tui',
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL,
        status TEXT NOT NULL DEFAULT 'active',
        message_count INTEGER NOT NULL DEFAULT 0,
        tool_call_count INTEGER NOT NULL DEFAULT 0,
        api_call_count INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cache_read_tokens INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0,
        reasoning_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL NOT NULL DEFAULT 0,
        duration_s REAL NOT NULL DEFAULT 0
    )""",
    "CREATE UNIQUE INDEX idx_sessions_title ON sessions(title COLLATE NOCASE) WHERE title IS NOT NULL",
    "CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC)",
    "CREATE INDEX idx_sessions_cwd_updated ON sessions(cwd, updated_at DESC)",
    "CREATE INDEX idx_sessions_parent ON sessions(parent_session_id)",
    """CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL DEFAULT '',
        reasoning TEXT,
        tool_calls TEXT,
        tool_call_id TEXT,
        tool_name TEXT,
        finish_reason TEXT,
        created_at REAL NOT NULL,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        cache_read_tokens INTEGER,
        cache_write_tokens INTEGER,
        reasoning_tokens INTEGER,
        partial INTEGER NOT NULL DEFAULT 0,
        meta TEXT
    )""",
    "CREATE UNIQUE INDEX idx_messages_session_seq ON messages(session_id, seq)",
    """CREATE TABLE approvals (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        command TEXT NOT NULL,
        reasons TEXT NOT NULL DEFAULT '[]',
        decision TEXT NOT NULL,
        created_at REAL NOT NULL
    )""",
    "CREATE INDEX idx_approvals_session ON approvals(session_id, id)",
    """CREATE VIRTUAL TABLE messages_fts USING fts5(
        content, tool_name, tool_args, tokenize = 'unicode61 remove_diacritics 2'
    )""",
    f"CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages BEGIN {_FTS_INSERT} END",
    "CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN "
    "DELETE FROM messages_fts WHERE rowid = old.id; END",
    "CREATE TRIGGER messages_fts_au AFTER UPDATE OF content, tool_name, tool_calls ON messages BEGIN "
    f"DELETE FROM messages_fts WHERE rowid = old.id; {_FTS_INSERT} END",
]


def _migrate_v1(conn: sqlite3.Connection) -> None:
    """Version 1: the initial schema."""
    for statement in _SCHEMA_V1:
        conn.execute(statement)


Migration = Callable[[sqlite3.Connection], None]

# MIGRATIONS[i] brings the schema from version i to version i + 1. Append, never edit a released one.
# A migration runs inside a transaction: execute statements one by one (never `executescript`, which commits).
MIGRATIONS: list[Migration] = [_migrate_v1]

# --------------------------------------------------------------------------------------------- rows


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
    preview: str = ""

    @property
    def display_title(self) -> str:
        """The title, else the preview, else the id: what a list row shows."""
        return self.title or self.preview or self.id


@dataclass
class LoadedSession:
    """A session and its transcript in `seq` order; `seqs[i]` is the seq of `messages[i]`."""

    info: SessionInfo
    messages: list[Message]
    seqs: list[int] = field(default_factory=list)


@dataclass
class SearchHit:
    """One matching message. `snippet` marks matches with '\\x02'...'\\x03'; `rank` is bm25 (lower = better;
    0.0 for hits of the LIKE fallback)."""

    session_id: str
    message_id: int
    seq: int
    role: str
    snippet: str
    session_title: str | None
    tool_name: str | None
    rank: float
    created_at: float


_SESSION_FIELDS = [f.name for f in fields(SessionInfo) if f.name != "preview"]
_SESSION_COLUMNS = ", ".join(f"s.{name}" for name in _SESSION_FIELDS)
_SESSION_SELECT = (
    f"SELECT {_SESSION_COLUMNS}, "
    "(SELECT substr(m.content, 1, 400) FROM messages m WHERE m.session_id = s.id AND m.role = 'user' "
    "ORDER BY m.seq LIMIT 1) AS preview FROM sessions s"
)
_MESSAGE_DATA_COLUMNS = (
    "seq, role, content, reasoning, tool_calls, tool_call_id, tool_name, finish_reason, created_at, "
    "prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, partial, meta"
)
_MESSAGE_COLUMNS = "id, " + _MESSAGE_DATA_COLUMNS
_MESSAGE_INSERT = (
    f"INSERT INTO messages (session_id, {_MESSAGE_DATA_COLUMNS}) "
    f"VALUES (?, {', '.join('?' * len(_MESSAGE_DATA_COLUMNS.split(', ')))})"
)

# --------------------------------------------------------------------------------------------- helpers


def new_session_id(now: float | None = None) -> str:
    """`YYYYMMDD_HHMMSS_<6 hex>` in local time."""
    stamp = datetime.fromtimestamp(time.time() if now is None else now).strftime("%Y%m%d_%H%M%S")
    return f"{stamp}_{secrets.token_hex(3)}"


_BIDI_AND_INVISIBLE = frozenset(
    "\u061c\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2060\ufeff"
)
_TITLE_SUFFIX_RE = re.compile(r"^(.*?) #(\d+)$")


def _collapse(text: str) -> str:
    return " ".join(text.split())


def sanitize_title(title: str) -> str:
    """Strip control and bidi/invisible chars, collapse whitespace, cap at 100 chars ('' if none left)."""
    text = _collapse(strip_surrogates(title or ""))
    text = "".join(
        ch for ch in text if ch not in _BIDI_AND_INVISIBLE and unicodedata.category(ch) not in ("Cc", "Cs")
    )
    return _collapse(text)[:TITLE_MAX_CHARS].rstrip()


def _preview(text: str | None) -> str:
    return _collapse(text or "")[:PREVIEW_CHARS]


def _json_dumps(value: Any) -> str:
    return strip_surrogates(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str))


def _json_loads(text: str | None, default: Any) -> Any:
    if not text:
        return default
    try:
        value = json.loads(text)
    except (ValueError, TypeError):
        return default
    return value if isinstance(value, type(default)) else default


def _opt(text: str | None) -> str | None:
    return None if text is None else strip_surrogates(text)


# ------------------------------------------------------------------------------------ query translation


@dataclass
class _Operand:
    text: str
    prefix: bool
    phrase: bool  # the user quoted it


_OPERATORS = ("AND", "OR", "NOT")
_MAX_QUERY_CHARS = 2000
_MAX_TERMS = 32
_MAX_LIKE_TERMS = 8


def _tokenize_query(text: str) -> list[_Operand | str]:
    """Split user text into operands (bare words, "quoted phrases", each with a trailing-* prefix flag) and
    the operator words AND/OR/NOT (uppercase, as FTS5 spells them). An unterminated quote runs to the end; a
    quote inside a bare word is part of the word."""
    tokens: list[_Operand | str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        if ch == '"':
            end = text.find('"', i + 1)
            if end == -1:
                body, i = text[i + 1 :], n
            else:
                body, i = text[i + 1 : end], end + 1
            prefix = False
            while i < n and text[i] == "*":
                prefix, i = True, i + 1
            tokens.append(_Operand(body, prefix, phrase=True))
            continue
        start = i
        while i < n and not text[i].isspace():
            i += 1
        word = text[start:i]
        if word in _OPERATORS:
            tokens.append(word)
            continue
        stripped = word.rstrip("*")
        tokens.append(_Operand(stripped, prefix=stripped != word, phrase=False))
    return tokens


def _searchable(text: str) -> bool:
    """Whether the FTS tokenizer would find at least one token in `text` (letters/digits)."""
    return any(ch.isalnum() for ch in text)


def build_fts_query(text: str) -> str:
    """Translate arbitrary user text into a valid FTS5 MATCH expression ('' when nothing is searchable).

    - every operand is emitted as a quoted string (embedded `"` doubled), so FTS syntax characters such as
      `( ) : ^ - + NEAR` are plain text;
    - `"quoted phrases"` stay phrases; an unbalanced quote is closed at the end of the text;
    - a trailing `*` on a word or a closing quote makes it a prefix query;
    - `AND` / `OR` / `NOT` (uppercase) are kept only between two operands; dangling ones are dropped, and of
      several in a row the last wins;
    - otherwise operands are ANDed; the last bare word (2+ chars) is a prefix unless the text ends with
      whitespace (search-as-you-type);
    - operands with no letters or digits are dropped; at most 32 operands.
    """
    text = strip_surrogates(text or "")[:_MAX_QUERY_CHARS]
    operands: list[tuple[_Operand, str | None]] = []  # (operand, operator joining it to the previous one)
    pending: str | None = None
    for token in _tokenize_query(text):
        if isinstance(token, str):
            if operands:
                pending = token
            continue
        if not _searchable(token.text):
            continue
        operands.append((token, pending))
        pending = None
        if len(operands) >= _MAX_TERMS:
            break
    if not operands:
        return ""
    last = operands[-1][0]
    if not last.phrase and not last.prefix and len(last.text) >= 2 and not text[-1:].isspace():
        last.prefix = True
    parts: list[str] = []
    for operand, operator in operands:
        if operator and operator != "AND":
            parts.append(operator)
        elif operator:
            parts.append("AND")
        parts.append('"' + operand.text.replace('"', '""') + '"' + ("*" if operand.prefix else ""))
    return " ".join(parts)


def _like_terms(text: str) -> list[str]:
    """Plain substrings for the LIKE fallback: the operands' text, or the raw text if there are none."""
    text = strip_surrogates(text or "")[:_MAX_QUERY_CHARS]
    terms = [
        token.text.strip()
        for token in _tokenize_query(text)
        if isinstance(token, _Operand) and token.text.strip()
    ]
    if not terms and text.strip():
        terms = [text.strip()]
    return [term[:200] for term in terms[:_MAX_LIKE_TERMS]]


def _like_escape(term: str) -> str:
    return "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _has_cjk(text: str) -> bool:
    return any(
        "\u3040" <= ch <= "\u30ff" or "\u3400" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" for ch in text
    )


def _make_snippet(text: str, term: str, width: int = 40) -> str:
    """A one-line window of `text` around the first case-insensitive occurrence of `term`, marked."""
    text = _collapse(text)
    pos = text.lower().find(term.lower()) if term else -1
    if pos < 0:
        return text[: width * 2] + ("…" if len(text) > width * 2 else "")
    start, end = max(0, pos - width), min(len(text), pos + len(term) + width)
    return (
        ("…" if start > 0 else "")
        + text[start:pos]
        + HIGHLIGHT_START
        + text[pos : pos + len(term)]
        + HIGHLIGHT_END
        + text[pos + len(term) : end]
        + ("…" if end < len(text) else "")
    )


# --------------------------------------------------------------------------------------------- store


class SessionStore:
    """Sessions, their messages, approvals and full-text search in one SQLite file (see the module doc)."""

    MIGRATIONS: ClassVar[list[Migration]] = MIGRATIONS

    def __init__(self, path: Path | str):
        self.path = Path(path).expanduser()
        self._lock = threading.RLock()
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not self.path.exists():
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            os.close(fd)
        conn = sqlite3.connect(
            str(self.path), timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        conn.row_factory = sqlite3.Row
        self._conn: sqlite3.Connection | None = conn
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            conn.execute("PRAGMA journal_mode = WAL")  # stays DELETE on filesystems without WAL support
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            self.schema_version = self._migrate()
        except BaseException:
            conn.close()
            self._conn = None
            raise
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            try:
                if side.exists():
                    os.chmod(side, 0o600)
            except OSError:
                pass

    # ---------------------------------------------------------------- plumbing

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise sqlite3.ProgrammingError("SessionStore is closed")
        return self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is None:
                return
            try:
                self._conn.execute("PRAGMA optimize")
            except sqlite3.Error:
                pass
            self._conn.close()
            self._conn = None

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A short write transaction (BEGIN IMMEDIATE ... COMMIT), rolled back on error."""
        with self._lock:
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _migrate(self) -> int:
        conn = self.conn
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version "
            "(version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)"
        )
        current = self._current_version()
        for version, migration in enumerate(self.MIGRATIONS, start=1):
            if version <= current:
                continue
            with self._write():
                if self._current_version() >= version:  # another process migrated meanwhile
                    continue
                migration(conn)
                conn.execute(
                    "INSERT INTO schema_version(version, applied_at) VALUES (?, ?)", (version, time.time())
                )
            current = version
        return max(current, self._current_version())

    def _current_version(self) -> int:
        row = self.conn.execute("SELECT max(version) FROM schema_version").fetchone()
        return int(row[0] or 0)

    def _unique_title(self, conn: sqlite3.Connection, title: str, exclude_id: str | None) -> str:
        """`title`, or `base #N` with the smallest free N >= 2 (case-insensitive), within 100 chars."""

        def taken(candidate: str) -> bool:
            row = conn.execute(
                "SELECT 1 FROM sessions WHERE title = ? COLLATE NOCASE AND id IS NOT ?",
                (candidate, exclude_id),
            ).fetchone()
            return row is not None

        if not taken(title):
            return title
        match = _TITLE_SUFFIX_RE.match(title)
        base, number = (match.group(1), int(match.group(2))) if match else (title, 1)
        number = max(number, 1) + 1
        while True:
            suffix = f" #{number}"
            candidate = base[: TITLE_MAX_CHARS - len(suffix)].rstrip() + suffix
            if not taken(candidate):
                return candidate
            number += 1

    # ---------------------------------------------------------------- sessions

    def create_session(
        self,
        *,
        model: str,
        provider: str,
        cwd: str,
        system_prompt: str,
        base_url: str = "",
        title: str | None = None,
        source: str = "tui",
        parent_session_id: str | None = None,
        parent_message_id: int | None = None,
    ) -> str:
        """Insert a new session (status 'active') and return its id."""
        now = time.time()
        clean = sanitize_title(title) if title else ""
        for _attempt in range(20):
            session_id = new_session_id(now)
            try:
                with self._write() as conn:
                    stored_title = self._unique_title(conn, clean, None) if clean else None
                    conn.execute(
                        "INSERT INTO sessions (id, title, model, provider, base_url, cwd, system_prompt, "
                        "parent_session_id, parent_message_id, source, created_at, updated_at, status) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active')",
                        (
                            session_id,
                            stored_title,
                            model,
                            provider,
                            base_url,
                            strip_surrogates(cwd),
                            strip_surrogates(system_prompt),
                            parent_session_id,
                            parent_message_id,
                            source,
                            now,
                            now,
                        ),
                    )
                return session_id
            except sqlite3.IntegrityError:
                if parent_session_id is not None and self.get_session(parent_session_id) is None:
                    raise KeyError(parent_session_id) from None
                continue  # id collision (same second, same 6 hex) or a title race: try again
        raise RuntimeError("could not allocate a session id")

    def get_session(self, session_id: str) -> SessionInfo | None:
        with self._lock:
            row = self.conn.execute(f"{_SESSION_SELECT} WHERE s.id = ?", (session_id,)).fetchone()
        return self._session_info(row) if row else None

    def list_sessions(self, limit: int = 100, offset: int = 0, cwd: str | None = None) -> list[SessionInfo]:
        """Sessions, most recently active first (`updated_at`), optionally only those started in `cwd`."""
        where, params = ("WHERE s.cwd = ?", [cwd]) if cwd is not None else ("", [])
        with self._lock:
            rows = self.conn.execute(
                f"{_SESSION_SELECT} {where} ORDER BY s.updated_at DESC, s.created_at DESC, s.id DESC "
                "LIMIT ? OFFSET ?",
                [*params, max(0, limit), max(0, offset)],
            ).fetchall()
        return [self._session_info(row) for row in rows]

    def latest_session(self, cwd: str | None = None) -> SessionInfo | None:
        sessions = self.list_sessions(limit=1, cwd=cwd)
        return sessions[0] if sessions else None

    def resolve(self, id_or_title: str) -> SessionInfo | None:
        """Exact id, else exact title (case-insensitive), else a prefix matching exactly one id."""
        key = (id_or_title or "").strip()
        if not key:
            return None
        with self._lock:
            conn = self.conn
            found = self.get_session(key)
            if found:
                return found
            row = conn.execute("SELECT id FROM sessions WHERE title = ? COLLATE NOCASE", (key,)).fetchone()
            if row:
                return self.get_session(row[0])
            rows = conn.execute(
                "SELECT id FROM sessions WHERE substr(id, 1, ?) = ? LIMIT 2", (len(key), key)
            ).fetchall()
            if len(rows) == 1:
                return self.get_session(rows[0][0])
        return None

    def set_title(self, session_id: str, title: str) -> str:
        """Sanitize and store a title, made unique with ' #2', ' #3'...; returns the stored title.

        A title that sanitizes to '' clears it (NULL) and returns ''. KeyError for an unknown session."""
        clean = sanitize_title(title)
        for _attempt in range(5):
            try:
                with self._write() as conn:
                    stored = self._unique_title(conn, clean, session_id) if clean else None
                    cur = conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (stored, session_id))
                    if cur.rowcount == 0:
                        raise KeyError(session_id)
                return stored or ""
            except sqlite3.IntegrityError:
                continue  # another process took the title between the check and the write
        raise RuntimeError(f"could not store a unique title for {session_id}")

    def set_status(self, session_id: str, status: str) -> None:
        if status not in SESSION_STATUSES:
            raise ValueError(f"unknown session status {status!r}; expected one of {sorted(SESSION_STATUSES)}")
        with self._write() as conn:
            cur = conn.execute("UPDATE sessions SET status = ? WHERE id = ?", (status, session_id))
            if cur.rowcount == 0:
                raise KeyError(session_id)

    def add_usage(
        self,
        session_id: str,
        *,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        reasoning_tokens: int = 0,
        api_calls: int = 0,
        cost_usd: float = 0.0,
        duration_s: float = 0.0,
    ) -> None:
        """Add to the session's counters (the per-message token columns are separate and not summed here)."""
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, "
                "cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?, "
                "reasoning_tokens = reasoning_tokens + ?, api_call_count = api_call_count + ?, "
                "cost_usd = cost_usd + ?, duration_s = duration_s + ?, updated_at = ? WHERE id = ?",
                (
                    int(input_tokens),
                    int(output_tokens),
                    int(cache_read_tokens),
                    int(cache_write_tokens),
                    int(reasoning_tokens),
                    int(api_calls),
                    float(cost_usd),
                    float(duration_s),
                    time.time(),
                    session_id,
                ),
            )
            if cur.rowcount == 0:
                raise KeyError(session_id)

    def delete_session(self, session_id: str) -> None:
        """Delete a session with its messages (and their FTS rows) and approvals; children keep living with
        `parent_session_id` set to NULL. Unknown ids are ignored."""
        with self._write() as conn:
            conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def branch(self, session_id: str, up_to_seq: int, title: str | None = None) -> str:
        """A new session with the original's settings and system prompt and copies of its messages with
        seq <= up_to_seq (same seqs), `parent_session_id` = the original and `parent_message_id` = the last
        copied message. Token/cost counters start at zero. Without a title, an original title gets the next
        ' #N'. The original is untouched."""
        original = self.get_session(session_id)
        if original is None:
            raise KeyError(session_id)
        now = time.time()
        wanted = sanitize_title(title) if title else (original.title or "")
        for _attempt in range(20):
            new_id = new_session_id(now)
            try:
                with self._write() as conn:
                    stored_title = self._unique_title(conn, wanted, None) if wanted else None
                    last = conn.execute(
                        "SELECT id FROM messages WHERE session_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1",
                        (session_id, up_to_seq),
                    ).fetchone()
                    conn.execute(
                        "INSERT INTO sessions (id, title, model, provider, base_url, cwd, system_prompt, "
                        "parent_session_id, parent_message_id, source, created_at, updated_at, status) "
                        "SELECT ?, ?, model, provider, base_url, cwd, system_prompt, id, ?, source, ?, ?, "
                        "'active' FROM sessions WHERE id = ?",
                        (new_id, stored_title, last[0] if last else None, now, now, session_id),
                    )
                    conn.execute(
                        f"INSERT INTO messages (session_id, {_MESSAGE_DATA_COLUMNS}) "
                        f"SELECT ?, {_MESSAGE_DATA_COLUMNS} FROM messages "
                        "WHERE session_id = ? AND seq <= ? ORDER BY seq",
                        (new_id, session_id, up_to_seq),
                    )
                    conn.execute(
                        "UPDATE sessions SET "
                        "message_count = (SELECT count(*) FROM messages WHERE session_id = ?), "
                        "tool_call_count = (SELECT coalesce(sum(CASE WHEN json_valid(tool_calls) "
                        "THEN json_array_length(tool_calls) ELSE 0 END), 0) "
                        "FROM messages WHERE session_id = ?) WHERE id = ?",
                        (new_id, new_id, new_id),
                    )
                return new_id
            except sqlite3.IntegrityError:
                continue
        raise RuntimeError("could not allocate a session id")

    # ---------------------------------------------------------------- messages

    def append_message(self, session_id: str, message: Message) -> int:
        """Insert `message` as the next seq of the session, set `message.id`, bump the session's
        message_count / tool_call_count / updated_at; committed before returning. Raises KeyError for an
        unknown session."""
        now = time.time()
        usage = message.usage
        tool_calls = _json_dumps([tc.to_dict() for tc in message.tool_calls]) if message.tool_calls else None
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE sessions SET message_count = message_count + 1, "
                "tool_call_count = tool_call_count + ?, updated_at = ? WHERE id = ?",
                (len(message.tool_calls), now, session_id),
            )
            if cur.rowcount == 0:
                raise KeyError(session_id)
            seq = conn.execute(
                "SELECT coalesce(max(seq), -1) + 1 FROM messages WHERE session_id = ?", (session_id,)
            ).fetchone()[0]
            cur = conn.execute(
                _MESSAGE_INSERT,
                (
                    session_id,
                    seq,
                    message.role,
                    strip_surrogates(message.content or ""),
                    _opt(message.reasoning),
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
                    _json_dumps(message.meta) if message.meta else None,
                ),
            )
            message.id = int(cur.lastrowid)
        return message.id

    def checkpoint_partial(self, message_id: int, content: str, reasoning: str | None) -> None:
        """Store the text streamed so far into a partial assistant row (it stays partial). Ignored when the
        row is gone or already completed, so a late checkpoint never overwrites a final reply."""
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE messages SET content = ?, reasoning = ? WHERE id = ? AND partial = 1",
                (strip_surrogates(content or ""), _opt(reasoning), message_id),
            )
            if cur.rowcount:
                conn.execute(
                    "UPDATE sessions SET updated_at = ? "
                    "WHERE id = (SELECT session_id FROM messages WHERE id = ?)",
                    (time.time(), message_id),
                )

    def update_message(self, message: Message) -> None:
        """Rewrite row `message.id` (content, reasoning, tool calls, tool ids, finish reason, tokens, meta)
        and mark it complete (`partial = 0`; `message.partial` is set to False). The session's
        tool_call_count follows a change in the number of tool calls. KeyError if the row does not exist."""
        if message.id is None:
            raise ValueError("update_message needs a persisted message (message.id is None)")
        usage = message.usage
        tool_calls = _json_dumps([tc.to_dict() for tc in message.tool_calls]) if message.tool_calls else None
        with self._write() as conn:
            row = conn.execute(
                "SELECT session_id, tool_calls FROM messages WHERE id = ?", (message.id,)
            ).fetchone()
            if row is None:
                raise KeyError(message.id)
            old_calls = len(_json_loads(row["tool_calls"], []))
            conn.execute(
                "UPDATE messages SET content = ?, reasoning = ?, tool_calls = ?, tool_call_id = ?, "
                "tool_name = ?, finish_reason = ?, prompt_tokens = ?, completion_tokens = ?, "
                "cache_read_tokens = ?, cache_write_tokens = ?, reasoning_tokens = ?, partial = 0, meta = ? "
                "WHERE id = ?",
                (
                    strip_surrogates(message.content or ""),
                    _opt(message.reasoning),
                    tool_calls,
                    message.tool_call_id,
                    message.tool_name,
                    message.finish_reason,
                    usage.prompt_tokens if usage else None,
                    usage.completion_tokens if usage else None,
                    usage.cache_read_tokens if usage else None,
                    usage.cache_write_tokens if usage else None,
                    usage.reasoning_tokens if usage else None,
                    _json_dumps(message.meta) if message.meta else None,
                    message.id,
                ),
            )
            conn.execute(
                "UPDATE sessions SET tool_call_count = tool_call_count + ?, updated_at = ? WHERE id = ?",
                (len(message.tool_calls) - old_calls, time.time(), row["session_id"]),
            )
        message.partial = False

    def load(self, session_id: str) -> LoadedSession:
        """The session and all its messages in seq order; KeyError for an unknown id.

        The transcript is returned exactly as stored: a row still marked partial (a crash while streaming)
        comes back with `Message.partial = True`, and an assistant message whose tool calls have no tool
        results (a crash during tool execution) is returned as-is. Loading never modifies the database; the
        loop's wire sanitizer adds stub results for unanswered tool calls before the next request.
        """
        with self._lock:
            info = self.get_session(session_id)
            if info is None:
                raise KeyError(session_id)
            rows = self.conn.execute(
                f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
            ).fetchall()
        return LoadedSession(info, [self._message(row) for row in rows], [int(row["seq"]) for row in rows])

    def load_messages(self, session_id: str, start_seq: int = 0, end_seq: int | None = None) -> list[Message]:
        """Messages with start_seq <= seq < end_seq (all to the end when end_seq is None), in seq order: for
        re-mounting a slice of a long transcript."""
        with self._lock:
            rows = self.conn.execute(
                f"SELECT {_MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND seq >= ? "
                "AND (? IS NULL OR seq < ?) ORDER BY seq",
                (session_id, start_seq, end_seq, end_seq),
            ).fetchall()
        return [self._message(row) for row in rows]

    # ---------------------------------------------------------------- approvals

    def record_approval(self, session_id: str, command: str, reasons: list[str], decision: str) -> None:
        try:
            with self._write() as conn:
                conn.execute(
                    "INSERT INTO approvals (session_id, command, reasons, decision, created_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (
                        session_id,
                        strip_surrogates(command),
                        _json_dumps(list(reasons)),
                        decision,
                        time.time(),
                    ),
                )
        except sqlite3.IntegrityError:
            raise KeyError(session_id) from None

    def approvals(self, session_id: str) -> list[dict[str, Any]]:
        """Approval decisions of a session, oldest first: dicts with id, session_id, command, reasons (list),
        decision, created_at."""
        with self._lock:
            rows = self.conn.execute(
                "SELECT id, session_id, command, reasons, decision, created_at FROM approvals "
                "WHERE session_id = ? ORDER BY id",
                (session_id,),
            ).fetchall()
        return [{**dict(row), "reasons": _json_loads(row["reasons"], [])} for row in rows]

    # ---------------------------------------------------------------- search

    def search(
        self, query: str, limit: int = 20, offset: int = 0, session_id: str | None = None
    ) -> list[SearchHit]:
        """Full-text search over message content, tool names and tool-call arguments, best (bm25) first.

        Accepts any user text and never raises on it: the text is translated by `build_fts_query()` (plain
        words ANDed, "phrases", OR / NOT between terms, trailing * prefixes). When that yields nothing
        searchable (only punctuation or emoji), when FTS5 still rejects it, or when a CJK query finds nothing
        (the tokenizer does not split CJK runs), a LIKE substring search is used instead (rank 0.0, newest
        first). Empty or blank query -> [].
        """
        if not query or not query.strip() or limit <= 0:
            return []
        offset = max(0, offset)
        fts = build_fts_query(query)
        if fts:
            try:
                hits = self._fts_search(fts, limit, offset, session_id)
            except sqlite3.Error:
                hits = None
            if hits is not None and (hits or offset or not _has_cjk(query)):
                return hits
        try:
            return self._like_search(query, limit, offset, session_id)
        except sqlite3.Error:
            return []

    def _fts_search(self, fts: str, limit: int, offset: int, session_id: str | None) -> list[SearchHit]:
        """Rank with bm25 among the newest RANK_CANDIDATES matches, then build snippets for the page only.

        bm25 has to score every matching row; a word that half the history contains (50,000+ rows) made a
        ranked query take ~300 ms. Bounding the candidates to the newest matches keeps a search under ~50 ms
        at 500,000 messages and favours recent work, which is what someone searching usually wants; rare
        words (the common case for a search) have fewer matches than the bound and are ranked exactly.
        """
        where = "messages_fts MATCH ?"
        params: list[Any] = [fts]
        if session_id is not None:
            where += " AND messages_fts.rowid IN (SELECT id FROM messages WHERE session_id = ?)"
            params.append(session_id)
        with self._lock:
            floor_row = self.conn.execute(
                f"SELECT messages_fts.rowid FROM messages_fts WHERE {where} "
                "ORDER BY messages_fts.rowid DESC LIMIT 1 OFFSET ?",
                [*params, RANK_CANDIDATES - 1],
            ).fetchone()
            if floor_row is not None:
                where += " AND messages_fts.rowid >= ?"
                params.append(floor_row[0])
            rows = self.conn.execute(
                "SELECT m.session_id, m.id, m.seq, m.role, "
                f"snippet(messages_fts, -1, char(2), char(3), '…', {SNIPPET_TOKENS}) AS snippet, "
                "s.title, m.tool_name, bm25(messages_fts) AS score, m.created_at "
                "FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid "
                "JOIN sessions s ON s.id = m.session_id "
                f"WHERE {where} ORDER BY score, m.id DESC LIMIT ? OFFSET ?",
                [*params, limit, offset],
            ).fetchall()
        hits = [
            SearchHit(
                session_id=row[0],
                message_id=row[1],
                seq=row[2],
                role=row[3],
                snippet=_collapse(row[4] or ""),
                session_title=row[5],
                tool_name=row[6],
                rank=float(row[7]),
                created_at=row[8],
            )
            for row in rows
        ]
        return hits

    def _like_search(self, query: str, limit: int, offset: int, session_id: str | None) -> list[SearchHit]:
        terms = _like_terms(query)
        if not terms:
            return []
        clauses: list[str] = []
        params: list[Any] = []
        for term in terms:
            pattern = _like_escape(term)
            clauses.append(
                "(m.content LIKE ? ESCAPE '\\' OR coalesce(m.tool_name, '') LIKE ? ESCAPE '\\' "
                "OR coalesce(m.tool_calls, '') LIKE ? ESCAPE '\\')"
            )
            params += [pattern, pattern, pattern]
        if session_id is not None:
            clauses.append("m.session_id = ?")
            params.append(session_id)
        with self._lock:
            rows = self.conn.execute(
                "SELECT m.session_id, m.id, m.seq, m.role, m.content, s.title, m.tool_name, m.tool_calls, "
                "m.created_at FROM messages m JOIN sessions s ON s.id = m.session_id "
                f"WHERE {' AND '.join(clauses)} ORDER BY m.created_at DESC, m.id DESC LIMIT ? OFFSET ?",
                [*params, limit, offset],
            ).fetchall()
        hits = []
        for row in rows:
            content = row[4] or ""
            source = next(
                (text for text in (content, row[6] or "", row[7] or "") if terms[0].lower() in text.lower()),
                content,
            )
            hits.append(
                SearchHit(
                    session_id=row[0],
                    message_id=row[1],
                    seq=row[2],
                    role=row[3],
                    snippet=_make_snippet(source, terms[0]),
                    session_title=row[5],
                    tool_name=row[6],
                    rank=0.0,
                    created_at=row[8],
                )
            )
        return hits

    # ---------------------------------------------------------------- row conversion

    @staticmethod
    def _session_info(row: sqlite3.Row) -> SessionInfo:
        values = {name: row[name] for name in _SESSION_FIELDS}
        return SessionInfo(**values, preview=_preview(row["preview"]))

    @staticmethod
    def _message(row: sqlite3.Row) -> Message:
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
        calls = _json_loads(row["tool_calls"], [])
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
            meta=_json_loads(row["meta"], {}),
        )

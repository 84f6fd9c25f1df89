"""The store's schema and its migrations.

`MIGRATIONS` is a list of functions: migration *i* (0-based) brings the schema to version *i + 1*;
`schema_version` records the versions applied. Each migration runs in its own transaction (SQLite DDL is
transactional: a failing migration leaves the file at the previous version). Adding version 2 means
appending one function to `MIGRATIONS`; never edit a released one. A migration runs inside a transaction:
execute statements one by one (never `executescript`, which commits).

Full-text search: `messages_fts` (an FTS5 table holding its own copy of the text, keyed by `messages.id`)
indexes each message's content, its tool name and the names + argument values of its tool calls. INSERT,
DELETE and UPDATE triggers on `messages` keep it in sync (an UPDATE of content during streaming replaces the
row).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

__all__ = ["MIGRATIONS", "Migration", "tool_args_sql"]


def tool_args_sql(ref: str) -> str:
    """SQL text, evaluated in a trigger (or a query), giving the searchable text of `<ref>.tool_calls`.

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
    VALUES (new.id, coalesce(new.content, ''), coalesce(new.tool_name, ''), {tool_args_sql("new")});"""

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


def _migrate_v2(conn: sqlite3.Connection) -> None:
    """Version 2: `search_terms`, every token the FTS index holds, so that a prefix search becomes an OR of
    exact terms (FTS5 merges the whole doclist of a prefix before it returns anything: 13 ms for a word in
    60% of 500,000 messages, against 0.3 ms for the exact words). Triggers note each written message in
    `search_terms_pending`; the store tokenizes those before a search (`agent/store/vocabulary.py`). Triggers
    fire whatever code writes the file, so an older version writing to it never leaves a term out. The row
    `id = 0` in `search_terms_pending` asks for a rebuild from the index itself (existing messages)."""
    conn.execute("CREATE TABLE search_terms (term TEXT PRIMARY KEY) WITHOUT ROWID")
    conn.execute("CREATE TABLE search_terms_pending (id INTEGER PRIMARY KEY)")
    for name, event in (("ai", "INSERT"), ("au", "UPDATE OF content, tool_name, tool_calls")):
        conn.execute(
            f"CREATE TRIGGER search_terms_{name} AFTER {event} ON messages BEGIN "
            "INSERT OR IGNORE INTO search_terms_pending(id) VALUES (new.id); END"
        )
    conn.execute("INSERT INTO search_terms_pending(id) VALUES (0)")


def _migrate_v3(conn: sqlite3.Connection) -> None:
    """Version 3: what each model call used and cost (`usage`, one row per call, `cost_usd` NULL when the
    price is unknown, so a report can say "?" instead of a wrong $0), the count of unpriced calls per
    session, and where an imported session came from (`origin`, e.g. `hermes:<id>`: resuming a Hermes
    session twice finds its copy by it)."""
    conn.execute(
        """CREATE TABLE usage (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        message_id INTEGER,
        created_at REAL NOT NULL,
        model TEXT NOT NULL DEFAULT '',
        provider TEXT NOT NULL DEFAULT '',
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        cache_read_tokens INTEGER NOT NULL DEFAULT 0,
        cache_write_tokens INTEGER NOT NULL DEFAULT 0,
        reasoning_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL,
        cost_source TEXT NOT NULL DEFAULT 'unknown'
    )"""
    )
    conn.execute("CREATE INDEX idx_usage_created ON usage(created_at)")
    conn.execute("CREATE INDEX idx_usage_session ON usage(session_id)")
    conn.execute("ALTER TABLE sessions ADD COLUMN cost_unknown_calls INTEGER NOT NULL DEFAULT 0")
    conn.execute("ALTER TABLE sessions ADD COLUMN origin TEXT")
    conn.execute("CREATE UNIQUE INDEX idx_sessions_origin ON sessions(origin) WHERE origin IS NOT NULL")


def _migrate_turn_exits(conn: sqlite3.Connection) -> None:
    """Why each turn ended: `turns`, one row per turn (the exit reason in Hermes' vocabulary,
    `agent.core.exit_reasons.stored_name`; the line the user was shown when it did not complete; the turn's
    model calls; the user message that started it), and the last one on the session row
    (`sessions.exit_reason`) so lists and the preview header need no join. Its version is its place in
    `MIGRATIONS` (named, not numbered: it follows whatever main's highest was when it landed)."""
    conn.execute(
        """CREATE TABLE turns (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        user_message_id INTEGER,
        exit_reason TEXT NOT NULL,
        detail TEXT,
        api_calls INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL
    )"""
    )
    conn.execute("CREATE INDEX idx_turns_session ON turns(session_id, id)")
    conn.execute("ALTER TABLE sessions ADD COLUMN exit_reason TEXT")


def _migrate_modes_and_rewinds(conn: sqlite3.Connection) -> None:
    """The session's permission mode (`sessions.permission_mode`: `plan`, `ask`, `default`, `yolo`; NULL
    when never set, so the configured default applies on resume) and rewinds (`messages.rewound_at`: when
    a rewind took the message out of the model's context; NULL while it is live). A rewound message stays
    in the file and in the search index: nothing the user wrote is lost, and `Ctrl+R` still finds it."""
    conn.execute("ALTER TABLE sessions ADD COLUMN permission_mode TEXT")
    conn.execute("ALTER TABLE messages ADD COLUMN rewound_at REAL")


Migration = Callable[[sqlite3.Connection], None]

# MIGRATIONS[i] brings the schema from version i to version i + 1. Append, never edit a released one.
MIGRATIONS: list[Migration] = [
    _migrate_v1,
    _migrate_v2,
    _migrate_v3,
    _migrate_turn_exits,
    _migrate_modes_and_rewinds,
]

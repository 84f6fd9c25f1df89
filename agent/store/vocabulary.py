"""`search_terms`: the tokens of the FTS index, kept current, so prefix searches can use exact terms.

Why: FTS5 answers `"migration"*` by merging the doclists of every term with that prefix into one buffer
before it returns a single row, so a prefix of a common word costs as much as reading all its matches
(13 ms at 500,000 messages, whatever the LIMIT), while `"migration" OR "migrations"` walks the doclists
lazily (0.3 ms). Search as you type makes the last word of nearly every query a prefix.

How it stays correct: the schema's triggers note every inserted or updated message in
`search_terms_pending`; `refresh()` tokenizes those rows (with `agent.store.query.tokens`, which reproduces
the FTS tokenizer exactly) or, after a bulk load or an upgrade, rebuilds the table from the index itself.
Terms of deleted messages stay: an expansion that matches nothing costs nothing. When the table cannot be
trusted (the refresh failed), prefixes are left to FTS5.
"""

from __future__ import annotations

import sqlite3

from agent.store.core import StoreBase
from agent.store.query import tokens

__all__ = ["MAX_EXPANSION", "expand_prefix", "refresh"]

MAX_EXPANSION = 64
"""A prefix with more terms than this is left to FTS5 (an OR of hundreds of terms is no faster)."""
REBUILD_AT = 2_000
"""With more pending messages than this, rebuilding from the index is cheaper than tokenizing them."""


def refresh(store: StoreBase) -> bool:
    """Bring `search_terms` up to date with the index; False when that was not possible."""
    try:
        with store._lock:
            if store.conn.execute("SELECT 1 FROM search_terms_pending LIMIT 1").fetchone() is None:
                return True
            with store._write() as conn:
                ids = [
                    row[0]
                    for row in conn.execute(
                        "SELECT id FROM search_terms_pending ORDER BY id LIMIT ?", (REBUILD_AT + 1,)
                    )
                ]
                if not ids:
                    return True
                if ids[0] == 0 or len(ids) > REBUILD_AT:
                    conn.execute(
                        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.messages_fts_terms "
                        "USING fts5vocab(main, messages_fts, row)"
                    )
                    conn.execute(
                        "INSERT OR IGNORE INTO search_terms SELECT term FROM temp.messages_fts_terms"
                    )
                    conn.execute("DELETE FROM search_terms_pending")
                    return True
                marks = ", ".join("?" * len(ids))
                found: set[str] = set()
                for row in conn.execute(
                    f"SELECT content, tool_name, tool_args FROM messages_fts WHERE rowid IN ({marks})", ids
                ):
                    for text in row:
                        if text:
                            found.update(tokens(text))
                conn.executemany("INSERT OR IGNORE INTO search_terms(term) VALUES (?)", [(t,) for t in found])
                conn.execute(f"DELETE FROM search_terms_pending WHERE id IN ({marks})", ids)
        return True
    except sqlite3.Error:
        return False


def expand_prefix(conn: sqlite3.Connection, prefix: str) -> list[str] | None:
    """The indexed terms starting with `prefix` (folded), or None when there are too many to list."""
    if not prefix or ord(prefix[-1]) >= 0x10FFFF:
        return None
    following = ord(prefix[-1]) + 1
    if 0xD800 <= following <= 0xDFFF:
        following = 0xE000  # no text holds a lone surrogate
    upper = prefix[:-1] + chr(following)  # terms compare by code point (UTF-8 byte order)
    rows = conn.execute(
        "SELECT term FROM search_terms WHERE term >= ? AND term < ? LIMIT ?",
        (prefix, upper, MAX_EXPANSION + 1),
    ).fetchall()
    if len(rows) > MAX_EXPANSION:
        return None
    return [row[0] for row in rows]

"""`HermesHistory`: the sessions Hermes Agent recorded in `$HERMES_HOME/state.db`, read-only.

Listing, one session, its messages (a slice at a time, for the preview), resolving an id, prefix or title,
and search with the app's one query language (`agent.store.query`): Hermes' `messages_fts` narrows the
candidates when the query has words, its trigram table when it has only substrings (CJK, emoji) of three
characters or more, a LIKE scan otherwise; `SearchQuery.matches()` then decides, exactly as for our own
messages, and hits are ranked and excerpted by the store's own code. Every call opens its own read-only
connection (see `db.py`) and raises `HermesHistoryError` with one line when the file cannot be read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from agent.core.messages import Message
from agent.core.user_paths import expand_user
from agent.store.hermes.db import HermesSchema, open_readonly, read_schema
from agent.store.hermes.rows import (
    active_clause,
    content_text,
    listable_clause,
    message_from_row,
    message_select,
    session_from_row,
    session_select,
    tool_args_text,
    tool_calls_from_json,
)
from agent.store.query import Or, SearchQuery, parse
from agent.store.records import HERMES_PREFIX, LoadedSession, SearchHit, SessionInfo
from agent.store.search import Candidate, like_filter, make_snippet, rank_candidates

__all__ = ["HermesHistory"]

SCAN_LIMIT = 5_000
"""Candidate rows a search looks at, newest first."""


def raw_id(session_id: str) -> str:
    """Hermes' own id of `hermes:<id>` (an id without the prefix is returned as it is)."""
    return session_id[len(HERMES_PREFIX) :] if session_id.startswith(HERMES_PREFIX) else session_id


class HermesHistory:
    """Hermes' `state.db` at `path`, read-only. Thread-safe: nothing is shared between calls."""

    def __init__(self, path: Path | str) -> None:
        self.path = expand_user(path)

    # ------------------------------------------------------------------ plumbing

    @contextmanager
    def _open(self) -> Iterator[tuple[sqlite3.Connection, HermesSchema]]:
        with open_readonly(self.path) as conn:
            yield conn, read_schema(conn, self.path)

    def check(self) -> HermesSchema:
        """The file's schema; `HermesHistoryError` (one line) when it cannot be read."""
        with self._open() as (_conn, schema):
            return schema

    # ------------------------------------------------------------------ sessions

    def list_sessions(self, limit: int = 100, offset: int = 0, cwd: str | None = None) -> list[SessionInfo]:
        """The sessions Hermes' picker lists, most recently active first."""
        with self._open() as (conn, schema):
            where = listable_clause(schema)
            params: list[object] = []
            if cwd is not None and schema.has("sessions", "cwd"):
                where += " AND s.cwd = ?"
                params.append(cwd)
            rows = conn.execute(
                f"SELECT * FROM ({session_select(schema)} WHERE {where}) "
                "ORDER BY coalesce(last_active, ended_at, started_at) DESC, id DESC LIMIT ? OFFSET ?",
                [*params, max(0, limit), max(0, offset)],
            ).fetchall()
            return [session_from_row(row) for row in rows]

    def get_session(self, session_id: str) -> SessionInfo | None:
        with self._open() as (conn, schema):
            row = conn.execute(
                f"{session_select(schema, system_prompt=True)} WHERE s.id = ?", (raw_id(session_id),)
            ).fetchone()
            return session_from_row(row) if row is not None else None

    def resolve(self, key: str) -> SessionInfo | None:
        """Exact id (with or without `hermes:`), else exact title (case-insensitive), else a unique id
        prefix."""
        key = raw_id((key or "").strip())
        if not key:
            return None
        found = self.get_session(key)
        if found is not None:
            return found
        with self._open() as (conn, schema):
            if schema.has("sessions", "title"):
                row = conn.execute(
                    "SELECT id FROM sessions WHERE title = ? COLLATE NOCASE", (key,)
                ).fetchone()
                if row is not None:
                    return self.get_session(row[0])
            rows = conn.execute(
                "SELECT id FROM sessions WHERE substr(id, 1, ?) = ? LIMIT 2", (len(key), key)
            ).fetchall()
            if len(rows) == 1:
                return self.get_session(rows[0][0])
        return None

    # ------------------------------------------------------------------ messages

    def load_messages(self, session_id: str, start_seq: int = 0, end_seq: int | None = None) -> list[Message]:
        """Messages `start_seq <= seq < end_seq` (seq = position among the messages Hermes shows)."""
        with self._open() as (conn, schema):
            count = -1 if end_seq is None else max(0, end_seq - max(0, start_seq))
            rows = conn.execute(
                f"{message_select(schema)} WHERE m.session_id = ?{active_clause(schema)} "
                "ORDER BY m.id LIMIT ? OFFSET ?",
                (raw_id(session_id), count, max(0, start_seq)),
            ).fetchall()
            return [message_from_row(row) for row in rows]

    def load(self, session_id: str) -> LoadedSession:
        """The session and its whole transcript; KeyError for an unknown id."""
        info = self.get_session(session_id)
        if info is None:
            raise KeyError(session_id)
        messages = self.load_messages(session_id)
        return LoadedSession(info, messages, list(range(len(messages))))

    # ------------------------------------------------------------------ search

    def iter_search(
        self,
        query: str | SearchQuery,
        *,
        page_size: int = 50,
        limit: int = 200,
        session_id: str | None = None,
        skip_sessions: Callable[[], set[str]] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Iterator[list[SearchHit]]:
        """Hits in pages, best first (ranked when the words decide, else newest first). `skip_sessions`
        names Hermes ids (without the prefix) whose hits are not wanted (sessions already copied)."""
        parsed = query if isinstance(query, SearchQuery) else parse(query or "")
        if parsed.is_empty or limit <= 0:
            return
        hits = self._search(parsed, limit, session_id, skip_sessions() if skip_sessions else set(), cancelled)
        for at in range(0, len(hits), max(1, page_size)):
            if cancelled is not None and cancelled():
                return
            yield hits[at : at + page_size]

    def search(
        self, query: str | SearchQuery, limit: int = 20, session_id: str | None = None
    ) -> list[SearchHit]:
        return [hit for page in self.iter_search(query, limit=limit, session_id=session_id) for hit in page]

    def _search(
        self,
        query: SearchQuery,
        limit: int,
        session_id: str | None,
        skip: set[str],
        cancelled: Callable[[], bool] | None,
    ) -> list[SearchHit]:
        with self._open() as (conn, schema):
            if cancelled is not None:
                conn.set_progress_handler(lambda: 1 if cancelled() else 0, 2_000)
            try:
                rows = self._candidates(conn, schema, query, session_id)
            except sqlite3.OperationalError:
                if cancelled is not None and cancelled():
                    return []
                rows = self._candidates(conn, schema, query, session_id, narrow=False)
            candidates: list[Candidate] = []
            where: dict[int, sqlite3.Row] = {}
            for row in rows:
                if row["session_id"] in skip:
                    continue
                calls = tool_calls_from_json(row["tool_calls"])
                fields = (content_text(row["content"]), row["tool_name"] or "", tool_args_text(calls))
                if query.matches(*fields):
                    candidates.append(Candidate(int(row["id"]), fields))
                    where[int(row["id"])] = row
            if query.exact:
                rank_candidates(query, candidates)
            candidates = candidates[:limit]
            return [self._hit(conn, schema, query, c, where[c.id]) for c in candidates]

    def _candidates(
        self,
        conn: sqlite3.Connection,
        schema: HermesSchema,
        query: SearchQuery,
        session_id: str | None,
        narrow: bool = True,
    ) -> list[sqlite3.Row]:
        """Rows that may match, newest first: narrowed by Hermes' FTS tables, else by LIKE."""
        conditions = [f"1{active_clause(schema)}"]
        params: list[object] = []
        if session_id is not None:
            conditions.append("m.session_id = ?")
            params.append(raw_id(session_id))
        fts = query.to_fts5() if narrow and schema.fts else ""
        trigram = _trigram_expression(query) if narrow and not fts and schema.trigram else ""
        if fts:
            conditions.append("m.id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?)")
            params.append(fts)
        elif trigram:
            conditions.append(
                "m.id IN (SELECT rowid FROM messages_fts_trigram WHERE messages_fts_trigram MATCH ?)"
            )
            params.append(trigram)
        else:
            tool_calls = "m.tool_calls" if schema.has("messages", "tool_calls") else "''"
            tool_name = "m.tool_name" if schema.has("messages", "tool_name") else "''"
            assert query.root is not None
            like = like_filter(query.root, ("m.content", tool_name, tool_calls))
            if like is not None:
                conditions.append(like[0])
                params += like[1]
        columns = "m.session_id AS session_id, " + message_select(schema)[len("SELECT ") :]
        sql = f"SELECT {columns} WHERE {' AND '.join(conditions)} ORDER BY m.id DESC LIMIT ?"
        return conn.execute(sql, [*params, SCAN_LIMIT]).fetchall()

    def _hit(
        self,
        conn: sqlite3.Connection,
        schema: HermesSchema,
        query: SearchQuery,
        found: Candidate,
        row: sqlite3.Row,
    ) -> SearchHit:
        sid = row["session_id"]
        seq = conn.execute(
            f"SELECT count(*) FROM messages m WHERE m.session_id = ? AND m.id < ?{active_clause(schema)}",
            (sid, found.id),
        ).fetchone()[0]
        title = None
        if schema.has("sessions", "title"):
            title_row = conn.execute("SELECT title FROM sessions WHERE id = ?", (sid,)).fetchone()
            title = title_row[0] if title_row is not None else None
        return SearchHit(
            session_id=HERMES_PREFIX + str(sid),
            message_id=found.id,
            seq=int(seq),
            role=row["role"],
            snippet=make_snippet(query, found.fields),
            session_title=title,
            tool_name=row["tool_name"],
            rank=found.rank,
            created_at=float(row["timestamp"] or 0.0),
        )

    # ------------------------------------------------------------------ usage

    def usage_sessions(self, since: float) -> list[SessionInfo]:
        """Every session (listed or not: subagents cost money too) started since `since`, for the usage
        report."""
        with self._open() as (conn, schema):
            rows = conn.execute(
                f"{session_select(schema)} WHERE s.started_at >= ? ORDER BY s.started_at", (since,)
            ).fetchall()
            return [session_from_row(row) for row in rows]


def _trigram_expression(query: SearchQuery) -> str:
    """A trigram MATCH for a query of substrings only (CJK, emoji) when every positive one has three or
    more characters and they are all required (ANDed); '' otherwise."""
    terms = query.positive_terms()
    if not terms or any(negated for _term, negated in query.all_terms()):
        return ""
    if not all(term.substring and len(term.text) >= 3 for term in terms) or isinstance(query.root, Or):
        return ""
    return " AND ".join('"' + term.text.replace('"', '""') + '"' for term in terms)

"""Session rows: create, find, list, rename, count usage, delete, branch."""

from __future__ import annotations

import sqlite3
import time

import agent.store.records as records
from agent.core.messages import strip_surrogates
from agent.store.core import StoreBase
from agent.store.records import (
    MESSAGE_DATA_COLUMNS,
    SESSION_SELECT,
    SESSION_STATUSES,
    TITLE_MAX_CHARS,
    TITLE_SUFFIX_RE,
    USER_CONVERSATION,
    SessionInfo,
    sanitize_title,
    session_info,
)
from agent.store.search import like_pattern

__all__ = ["SessionsMixin", "unique_title"]


def unique_title(conn: sqlite3.Connection, title: str, exclude_id: str | None) -> str:
    """`title`, or `base #N` with the smallest free N >= 2 (case-insensitive), within 100 chars."""

    def taken(candidate: str) -> bool:
        row = conn.execute(
            "SELECT 1 FROM sessions WHERE title = ? COLLATE NOCASE AND id IS NOT ?",
            (candidate, exclude_id),
        ).fetchone()
        return row is not None

    if not taken(title):
        return title
    match = TITLE_SUFFIX_RE.match(title)
    base, number = (match.group(1), int(match.group(2))) if match else (title, 1)
    number = max(number, 1) + 1
    while True:
        suffix = f" #{number}"
        candidate = base[: TITLE_MAX_CHARS - len(suffix)].rstrip() + suffix
        if not taken(candidate):
            return candidate
        number += 1


class SessionsMixin(StoreBase):
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
            session_id = records.new_session_id(now)
            try:
                with self._write() as conn:
                    stored_title = unique_title(conn, clean, None) if clean else None
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

    def list_sessions(self, limit: int = 100, offset: int = 0, cwd: str | None = None) -> list[SessionInfo]:
        """Sessions, most recently active first (`updated_at`), optionally only those started in `cwd`."""
        where, params = ("WHERE s.cwd = ?", [cwd]) if cwd is not None else ("", [])
        with self._lock:
            rows = self.conn.execute(
                f"{SESSION_SELECT} {where} ORDER BY s.updated_at DESC, s.created_at DESC, s.id DESC "
                "LIMIT ? OFFSET ?",
                [*params, max(0, limit), max(0, offset)],
            ).fetchall()
        return [session_info(row) for row in rows]

    def latest_session(self, cwd: str | None = None) -> SessionInfo | None:
        """The user's latest conversation (`-c`), optionally only among those started in `cwd`: a session
        a subagent (or any other child run) wrote is never it, however recent."""
        where, params = (
            (f"WHERE {USER_CONVERSATION}", [])
            if cwd is None
            else (
                f"WHERE {USER_CONVERSATION} AND s.cwd = ?",
                [cwd],
            )
        )
        with self._lock:
            row = self.conn.execute(
                f"{SESSION_SELECT} {where} ORDER BY s.updated_at DESC, s.created_at DESC, s.id DESC LIMIT 1",
                params,
            ).fetchone()
        return session_info(row) if row is not None else None

    def adopt(self, session_id: str) -> str:
        """The id to continue `session_id` in: a session of this store continues as itself (a library
        with other histories beside it copies theirs first). KeyError for an unknown id."""
        if self.get_session(session_id) is None:
            raise KeyError(session_id)
        return session_id

    def resolve(self, id_or_title: str) -> SessionInfo | None:
        """The one session `id_or_title` names (see `find_sessions`), None when none or several do."""
        matches = self.find_sessions(id_or_title, limit=2)
        return matches[0] if len(matches) == 1 else None

    def find_sessions(self, id_or_title: str, limit: int = 20) -> list[SessionInfo]:
        """The sessions `-r` may mean: the one with this exact id, else the one with this exact title
        (case-insensitive), else those whose id starts with it or whose title contains it (most recently
        active first, at most `limit`), so a part of a title finds its session and several are listed."""
        key = (id_or_title or "").strip()
        if not key:
            return []
        with self._lock:
            conn = self.conn
            found = self.get_session(key)
            if found:
                return [found]
            row = conn.execute("SELECT id FROM sessions WHERE title = ? COLLATE NOCASE", (key,)).fetchone()
            if row:
                exact = self.get_session(row[0])
                return [exact] if exact is not None else []
            rows = conn.execute(  # a part of an id or title means the user's conversations, not children
                f"SELECT id FROM sessions s WHERE (substr(id, 1, ?) = ? OR title LIKE ? ESCAPE '\\') "
                f"AND {USER_CONVERSATION} ORDER BY updated_at DESC, id DESC LIMIT ?",
                (len(key), key, like_pattern(key), max(1, limit)),
            ).fetchall()
            return [info for (session_id,) in rows if (info := self.get_session(session_id)) is not None]

    def set_title(self, session_id: str, title: str) -> str:
        """Sanitize and store a title, made unique with ' #2', ' #3'...; returns the stored title.

        A title that sanitizes to '' clears it (NULL) and returns ''. KeyError for an unknown session."""
        clean = sanitize_title(title)
        for _attempt in range(5):
            try:
                with self._write() as conn:
                    stored = unique_title(conn, clean, session_id) if clean else None
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

    def set_permission_mode(self, session_id: str, mode: str) -> None:
        """The session's permission mode, restored by `-c` / `-r` (the engine checks the name)."""
        with self._write() as conn:
            cur = conn.execute("UPDATE sessions SET permission_mode = ? WHERE id = ?", (mode, session_id))
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
            new_id = records.new_session_id(now)
            try:
                with self._write() as conn:
                    stored_title = unique_title(conn, wanted, None) if wanted else None
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
                        f"INSERT INTO messages (session_id, {MESSAGE_DATA_COLUMNS}, rewound_at) "
                        f"SELECT ?, {MESSAGE_DATA_COLUMNS}, rewound_at FROM messages "
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

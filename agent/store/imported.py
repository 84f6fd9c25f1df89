"""Copies of sessions that live elsewhere (Hermes' own history): one transaction makes the copy, and its
`origin` finds it again, so continuing the same Hermes session twice continues the same copy."""

from __future__ import annotations

import sqlite3
import time

import agent.store.records as records
from agent.core.messages import Message, strip_surrogates
from agent.store.core import StoreBase
from agent.store.messages import MESSAGE_INSERT
from agent.store.records import SessionInfo, message_values, sanitize_title
from agent.store.sessions import unique_title

__all__ = ["ImportMixin"]


class ImportMixin(StoreBase):
    def copy_for(self, origin: str) -> str | None:
        """The id of our copy of `origin` (e.g. `hermes:<id>`), or None."""
        with self._lock:
            row = self.conn.execute("SELECT id FROM sessions WHERE origin = ?", (origin,)).fetchone()
        return row[0] if row is not None else None

    def origins(self, prefix: str) -> set[str]:
        """Every origin starting with `prefix` that has a copy here."""
        with self._lock:
            rows = self.conn.execute(
                "SELECT origin FROM sessions WHERE substr(origin, 1, ?) = ?", (len(prefix), prefix)
            ).fetchall()
        return {row[0] for row in rows}

    def import_session(self, info: SessionInfo, messages: list[Message]) -> str:
        """Our copy of a session read from elsewhere (`info.id` is its origin): its settings, system
        prompt, title and messages, its token and cost counters, its times. Made once: a second call
        returns the first copy. The copy then grows like any of our sessions; the original is untouched."""
        existing = self.copy_for(info.id)
        if existing is not None:
            return existing
        title = sanitize_title(info.title or info.preview or "") or None
        for _attempt in range(20):
            new_id = records.new_session_id()
            try:
                with self._write() as conn:
                    again = conn.execute("SELECT id FROM sessions WHERE origin = ?", (info.id,)).fetchone()
                    if again is not None:
                        return str(again[0])
                    stored_title = unique_title(conn, title, None) if title else None
                    conn.execute(
                        "INSERT INTO sessions (id, title, model, provider, base_url, cwd, system_prompt, "
                        "source, created_at, updated_at, status, input_tokens, output_tokens, "
                        "cache_read_tokens, cache_write_tokens, reasoning_tokens, api_call_count, cost_usd, "
                        "cost_unknown_calls, origin) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, 'tui', ?, ?, 'completed', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            new_id,
                            stored_title,
                            info.model,
                            info.provider,
                            info.base_url,
                            strip_surrogates(info.cwd),
                            strip_surrogates(info.system_prompt),
                            info.created_at,
                            info.updated_at or time.time(),
                            info.input_tokens,
                            info.output_tokens,
                            info.cache_read_tokens,
                            info.cache_write_tokens,
                            info.reasoning_tokens,
                            info.api_call_count,
                            info.cost_usd,
                            info.cost_unknown_calls,
                            info.id,
                        ),
                    )
                    for seq, message in enumerate(messages):
                        conn.execute(MESSAGE_INSERT, (new_id, seq, *message_values(message)))
                    conn.execute(
                        "UPDATE sessions SET message_count = ?, tool_call_count = ? WHERE id = ?",
                        (len(messages), sum(len(m.tool_calls) for m in messages), new_id),
                    )
                return new_id
            except sqlite3.IntegrityError:
                continue  # an id collision, or a title taken meanwhile
        raise RuntimeError("could not allocate a session id")

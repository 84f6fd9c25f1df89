"""Turn outcomes: why each turn of a session ended (`turns` rows, the last one also on the session row)."""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from agent.core.messages import strip_surrogates
from agent.store.core import StoreBase

__all__ = ["TurnsMixin"]


class TurnsMixin(StoreBase):
    def record_turn(
        self,
        session_id: str,
        *,
        exit_reason: str,
        user_message_id: int | None = None,
        api_calls: int = 0,
        detail: str | None = None,
    ) -> None:
        """Record how a turn ended (`exit_reason` in Hermes' vocabulary, `detail` the line the user was
        shown when it did not complete). KeyError for an unknown session."""
        now = time.time()
        try:
            with self._write() as conn:
                conn.execute(
                    "INSERT INTO turns (session_id, user_message_id, exit_reason, detail, api_calls, "
                    "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        session_id,
                        user_message_id,
                        exit_reason,
                        strip_surrogates(detail) if detail else None,
                        int(api_calls),
                        now,
                    ),
                )
                conn.execute("UPDATE sessions SET exit_reason = ? WHERE id = ?", (exit_reason, session_id))
        except sqlite3.IntegrityError:
            raise KeyError(session_id) from None

    def turns(self, session_id: str) -> list[dict[str, Any]]:
        """The session's turn outcomes, oldest first: dicts with user_message_id, exit_reason, detail,
        api_calls, created_at."""
        with self._lock:
            rows = self.conn.execute(
                "SELECT user_message_id, exit_reason, detail, api_calls, created_at FROM turns "
                "WHERE session_id = ? ORDER BY id",
                (session_id,),
            ).fetchall()
        return [dict(row) for row in rows]

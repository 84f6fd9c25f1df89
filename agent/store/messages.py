"""Transcript rows and approval decisions.

A streaming assistant reply is stored as a *partial* row (`partial = 1`) whose text is checkpointed with
`checkpoint_partial()` and rewritten by `update_message()` when it completes.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

from agent.core.messages import Message, strip_surrogates
from agent.store.core import StoreBase
from agent.store.records import (
    MESSAGE_COLUMNS,
    MESSAGE_DATA_COLUMNS,
    LoadedSession,
    json_dumps,
    json_loads,
    message_from_row,
    message_values,
    optional_text,
)

__all__ = ["MESSAGE_INSERT", "MessagesMixin"]

MESSAGE_INSERT = (
    f"INSERT INTO messages (session_id, {MESSAGE_DATA_COLUMNS}) "
    f"VALUES (?, {', '.join('?' * len(MESSAGE_DATA_COLUMNS.split(', ')))})"
)


class MessagesMixin(StoreBase):
    def append_message(self, session_id: str, message: Message) -> int:
        """Insert `message` as the next seq of the session, set `message.id`, bump the session's
        message_count / tool_call_count / updated_at; committed before returning. Raises KeyError for an
        unknown session."""
        now = time.time()
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
            cur = conn.execute(MESSAGE_INSERT, (session_id, seq, *message_values(message)))
            message.id = int(cur.lastrowid or 0)
        return message.id

    def checkpoint_partial(self, message_id: int, content: str, reasoning: str | None) -> None:
        """Store the text streamed so far into a partial assistant row (it stays partial). Ignored when the
        row is gone or already completed, so a late checkpoint never overwrites a final reply."""
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE messages SET content = ?, reasoning = ? WHERE id = ? AND partial = 1",
                (strip_surrogates(content or ""), optional_text(reasoning), message_id),
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
        values = message_values(message)
        with self._write() as conn:
            row = conn.execute(
                "SELECT session_id, tool_calls FROM messages WHERE id = ?", (message.id,)
            ).fetchone()
            if row is None:
                raise KeyError(message.id)
            old_calls = len(json_loads(row["tool_calls"], []))
            # values: role, content, reasoning, tool_calls, tool_call_id, tool_name, finish_reason,
            # created_at, 5 token columns, partial, meta
            conn.execute(
                "UPDATE messages SET content = ?, reasoning = ?, tool_calls = ?, tool_call_id = ?, "
                "tool_name = ?, finish_reason = ?, prompt_tokens = ?, completion_tokens = ?, "
                "cache_read_tokens = ?, cache_write_tokens = ?, reasoning_tokens = ?, partial = 0, meta = ? "
                "WHERE id = ?",
                (*values[1:7], *values[8:13], values[14], message.id),
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
                f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
            ).fetchall()
        return LoadedSession(info, [message_from_row(row) for row in rows], [int(row["seq"]) for row in rows])

    def load_messages(self, session_id: str, start_seq: int = 0, end_seq: int | None = None) -> list[Message]:
        """Messages with start_seq <= seq < end_seq (all to the end when end_seq is None), in seq order: for
        re-mounting a slice of a long transcript."""
        with self._lock:
            rows = self.conn.execute(
                f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ? AND seq >= ? "
                "AND (? IS NULL OR seq < ?) ORDER BY seq",
                (session_id, start_seq, end_seq, end_seq),
            ).fetchall()
        return [message_from_row(row) for row in rows]

    def mark_rewound(self, session_id: str, message_id: int, at: float | None = None) -> int:
        """A rewind: message `message_id` and every later live message of the session leave the model's
        context (`rewound_at` set, in one transaction); the rows stay, and so does their search index. Rows
        rewound before keep their own time. The number of rows marked; KeyError when the message is not
        one of the session's."""
        now = time.time() if at is None else at
        with self._write() as conn:
            row = conn.execute(
                "SELECT seq FROM messages WHERE id = ? AND session_id = ?", (message_id, session_id)
            ).fetchone()
            if row is None:
                raise KeyError(message_id)
            cur = conn.execute(
                "UPDATE messages SET rewound_at = ? WHERE session_id = ? AND seq >= ? AND rewound_at IS NULL",
                (now, session_id, row["seq"]),
            )
            conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now, session_id))
            return int(cur.rowcount)

    # ---------------------------------------------------------------- approvals

    def record_approval(self, session_id: str, command: str, reasons: list[str], decision: str) -> None:
        try:
            with self._write() as conn:
                conn.execute(
                    "INSERT INTO approvals (session_id, command, reasons, decision, created_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (session_id, strip_surrogates(command), json_dumps(list(reasons)), decision, time.time()),
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
        return [{**dict(row), "reasons": json_loads(row["reasons"], [])} for row in rows]

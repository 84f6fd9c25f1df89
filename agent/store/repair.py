"""Repair a session that a crash or kill -9 cut off mid-turn, before anything else is sent in it.

Why: killed while its tools ran, a session keeps an assistant message whose tool calls have no results, a
reply still marked partial, and the status "active". Every provider rejects the first (the wire sanitizer
papers over it per request, but the stored transcript stays wrong for export, search and the next open),
and "active" claims a turn is running when none is. The repair writes what an interrupt would have: a
result "interrupted" for each call that never returned, the partial reply finalized as interrupted, and
the status "interrupted". Only a session nobody writes to may be repaired (its claim is taken first, see
`agent.store.claims`), and repairing twice changes nothing.
"""

from __future__ import annotations

import json
import sqlite3

from agent.core.messages import Message
from agent.store.messages import MessagesMixin

__all__ = ["INTERRUPTED_RESULT", "RepairMixin"]

INTERRUPTED_RESULT = (
    "[interrupted: {name} did not finish, hermes-tui stopped while it ran; what it changed, if anything, "
    "is unknown]"
)


class RepairMixin(MessagesMixin):
    def repair_session(self, session_id: str) -> int:
        """Finish what a crash left open in the session; the number of rows written or finalized (0 when
        it was whole). Raises `StoreError` when the store cannot be written."""
        if self.read_only is not None:
            return 0
        with self._lock:
            rows = self.conn.execute(
                "SELECT id, role, tool_calls, tool_call_id, partial FROM messages "
                "WHERE session_id = ? ORDER BY seq",
                (session_id,),
            ).fetchall()
            status = self.conn.execute("SELECT status FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if status is None:
            return 0
        missing = _unanswered_calls(rows)
        partial = [row["id"] for row in rows if row["partial"]]
        for call_id, name in missing:
            self.append_message(
                session_id,
                Message(
                    role="tool",
                    content=INTERRUPTED_RESULT.format(name=name or "the tool"),
                    tool_call_id=call_id,
                    tool_name=name,
                    meta={"status": "interrupted"},
                ),
            )
        with self._write() as conn:
            for message_id in partial:
                conn.execute(
                    "UPDATE messages SET partial = 0, finish_reason = 'interrupted' "
                    "WHERE id = ? AND partial = 1",
                    (message_id,),
                )
            if status["status"] == "active":
                conn.execute("UPDATE sessions SET status = 'interrupted' WHERE id = ?", (session_id,))
        return len(missing) + len(partial)


def _unanswered_calls(rows: list[sqlite3.Row]) -> list[tuple[str, str]]:
    """(call id, tool name) of the last assistant message's calls that have no result after it, when no
    user message follows it (an earlier gap cannot be filled in place; the wire sanitizer covers it)."""
    for index in range(len(rows) - 1, -1, -1):
        row = rows[index]
        if row["role"] == "user":
            return []
        if row["role"] != "assistant" or not row["tool_calls"]:
            continue
        try:
            calls = json.loads(row["tool_calls"])
        except (TypeError, ValueError):
            return []
        answered = {r["tool_call_id"] for r in rows[index + 1 :] if r["role"] == "tool"}
        out = []
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict) and call.get("id") and call["id"] not in answered:
                out.append((str(call["id"]), str(call.get("name") or "")))
        return out
    return []

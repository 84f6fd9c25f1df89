"""What model calls used and cost: one `usage` row per call, the session's running totals, and the
aggregates the usage report reads (per day, per model, per session).

Every call is recorded when it completes, in the same transaction as the session's counters, so the
totals a crash leaves behind are the sum of the recorded calls. A cost of NULL means the price is unknown
(a local model, a model the price table does not list): totals keep the known part and count the unknown
calls, never adding a made-up zero.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from agent.core.messages import Usage
from agent.store.core import StoreBase
from agent.store.records import SessionInfo

__all__ = ["UsageMixin", "UsageRow"]


@dataclass(frozen=True)
class UsageRow:
    """Usage summed over some calls (of one day, one model, one session...). `key` names the group."""

    key: str
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost_usd: float
    unknown_calls: int
    title: str | None = None  # for a session group: its title (else its first message)


_SUMS = (
    "count(*), coalesce(sum(u.prompt_tokens), 0), coalesce(sum(u.completion_tokens), 0), "
    "coalesce(sum(u.cache_read_tokens), 0), coalesce(sum(u.cache_write_tokens), 0), "
    "coalesce(sum(u.cost_usd), 0), coalesce(sum(u.cost_usd IS NULL), 0)"
)
_GROUPS = {
    "day": "date(u.created_at, 'unixepoch', 'localtime')",
    "model": "u.model",
    "session": "u.session_id",
}


class UsageMixin(StoreBase):
    def record_call(
        self,
        session_id: str,
        *,
        usage: Usage | None,
        model: str,
        provider: str,
        cost_usd: float | None,
        cost_source: str,
        message_id: int | None = None,
        created_at: float | None = None,
    ) -> None:
        """One model call: its `usage` row, and the session's tokens, call count and cost. A call that
        reported no usage still counts as a call (of unknown cost). KeyError for an unknown session."""
        used = usage or Usage()
        now = time.time() if created_at is None else created_at
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE sessions SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, "
                "cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?, "
                "reasoning_tokens = reasoning_tokens + ?, api_call_count = api_call_count + 1, "
                "cost_usd = cost_usd + ?, cost_unknown_calls = cost_unknown_calls + ?, updated_at = ? "
                "WHERE id = ?",
                (
                    used.prompt_tokens,
                    used.completion_tokens,
                    used.cache_read_tokens,
                    used.cache_write_tokens,
                    used.reasoning_tokens,
                    cost_usd or 0.0,
                    1 if cost_usd is None else 0,
                    time.time(),
                    session_id,
                ),
            )
            if cur.rowcount == 0:
                raise KeyError(session_id)
            conn.execute(
                "INSERT INTO usage (session_id, message_id, created_at, model, provider, prompt_tokens, "
                "completion_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, "
                "cost_source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    message_id,
                    now,
                    model,
                    provider,
                    used.prompt_tokens,
                    used.completion_tokens,
                    used.cache_read_tokens,
                    used.cache_write_tokens,
                    used.reasoning_tokens,
                    cost_usd,
                    cost_source,
                ),
            )

    def external_usage(self, since: float) -> list[SessionInfo]:
        """Sessions of other histories beside this store (Hermes'), started since `since`, with their
        totals: none for a plain store (a `SessionLibrary` has Hermes')."""
        return []

    def usage_by(
        self, group: str, since: float, until: float | None = None, limit: int = 1000
    ) -> list[UsageRow]:
        """Calls made in [since, until) summed per `group` ("day" as local YYYY-MM-DD, "model" or
        "session"); days in date order, the others most expensive first."""
        key = _GROUPS[group]
        order = "1" if group == "day" else "coalesce(sum(u.cost_usd), 0) DESC, sum(u.prompt_tokens) DESC"
        title = (
            ", (SELECT coalesce(s.title, (SELECT substr(m.content, 1, 100) FROM messages m "
            "WHERE m.session_id = s.id AND m.role = 'user' ORDER BY m.seq LIMIT 1)) "
            "FROM sessions s WHERE s.id = u.session_id)"
            if group == "session"
            else ", NULL"
        )
        with self._reading() as conn:
            rows = conn.execute(
                f"SELECT {key}, {_SUMS}{title} FROM usage u WHERE u.created_at >= ? AND u.created_at < ? "
                f"GROUP BY 1 ORDER BY {order} LIMIT ?",
                (since, until if until is not None else 1e18, limit),
            ).fetchall()
        return [
            UsageRow(str(row[0] or ""), row[1], row[2], row[3], row[4], row[5], row[6], row[7], title=row[8])
            for row in rows
        ]

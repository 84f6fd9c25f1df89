"""What the last days cost: tokens and USD per day and per model, the most expensive sessions, the cache
hit rate. Ours come call by call from the store's `usage` table; Hermes' own sessions (read-only, their
totals as Hermes recorded them) are added per session, so a Hermes user sees everything they spent. A copy
of a Hermes session made here carries no per-call rows of Hermes' calls, so nothing is counted twice.

Costs that are unknown stay unknown: a day or a model with unpriced calls shows "+?" after the known part
(`format_cost`), never a silent $0. `render_text` is the `hermes-tui usage` output; the `/usage` screen
draws the same report with theme colours.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from agent.core.humanize import format_tokens
from agent.store.protocol import SessionStoreProtocol
from agent.store.records import SessionInfo
from agent.store.usage import UsageRow
from agent.usage.pricing import format_cost

__all__ = ["Bucket", "UsageReport", "bar", "build_report", "gather", "render_text"]

DAYS = 30
TOP_SESSIONS = 10
BLOCKS = " ▏▎▍▌▋▊▉█"


@dataclass
class Bucket:
    """Usage summed over a group (a day, a model, a session)."""

    key: str
    label: str = ""
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float = 0.0
    unknown_calls: int = 0
    hermes: bool = False  # a session (or part of one) from Hermes' own history

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def cost_text(self) -> str:
        return format_cost(self.cost_usd, self.unknown_calls)

    def add_row(self, row: UsageRow) -> None:
        self.calls += row.calls
        self.prompt_tokens += row.prompt_tokens
        self.completion_tokens += row.completion_tokens
        self.cache_read_tokens += row.cache_read_tokens
        self.cache_write_tokens += row.cache_write_tokens
        self.cost_usd += row.cost_usd
        self.unknown_calls += row.unknown_calls

    def add_session(self, info: SessionInfo) -> None:
        self.calls += info.api_call_count
        self.prompt_tokens += info.input_tokens
        self.completion_tokens += info.output_tokens
        self.cache_read_tokens += info.cache_read_tokens
        self.cache_write_tokens += info.cache_write_tokens
        self.cost_usd += info.cost_usd
        self.unknown_calls += info.cost_unknown_calls


@dataclass
class UsageReport:
    """`days` has every day of the period (oldest first, empty days included), the others are sorted
    most expensive first."""

    first_day: date
    last_day: date
    days: list[Bucket]
    models: list[Bucket]
    sessions: list[Bucket]
    total: Bucket = field(default_factory=lambda: Bucket("total"))
    hermes_problem: str | None = None

    @property
    def cache_hit_rate(self) -> float | None:
        """Share of prompt tokens read from the provider's cache (None when no prompt tokens were sent)."""
        prompt = self.total.prompt_tokens
        return self.total.cache_read_tokens / prompt if prompt else None

    @property
    def empty(self) -> bool:
        return self.total.calls == 0 and self.total.tokens == 0


def _day(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp).date().isoformat()


def _costlier(buckets: Iterable[Bucket]) -> list[Bucket]:
    return sorted(buckets, key=lambda b: (-b.cost_usd, -b.unknown_calls, -b.tokens, b.key))


def build_report(
    our_rows: dict[str, list[UsageRow]],
    hermes_sessions: Iterable[SessionInfo],
    *,
    now: float | None = None,
    days: int = DAYS,
    hermes_problem: str | None = None,
) -> UsageReport:
    """The report of the `days` days ending today, from our usage rows grouped by "day", "model" and
    "session" (`SessionStore.usage_by`) and Hermes' sessions of the period."""
    today = datetime.fromtimestamp(time.time() if now is None else now).date()
    first = today - timedelta(days=days - 1)
    keys = [(first + timedelta(days=i)).isoformat() for i in range(days)]
    by_day = {key: Bucket(key) for key in keys}
    by_model: dict[str, Bucket] = {}
    by_session: dict[str, Bucket] = {}
    total = Bucket("total")
    for row in our_rows.get("day", []):
        if row.key in by_day:
            by_day[row.key].add_row(row)
            total.add_row(row)
    for row in our_rows.get("model", []):
        by_model.setdefault(row.key or "(unknown)", Bucket(row.key or "(unknown)")).add_row(row)
    for row in our_rows.get("session", []):
        bucket = by_session.setdefault(row.key, Bucket(row.key, label=row.title or row.key))
        bucket.add_row(row)
    for info in hermes_sessions:
        key = _day(info.created_at)
        if key not in by_day:
            continue
        by_day[key].add_session(info)
        total.add_session(info)
        model = info.model or "(unknown)"
        by_model.setdefault(model, Bucket(model)).add_session(info)
        bucket = by_session.setdefault(info.id, Bucket(info.id, label=info.display_title, hermes=True))
        bucket.add_session(info)
    return UsageReport(
        first_day=first,
        last_day=today,
        days=list(by_day.values()),
        models=_costlier(by_model.values()),
        sessions=_costlier(b for b in by_session.values() if b.calls or b.tokens)[:TOP_SESSIONS],
        total=total,
        hermes_problem=hermes_problem,
    )


def gather(store: SessionStoreProtocol, *, now: float | None = None, days: int = DAYS) -> UsageReport:
    """The report from a store (and the Hermes history beside it, when the store is a library)."""
    moment = time.time() if now is None else now
    first = datetime.fromtimestamp(moment).date() - timedelta(days=days - 1)
    since = datetime.combine(first, datetime.min.time()).timestamp()
    rows = {group: store.usage_by(group, since) for group in ("day", "model", "session")}
    return build_report(
        rows, store.external_usage(since), now=moment, days=days, hermes_problem=store.hermes_problem
    )


def bar(value: float, peak: float, width: int) -> str:
    """`value` as a bar of block characters, `width` cells for `peak` (eighths of a cell)."""
    if peak <= 0 or value <= 0 or width <= 0:
        return ""
    eighths = max(1, round(8 * width * min(value, peak) / peak))
    full, part = divmod(eighths, 8)
    return "█" * full + (BLOCKS[part] if part else "")


def render_text(report: UsageReport, width: int = 40) -> str:
    """`hermes-tui usage`: the report as plain text."""
    lines = [f"Usage {report.first_day.isoformat()} – {report.last_day.isoformat()}"]
    total = report.total
    rate = report.cache_hit_rate
    sent, received = format_tokens(total.prompt_tokens), format_tokens(total.completion_tokens)
    lines.append(
        f"{total.cost_text} · {sent} in · {received} out · {total.calls} calls · "
        f"cache hit rate {'—' if rate is None else f'{rate:.0%}'}"
    )
    if report.hermes_problem:
        lines.append(f"(Hermes' history left out: {report.hermes_problem})")
    if report.empty:
        lines.append("No model calls in this period.")
        return "\n".join(lines)
    priced = any(day.cost_usd for day in report.days)
    peak = max((day.cost_usd if priced else day.tokens) for day in report.days)
    lines += ["", "Per day (" + ("cost" if priced else "tokens") + ")"]
    for day in report.days:
        if not day.calls and not day.tokens:
            continue
        value = day.cost_usd if priced else day.tokens
        chart = bar(value, peak, width)
        lines.append(f"  {day.key}  {chart:<{width}}  {day.cost_text:>10}  {format_tokens(day.tokens):>7}")
    lines += ["", "Per model"]
    for model in report.models:
        tokens = format_tokens(model.tokens)
        lines.append(f"  {model.key:<32}  {model.cost_text:>10}  {tokens:>7}  {model.calls} calls")
    lines += ["", "Top sessions"]
    for session in report.sessions:
        badge = "hermes " if session.hermes else ""
        label = " ".join(session.label.split())[:48]
        lines.append(f"  {session.cost_text:>10}  {format_tokens(session.tokens):>7}  {badge}{label}")
    return "\n".join(lines)

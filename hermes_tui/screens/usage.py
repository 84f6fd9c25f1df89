"""`/usage`: what the last 30 days cost, as a picture. A column per day (cost, or tokens with `t`), the
models and the sessions that cost most, and how much of the prompt the provider's cache served.

The report (`agent.usage.report.gather`) is computed in a thread from the store: our calls one by one,
Hermes' own sessions by their totals. Unknown prices stay visible as "?" (a column's mark, "+?" after a
known part). The clock is injectable so snapshots do not depend on the day they are taken.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from agent.api import UsageReport, format_cost, format_tokens
from agent.api import gather_usage as gather
from widgets.support.text_safety import sanitize_display
from widgets.usage_chart import DailyChart

if TYPE_CHECKING:
    from agent.api import SessionStoreProtocol

__all__ = ["UsageScreen"]


def _fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


class UsageScreen(Screen[None]):
    """The usage of the last `days` days. Keys: `t` cost/tokens, `r` refresh, Escape or `q` close."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="usage.close"),
        Binding("q", "close", "Close", show=False),
        Binding("t", "toggle_metric", "Cost / tokens", id="usage.metric"),
        Binding("r", "refresh_report", "Refresh", id="usage.refresh"),
    ]

    DEFAULT_CSS = """
    UsageScreen {
        background: $background;
        #usage-body { height: 1fr; }
        #usage-title { padding: 0 2; color: $primary; text-style: bold; }
        #usage-summary { padding: 0 2 1 2; color: $foreground; }
        #usage-chart-box {
            height: auto;
            margin: 0 1;
            border: round $foreground 25%;
            border-title-color: $primary;
            border-subtitle-color: $text-muted;
        }
        #usage-tables { height: auto; margin: 1 1 0 1; }
        .usage-table-box {
            width: 1fr;
            height: auto;
            border: round $foreground 25%;
            border-title-color: $primary;
        }
        .usage-table-box DataTable { height: auto; max-height: 14; background: $background; }
        #usage-note { padding: 0 2; color: $text-muted; }
    }
    UsageScreen.-narrow #usage-tables { layout: vertical; }
    """

    # Typed as Screen types it (mypy reads Textual's `ClassVar[...] | None` as an instance variable).
    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] | None = [(0, "-narrow"), (110, "-wide")]  # noqa: RUF012

    def __init__(
        self,
        store: SessionStoreProtocol,
        *,
        now: float | Callable[[], float] | None = None,
        days: int = 30,
        name: str | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id)
        self.store = store
        self._clock: Callable[[], float] = (
            now if callable(now) else (lambda: float(now)) if now is not None else time.time
        )
        self.days = days
        self.metric = "cost"
        self.report: UsageReport | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="usage-body"):
            yield Static(Text(f"Usage · last {self.days} days"), id="usage-title")
            yield Static(Text("Adding up…"), id="usage-summary")
            with Vertical(id="usage-chart-box") as box:
                box.border_title = "Per day"
                yield DailyChart(id="usage-chart")
            with Horizontal(id="usage-tables"):
                with Vertical(classes="usage-table-box") as models:
                    models.border_title = "Per model"
                    yield DataTable(id="usage-models", cursor_type="none", zebra_stripes=False)
                with Vertical(classes="usage-table-box") as sessions:
                    sessions.border_title = "Top sessions"
                    yield DataTable(id="usage-sessions", cursor_type="none", zebra_stripes=False)
            yield Static(Text(""), id="usage-note")
        yield Footer()

    def on_mount(self) -> None:
        models = self.query_one("#usage-models", DataTable)
        for label, width in (("Model", 24), ("Cost", 10), ("Tokens", 7), ("Calls", 6)):
            models.add_column(label, width=width)
        sessions = self.query_one("#usage-sessions", DataTable)
        for label, width in (("Session", 30), ("Cost", 10), ("Tokens", 7)):
            sessions.add_column(label, width=width)
        self.action_refresh_report()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_toggle_metric(self) -> None:
        self.metric = "tokens" if self.metric == "cost" else "cost"
        if self.report is not None:
            self._show_chart(self.report)

    def action_refresh_report(self) -> None:
        self.run_worker(self._load(), exclusive=True, group="usage-load")

    async def _load(self) -> None:
        try:
            report = await asyncio.to_thread(gather, self.store, now=self._clock(), days=self.days)
        except Exception as exc:  # a store problem reads as a line, never a traceback
            self.log.error(f"usage report failed: {exc!r}")
            self.query_one("#usage-summary", Static).update(Text("The usage could not be read."))
            return
        self.show(report)

    def show(self, report: UsageReport) -> None:
        """Put `report` on screen (UI thread)."""
        self.report = report
        total = report.total
        rate = report.cache_hit_rate
        summary = Text(end="")
        summary.append(total.cost_text, "bold")
        summary.append(
            f"  ·  {format_tokens(total.prompt_tokens)} in  ·  {format_tokens(total.completion_tokens)} out"
        )
        summary.append(f"  ·  {total.calls:,} calls  ·  cache hit rate ")
        summary.append("—" if rate is None else f"{rate:.0%}", "bold")
        summary.append(f"  ({report.first_day:%b %-d} – {report.last_day:%b %-d})")
        self.query_one("#usage-summary", Static).update(summary)
        self._show_chart(report)
        models = self.query_one("#usage-models", DataTable)
        models.clear()
        for model in report.models:
            models.add_row(
                Text(_fit(sanitize_display(model.key), 24)),
                Text(model.cost_text, justify="right"),
                Text(format_tokens(model.tokens), justify="right"),
                Text(f"{model.calls:,}", justify="right"),
            )
        sessions = self.query_one("#usage-sessions", DataTable)
        sessions.clear()
        for session in report.sessions:
            label = Text(end="")
            if session.hermes:
                label.append("hermes ", "bold")
            text = " ".join(sanitize_display(session.label).split())
            room = 30 - len(label.plain)
            label.append(text if len(text) <= room else text[: room - 1] + "…")
            sessions.add_row(
                label,
                Text(session.cost_text, justify="right"),
                Text(format_tokens(session.tokens), justify="right"),
            )
        notes = []
        if report.empty:
            notes.append("No model calls in this period yet.")
        if any(day.unknown_calls for day in report.days):
            notes.append(
                "? marks calls whose price is unknown (a local model, or one the price table lacks)."
            )
        if report.hermes_problem:
            notes.append(f"Hermes' history left out: {report.hermes_problem}")
        self.query_one("#usage-note", Static).update(Text("\n".join(notes)))

    def _show_chart(self, report: UsageReport) -> None:
        chart = self.query_one(DailyChart)
        box = self.query_one("#usage-chart-box", Vertical)
        priced = any(day.cost_usd for day in report.days)
        metric = self.metric if priced else "tokens"
        if metric == "cost":
            chart.set_data(
                [d.cost_usd for d in report.days],
                report.first_day,
                unknown=[bool(d.unknown_calls) for d in report.days],
                format_value=lambda v: format_cost(v),
            )
        else:
            chart.set_data(
                [float(d.tokens) for d in report.days],
                report.first_day,
                unknown=[False] * len(report.days),
                format_value=lambda v: format_tokens(int(v)),
            )
        box.border_title = f"Per day · {'cost (USD)' if metric == 'cost' else 'tokens'}"
        box.border_subtitle = "t: cost / tokens" if priced else "no priced calls: tokens"

"""The usage report: tokens and cost per day and per model over 30 days, top sessions, cache hit rate, from
our recorded calls and Hermes' own sessions; unknown prices shown as such."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from agent.core.messages import Usage
from agent.store import SessionStore
from agent.store.library import open_library
from agent.usage.report import bar, gather, render_text
from tests.cli_process import run_cli
from tests.hermes_home_fixture import QUOKKA_SESSION, copy_hermes_home_0_19

HERMES_DAY = datetime.fromtimestamp(1796112552.76)  # when Hermes made the fixture's sessions
NOW = (HERMES_DAY + timedelta(days=3)).timestamp()


def _session(store: SessionStore, title: str) -> str:
    sid = store.create_session(model="gpt-4o", provider="openai", cwd="/w", system_prompt="s", title=title)
    return sid


def _call(store: SessionStore, sid: str, when: float, model: str, usage: Usage, cost: float | None) -> None:
    store.record_call(
        sid,
        usage=usage,
        model=model,
        provider="openai",
        cost_usd=cost,
        cost_source="price-table" if cost is not None else "unknown",
        created_at=when,
    )


@pytest.fixture
def filled(tmp_path: Path):  # type: ignore[no-untyped-def]
    home = copy_hermes_home_0_19(tmp_path / "hermes")
    library = open_library(home / "tui" / "state.db", home)
    yesterday, two_weeks, too_old = NOW - 86400, NOW - 14 * 86400, NOW - 40 * 86400
    big = _session(library, "refactor the parser")
    small = _session(library, "quick question")
    _call(library, big, yesterday, "gpt-4o", Usage(10_000, 500, cache_read_tokens=6_000), 0.02)
    _call(library, big, yesterday + 60, "gpt-4o", Usage(12_000, 400, cache_read_tokens=9_000), 0.015)
    _call(library, small, two_weeks, "claude-sonnet-4-5", Usage(2_000, 100), 0.01)
    _call(library, small, two_weeks, "llama3.1", Usage(1_000, 50), None)
    _call(library, small, too_old, "gpt-4o", Usage(99_000, 9_000), 5.0)  # outside the 30 days
    yield library, big, small
    library.close()


def test_per_day_per_model_top_sessions_and_cache(filled) -> None:  # type: ignore[no-untyped-def]
    library, big, small = filled
    report = gather(library, now=NOW)
    assert len(report.days) == 30 and report.last_day == datetime.fromtimestamp(NOW).date()
    by_day = {day.key: day for day in report.days if day.calls}
    yesterday = datetime.fromtimestamp(NOW - 86400).date().isoformat()
    assert by_day[yesterday].cost_usd == pytest.approx(0.035) and by_day[yesterday].calls == 2
    two_weeks = by_day[datetime.fromtimestamp(NOW - 14 * 86400).date().isoformat()]
    assert two_weeks.cost_text == "$0.0100+?"  # one call could not be priced
    hermes_day = by_day[HERMES_DAY.date().isoformat()]
    assert hermes_day.calls == 6 and hermes_day.cost_text == "?"  # Hermes could not price "scripted"
    assert [m.key for m in report.models] == ["gpt-4o", "claude-sonnet-4-5", "scripted", "llama3.1"]
    assert report.models[-1].cost_text == "?"
    top = report.sessions
    assert [s.key for s in top][:2] == [big, small]
    assert top[0].label == "refactor the parser" and not top[0].hermes
    assert any(s.hermes and s.key == f"hermes:{QUOKKA_SESSION}" for s in top)
    prompt = 10_000 + 12_000 + 2_000 + 1_000 + 14_980 + 900 + 29_565
    assert report.cache_hit_rate == pytest.approx(15_000 / prompt)
    assert report.total.cost_usd == pytest.approx(0.045)


def test_text_report(filled) -> None:  # type: ignore[no-untyped-def]
    library, _big, _small = filled
    report = gather(library, now=NOW)
    text = render_text(report, width=20)
    lines = text.splitlines()
    assert report.cache_hit_rate is not None and f"cache hit rate {report.cache_hit_rate:.0%}" in lines[1]
    assert lines[0].startswith("Usage ") and "$0.0450+?" in lines[1] and "10 calls" in lines[1]
    yesterday = datetime.fromtimestamp(NOW - 86400).date().isoformat()
    row = next(line for line in lines if line.strip().startswith(yesterday))
    assert "█" * 20 in row and "$0.0350" in row  # the most expensive day fills the chart
    assert "hermes what files are here?" in text


def test_bars() -> None:
    assert bar(1, 1, 4) == "████"
    assert bar(0.5, 1, 4) == "██"
    assert bar(1, 8, 1) == "▏"
    assert bar(0, 1, 4) == "" and bar(1, 0, 4) == ""


def test_hermes_tui_usage_command(hermes_home: Path) -> None:
    done = run_cli(["usage"], env={"HERMES_HOME": str(hermes_home), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "No model calls in this period." in done.stdout

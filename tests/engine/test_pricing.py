"""What a call costs: the price table (genai-prices) on recorded usage with cache tokens, OpenRouter's own
`usage.cost`, "?" for an unknown model; stored per call and per session; never a network fetch."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.core.events import UsageUpdated
from agent.core.messages import Usage
from agent.usage.pricing import CallCost, CostTotal, call_cost, format_cost, prices_are_bundled
from scripted import ScriptedServer
from tests.engine.helpers import make_agent


def _published(model: str, provider: str) -> Any:
    """The per-million-token prices genai-prices lists for the model (its `ModelPrice`)."""
    from genai_prices import Usage as PriceUsage
    from genai_prices import calc_price

    return calc_price(PriceUsage(input_tokens=1, output_tokens=1), model, provider_id=provider).model_price


def test_cache_tokens_are_priced_at_their_own_rates() -> None:
    """Prompt tokens include the cached ones (OpenAI's `prompt_tokens`, Anthropic's input + cache): only the
    rest is billed at the input rate, cache reads and writes at theirs."""
    usage = Usage(
        prompt_tokens=10_000, completion_tokens=500, cache_read_tokens=6_000, cache_write_tokens=2_000
    )
    cost = call_cost(usage, model="claude-sonnet-4-20250514", provider="anthropic")
    p = _published("claude-sonnet-4-20250514", "anthropic")
    expected = (
        2_000 * float(p.input_mtok)
        + 6_000 * float(p.cache_read_mtok)
        + 2_000 * float(p.cache_write_mtok)
        + 500 * float(p.output_mtok)
    ) / 1e6
    assert cost.source == "price-table"
    assert cost.usd == pytest.approx(expected)
    uncached = call_cost(
        Usage(prompt_tokens=10_000, completion_tokens=500),
        model="claude-sonnet-4-20250514",
        provider="anthropic",
    )
    assert uncached.usd is not None and cost.usd < uncached.usd  # the cache saved money


def test_openrouter_reported_cost_wins_over_the_table() -> None:
    usage = Usage(prompt_tokens=1000, completion_tokens=100, reported_cost=0.0123)
    assert call_cost(usage, model="anthropic/claude-sonnet-4", provider="openrouter") == CallCost(
        0.0123, "provider"
    )


@pytest.mark.parametrize(
    ("model", "provider", "base_url"),
    [
        ("totally-unknown-model-x", "openai", None),
        ("llama3.1", "custom", "http://127.0.0.1:11434/v1"),  # a local server: no price, not $0
        ("scripted", "", None),
    ],
)
def test_unknown_price_is_unknown_never_zero(model: str, provider: str, base_url: str | None) -> None:
    cost = call_cost(
        Usage(prompt_tokens=100, completion_tokens=10), model=model, provider=provider, base_url=base_url
    )
    assert cost == CallCost(None, "unknown")
    total = CostTotal()
    total.add(cost)
    assert total.text == "?"


@pytest.mark.parametrize(
    ("provider", "base_url", "imported"),
    [
        ("custom", "http://127.0.0.1:11434/v1", False),  # a local server can have no price: no table
        ("", "http://localhost:8080/v1", False),
        ("openai", None, True),
        ("custom", "https://api.example.test/v1", True),  # an unnamed cloud is looked up by its URL
    ],
)
def test_the_price_table_is_imported_ahead_only_for_an_endpoint_that_can_have_a_price(
    provider: str, base_url: str | None, imported: bool
) -> None:
    """A one-shot run against a local server does not pay for the table's import (no call of it needs it);
    a session on a cloud imports it ahead, in the background, and a process ending right after that still
    ends with the import done (`agent.core.warm_thread`). A fresh interpreter: this one has the table."""
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('genai_prices' in sys.modules))\n"
        "from agent.usage.pricing import warm_up\n"
        f"warm_up({provider!r}, {base_url!r})\n"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{imported}\n", "")


def test_format_cost() -> None:
    assert format_cost(0.01234) == "$0.0123"
    assert format_cost(12.5) == "$12.50"
    assert format_cost(0.0, 2) == "?"
    assert format_cost(0.5, 1) == "$0.5000+?"
    assert format_cost(0.0) == "$0.0000"


def test_prices_come_from_the_bundled_table_without_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("pricing tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    cost = call_cost(Usage(prompt_tokens=1000, completion_tokens=100), model="gpt-4o", provider="openai")
    assert cost.usd is not None and cost.usd > 0
    assert prices_are_bundled()


def test_a_turn_stores_each_calls_cost_and_the_sessions(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        {
            "text": "one",
            "tool_calls": [{"name": "todo", "arguments": {"todos": []}}],
            "usage": {"prompt_tokens": 1200, "completion_tokens": 40, "cache_read_tokens": 1000},
        },
        {"text": "two", "usage": {"prompt_tokens": 1300, "completion_tokens": 60}},
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path, model="gpt-4o", provider="openai")
        agent.run_conversation("price this")
    first = call_cost(Usage(1200, 40, 1000), model="gpt-4o", provider="openai")
    second = call_cost(Usage(1300, 60), model="gpt-4o", provider="openai")
    assert first.usd is not None and second.usd is not None
    rows = store.conn.execute(
        "SELECT model, provider, prompt_tokens, cache_read_tokens, cost_usd, cost_source, message_id "
        "FROM usage ORDER BY id"
    ).fetchall()
    assert [tuple(r)[:6] for r in rows] == [
        ("gpt-4o", "openai", 1200, 1000, pytest.approx(first.usd), "price-table"),
        ("gpt-4o", "openai", 1300, 0, pytest.approx(second.usd), "price-table"),
    ]
    assistant_ids = [m.id for m in store.load(agent.session_id).messages if m.role == "assistant"]
    assert [r["message_id"] for r in rows] == assistant_ids
    info = store.get_session(agent.session_id)
    assert info is not None
    assert info.cost_usd == pytest.approx(first.usd + second.usd) and info.cost_unknown_calls == 0
    assert (info.input_tokens, info.output_tokens, info.api_call_count) == (2500, 100, 2)
    updates = ui.of_type(UsageUpdated)
    assert [u.cost for u in updates] == [pytest.approx(first.usd), pytest.approx(second.usd)]
    assert updates[-1].session_cost == pytest.approx(first.usd + second.usd)
    agent.resume(agent.session_id)
    assert agent.session_cost.usd == pytest.approx(info.cost_usd)


def test_openrouter_is_asked_for_its_cost_and_it_is_stored(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        {
            "text": "priced by OpenRouter",
            "usage": {"prompt_tokens": 900, "completion_tokens": 30, "cost": 0.00042},
        }
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, store, _ui = make_agent(
            server, hermes_home, tmp_path, model="anthropic/claude-sonnet-4", provider="openrouter"
        )
        agent.run_conversation("hi")
        assert server.requests[0].body["usage"] == {"include": True}
    info = store.get_session(agent.session_id)
    assert info is not None and info.cost_usd == pytest.approx(0.00042)
    row = store.conn.execute("SELECT cost_usd, cost_source FROM usage").fetchone()
    assert tuple(row) == (pytest.approx(0.00042), "provider")


def test_anthropic_cache_writes_are_priced(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        {
            "text": "cached",
            "usage": {
                "prompt_tokens": 400,
                "completion_tokens": 20,
                "cache_read_tokens": 0,
                "cache_write_tokens": 3000,
            },
        }
    ]
    with ScriptedServer({"name": "t", "calls": calls}) as server:
        agent, store, _ui = make_agent(
            server,
            hermes_home,
            tmp_path,
            model="claude-sonnet-4-20250514",
            provider="anthropic",
            base_url=server.anthropic_base_url,
        )
        agent.run_conversation("hi")
    # Anthropic's input_tokens leave the cache out; the transport counts them into the prompt.
    expected = call_cost(Usage(3400, 20, 0, 3000), model="claude-sonnet-4-20250514", provider="anthropic")
    row = store.conn.execute("SELECT prompt_tokens, cache_write_tokens, cost_usd FROM usage").fetchone()
    assert tuple(row) == (3400, 3000, pytest.approx(expected.usd))


def test_unpriced_calls_are_counted_not_zeroed(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t", "calls": [{"text": "local"}]}) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path)  # model "scripted" on loopback
        agent.run_conversation("hi")
    info = store.get_session(agent.session_id)
    assert info is not None and (info.cost_usd, info.cost_unknown_calls) == (0.0, 1)
    assert store.conn.execute("SELECT cost_usd FROM usage").fetchone()[0] is None
    assert ui.of_type(UsageUpdated)[-1].cost is None

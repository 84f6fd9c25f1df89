"""What a model call cost: the provider's own figure when it reports one (OpenRouter's `usage.cost`), else
the `genai-prices` table (pinned in constraints.txt) applied to its prompt, completion, cache-read and
cache-write tokens. A model the table does not know costs `None` ("?" on screen), never $0: a wrong zero
is worse than an honest unknown.

Offline by construction: `genai-prices` ships its price table inside the package, and only its
`UpdatePrices` helper (never used here) fetches newer prices. `prices_are_bundled()` says which table
answers; a test checks it with the network cut off.

The package takes a tenth of a second of CPU to import (more on a busy machine): `warm_up()` imports it in a
background thread when a session's first turn starts (while the model thinks), never while the UI paints its
first frame, and only for an endpoint that can have a price.
"""

from __future__ import annotations

import logging
import re
import sys
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal
from urllib.parse import urlsplit

from agent.core import providers
from agent.core.messages import Usage
from agent.core.warm_thread import start_warm_thread

__all__ = ["CallCost", "CostTotal", "call_cost", "format_cost", "prices_are_bundled", "warm_up"]

log = logging.getLogger(__name__)

CostSource = Literal["provider", "price-table", "unknown"]

_LOCAL_HOSTS = re.compile(r"^(localhost|127\.\d+\.\d+\.\d+|\[?::1\]?|0\.0\.0\.0)$")


@dataclass(frozen=True)
class CallCost:
    """One call's cost in USD (None: unknown) and where the figure came from."""

    usd: float | None
    source: CostSource


@dataclass
class CostTotal:
    """A running total: the USD of the calls whose cost is known, and how many calls had none."""

    usd: float = 0.0
    unknown_calls: int = 0

    def add(self, cost: CallCost) -> None:
        if cost.usd is None:
            self.unknown_calls += 1
        else:
            self.usd += cost.usd

    @property
    def text(self) -> str:
        return format_cost(self.usd, self.unknown_calls)


def format_cost(usd: float, unknown_calls: int = 0) -> str:
    """ "$0.0123" ("$1.23" from a dollar on); "?" when nothing is known; "$0.0123+?" when some calls of the
    total have no price (the total is a lower bound)."""
    if unknown_calls and not usd:
        return "?"
    text = f"${usd:.4f}" if usd < 1 else f"${usd:,.2f}"
    return text + ("+?" if unknown_calls else "")


def call_cost(
    usage: Usage | None,
    *,
    model: str,
    provider: str = "",
    base_url: str | None = None,
    when: datetime | None = None,
) -> CallCost:
    """The cost of one call that reported `usage`. The provider's reported cost wins; then the price table,
    looked up by the provider's id there (agent/core/providers.py) or, for an unnamed provider, by its base
    URL. A local endpoint (loopback) or an unknown model gives an unknown cost."""
    if usage is None:
        return CallCost(None, "unknown")
    if usage.reported_cost is not None:
        return CallCost(float(usage.reported_cost), "provider")
    looked_up = _price_lookup(provider, base_url)
    if looked_up is None:
        return CallCost(None, "unknown")
    prices_id, url = looked_up
    _wait_for_warm_up()
    try:
        from genai_prices import Usage as PriceUsage
        from genai_prices import calc_price

        counted = PriceUsage(
            input_tokens=usage.prompt_tokens,
            output_tokens=usage.completion_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
        )
        stamp = when or datetime.now(tz=UTC)
        if prices_id:
            price = calc_price(counted, model, provider_id=prices_id, genai_request_timestamp=stamp)
        else:
            price = calc_price(counted, model, provider_api_url=url, genai_request_timestamp=stamp)
    except LookupError:
        return CallCost(None, "unknown")
    except Exception as exc:  # a price table problem must never break a turn
        log.warning("pricing %s failed: %s", model, exc)
        return CallCost(None, "unknown")
    return CallCost(float(price.total_price), "price-table")


_warming: threading.Thread | None = None
_warming_lock = threading.Lock()


def _price_lookup(provider: str, base_url: str | None) -> tuple[str, str] | None:
    """How the table is asked for a call to `provider` at `base_url`: its provider id there, else the URL.
    None when it cannot have a price: an unnamed provider on a local endpoint (loopback), or with no URL."""
    spec = providers.lookup(provider)
    prices_id = spec.prices_id if spec is not None else ""
    url = base_url or (spec.base_url if spec is not None else "")
    if not prices_id and (not url or _is_local(url)):
        return None
    return prices_id, url


def warm_up(provider: str, base_url: str | None) -> None:
    """Import the price table in a background thread (a tenth of a second of CPU, more on a busy machine),
    so the first call's cost does not wait for it; called when a session's first turn starts, and by the
    app's prewarm. Not when the session's endpoint can have no price (a local server): then no call needs
    the table, and a one-shot run against it does not pay for it. `call_cost` waits for this thread rather
    than importing the package a second time beside it."""
    global _warming
    if _price_lookup(provider, base_url) is None:
        return
    with _warming_lock:
        if _warming is not None or "genai_prices" in sys.modules:
            return

        def load() -> None:
            try:
                import genai_prices  # noqa: F401
            except Exception as exc:  # pricing then reports unknown costs
                log.warning("genai-prices could not be imported: %s", exc)

        _warming = start_warm_thread(load, name="price-table")


def _wait_for_warm_up() -> None:
    thread = _warming
    if thread is not None and thread is not threading.current_thread():
        thread.join(timeout=30)


def prices_are_bundled() -> bool:
    """True when prices come from the table shipped in the package (never a fetched one)."""
    from genai_prices import data_snapshot

    return not data_snapshot.get_snapshot().from_auto_update


def _is_local(url: str) -> bool:
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return False
    return bool(_LOCAL_HOSTS.match(host))

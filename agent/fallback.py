"""Settings for another endpoint: a provider the user switched to (`/model NAME --provider P`), or the next
entry of the fallback chain after a call failed for good.

Apart from the loop so that both build an endpoint one way: the provider's canonical name, its default
URL when none is given, and its key from the entry's own variable or the provider's variables
(`agent/providers.py`), else the current key.
"""

from __future__ import annotations

import os

from pydantic import SecretStr

from agent import providers
from agent.config import FallbackProvider, Settings

__all__ = ["endpoint_settings", "next_fallback"]


def endpoint_settings(
    settings: Settings, provider: str, model: str, base_url: str | None, key_env: str | None = None
) -> Settings:
    provider = providers.canonical(provider)
    key = providers.key_from_env(provider, os.environ, key_env)
    updated = settings.model_copy(update={"provider": provider, "model": model, "base_url": base_url})
    updated.api_key = SecretStr(key) if key else settings.api_key
    return updated


def next_fallback(settings: Settings, index: int) -> tuple[FallbackProvider, Settings] | None:
    """The chain's entry at `index` (0 = the first fallback) and its settings; None past the end."""
    chain = settings.fallback_providers
    if index >= len(chain):
        return None
    entry = chain[index]
    return entry, endpoint_settings(settings, entry.provider, entry.model, entry.base_url, entry.key_env)

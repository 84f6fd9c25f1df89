"""The transport for a configuration: the provider's wire protocol (agent/providers.py), its base URL, its
key, and what that provider needs on the wire (OpenRouter is asked for each call's cost)."""

from __future__ import annotations

from agent import providers
from agent.config import Settings
from agent.transports.base import Transport

__all__ = ["make_transport"]


def make_transport(settings: Settings) -> Transport:
    api_key = settings.api_key.get_secret_value() if settings.api_key else None
    if settings.api_mode == "anthropic":
        from agent.transports.anthropic import AnthropicTransport

        return AnthropicTransport(
            model=settings.model,
            base_url=settings.effective_base_url,
            api_key=api_key,
            stale_timeout=settings.stale_timeout,
            connect_timeout=settings.connect_timeout,
        )
    from agent.transports.openai_chat import OpenAIChatTransport

    base_url = settings.base_url or providers.base_url_for(settings.provider or "openai")
    openrouter = settings.provider == "openrouter" or "openrouter.ai" in (base_url or "")
    return OpenAIChatTransport(
        model=settings.model,
        base_url=base_url,
        api_key=api_key,
        stale_timeout=settings.stale_timeout,
        connect_timeout=settings.connect_timeout,
        # OpenRouter reports each call's cost in `usage.cost` when asked: its figure beats a price table.
        extra_body={"usage": {"include": True}} if openrouter else None,
    )

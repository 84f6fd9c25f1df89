"""The transport for a configuration: the provider's wire protocol, its base URL and key, and what that
endpoint needs on the wire (`agent.transports.endpoint`): its stale-stream timeout, prompt-cache markers."""

from __future__ import annotations

from agent.config import PROVIDER_DEFAULT_URLS, Settings
from agent.transports.base import Transport
from agent.transports.endpoint import Endpoint

__all__ = ["make_transport"]


def make_transport(settings: Settings) -> Transport:
    api_key = settings.api_key.get_secret_value() if settings.api_key else None
    base_url = settings.base_url
    if not base_url and settings.api_mode != "anthropic":
        base_url = PROVIDER_DEFAULT_URLS.get(settings.provider or "openai")
    endpoint = Endpoint(settings.provider or "", base_url or "", settings.model)
    # A timeout the user set (config, HERMES_STREAM_STALE_TIMEOUT) is theirs; else a local endpoint's.
    explicit = "stale_timeout" in settings.model_fields_set
    stale = endpoint.stale_timeout(
        settings.stale_timeout, explicit=explicit, local=settings.local_stale_timeout
    )
    if settings.api_mode == "anthropic":
        from agent.transports.anthropic import AnthropicTransport

        return AnthropicTransport(
            model=settings.model,
            base_url=settings.base_url,
            api_key=api_key,
            stale_timeout=stale,
            connect_timeout=settings.connect_timeout,
        )
    from agent.transports.openai_chat import OpenAIChatTransport

    return OpenAIChatTransport(
        model=settings.model,
        base_url=base_url,
        api_key=api_key,
        stale_timeout=stale,
        connect_timeout=settings.connect_timeout,
        cache_control=endpoint.caches_in_envelope,
    )

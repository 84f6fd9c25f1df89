"""The transport for a configuration: the provider's wire protocol (agent/core/providers.py), its base URL and
key, and what that endpoint needs on the wire (`agent.transports.endpoint`): its stale-stream timeout,
prompt-cache markers, and OpenRouter asked for each call's cost."""

from __future__ import annotations

from agent.config.settings import Settings
from agent.core import providers
from agent.transports.base import Transport
from agent.transports.endpoint import Endpoint

__all__ = ["make_transport"]


def make_transport(settings: Settings) -> Transport:
    """Raises ProviderSetupError when a cloud's credentials or model will not do (the line to show)."""
    api_key = settings.api_key.get_secret_value() if settings.api_key else None
    cloud = settings.cloud_access()
    if cloud is not None:
        base_url = settings.base_url  # else the SDK's own, from the region
    elif settings.api_mode == "anthropic":
        base_url = settings.effective_base_url
    else:
        base_url = settings.base_url or providers.base_url_for(settings.provider or "openai")
    endpoint = Endpoint(settings.provider or "", base_url or "", settings.model)
    if cloud is not None:
        endpoint = Endpoint(settings.provider, base_url or "", settings.model, platform=cloud.platform)
    # A timeout the user set (config, HERMES_STREAM_STALE_TIMEOUT) is theirs; else a local endpoint's.
    explicit = "stale_timeout" in settings.model_fields_set
    stale = endpoint.stale_timeout(
        settings.stale_timeout, explicit=explicit, local=settings.local_stale_timeout
    )
    if settings.api_mode == "anthropic":
        from agent.transports.anthropic import AnthropicTransport

        return AnthropicTransport(
            model=settings.model,
            base_url=base_url,
            api_key=api_key,
            stale_timeout=stale,
            connect_timeout=settings.connect_timeout,
            thinking_replay=endpoint.anthropic_thinking_replay,
            cloud=cloud,
        )
    if settings.api_mode == "codex_responses":
        from agent.transports.responses import ResponsesTransport

        return ResponsesTransport(
            model=settings.model,
            base_url=base_url,
            api_key=api_key,
            stale_timeout=stale,
            connect_timeout=settings.connect_timeout,
            xai=endpoint.host == "api.x.ai" or settings.provider == "xai",
        )
    from agent.transports.openai_chat import OpenAIChatTransport

    return OpenAIChatTransport(
        model=settings.model,
        base_url=base_url,
        api_key=api_key,
        stale_timeout=stale,
        connect_timeout=settings.connect_timeout,
        cache_control=endpoint.caches_in_envelope,
        # OpenRouter reports each call's cost in `usage.cost` when asked: its figure beats a price table.
        extra_body={"usage": {"include": True}} if endpoint.is_openrouter else None,
        endpoint=endpoint,
    )

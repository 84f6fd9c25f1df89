"""Where a session's model calls go: its primary endpoint (with the credential pool's key in use) or, for
the rest of one turn, a fallback provider.

One route per session. A turn's recovery moves it to the next fallback; the next turn's entry (and a model
switch) moves it back to the primary, whose transport is then built again for the session's settings.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import SecretStr

from agent.config.settings import FallbackProvider, Settings, endpoint_settings, next_fallback
from agent.session.key_pool import KeyPool
from agent.transports.base import SDKClientHolder, Transport
from agent.transports.endpoint import Endpoint
from agent.transports.factory import make_transport

__all__ = ["ProviderRoute", "switched_settings"]


def switched_settings(settings: Settings, model: str, provider: str | None, base_url: str | None) -> Settings:
    """`settings` for another model: on the same endpoint (`base_url` None keeps the configured one), or on
    another provider's (its default URL unless `base_url` says, its key from its environment variable)."""
    if provider is None or provider == settings.provider:
        url = settings.base_url if base_url is None else base_url
        return settings.model_copy(update={"model": model, "base_url": url})
    return endpoint_settings(settings, provider, model, base_url)


class ProviderRoute:
    def __init__(self, settings: Callable[[], Settings], transport: Transport | None = None) -> None:
        """`settings`: the session's current settings (they change: `/config`, a model switch, a learned
        window). A `transport` given by the caller is used as is, with no credential pool."""
        self._settings = settings
        self._transport = transport
        current = settings()
        # Several keys for the primary provider (Hermes' credential pool): None with one key.
        self.key_pool: KeyPool | None = KeyPool.for_settings(current) if transport is None else None
        self.fallback_index = 0  # 0 = the primary provider; n = fallback_providers[n-1]
        self.fallback_settings: Settings | None = None  # the endpoint a fallback moved this turn to
        self.model = current.model
        self.provider, self.base_url = current.provider, current.base_url

    @property
    def transport(self) -> Transport:
        if self._transport is None:
            self._transport = make_transport(self.keyed_settings())
        return self._transport

    @property
    def built(self) -> bool:
        """A transport exists (closing the route has something to close)."""
        return self._transport is not None

    @property
    def on_fallback(self) -> bool:
        return bool(self.fallback_index)

    @property
    def active_settings(self) -> Settings:
        """The settings of the endpoint in use: a fallback's during a turn that fell back."""
        return self.fallback_settings or self._settings()

    def keyed_settings(self) -> Settings:
        """The primary settings with the credential pool's key in use: side calls (titles, smart approval)
        go out with the key that is not resting."""
        settings = self._settings()
        if self.key_pool is None:
            return settings
        return settings.model_copy(update={"api_key": SecretStr(self.key_pool.current_key)})

    def use_key(self, key: str) -> None:
        """The primary transport sends `key` from now on (the credential pool chose it)."""
        if isinstance(self._transport, SDKClientHolder):
            self._transport.use_api_key(key)

    def begin_call(self) -> None:
        """A call on the primary starts on the first key whose rest is over."""
        if self.key_pool is not None and not self.fallback_index:
            first = self.key_pool.begin_call()
            if first is not None and self._transport is not None:
                self.use_key(first)

    def endpoint(self) -> Endpoint:
        """Where the next call goes."""
        active = self.active_settings
        return Endpoint(active.provider or "", active.base_url or "", self.model)

    def fall_back(self) -> FallbackProvider | None:
        """Move to the next provider of the fallback chain; None when the chain is spent."""
        found = next_fallback(self._settings(), self.fallback_index)
        if found is None:
            return None
        entry, updated = found
        self.fallback_index += 1
        if self._transport is not None:
            self._transport.close()
        self._transport = make_transport(updated)
        self.fallback_settings = updated
        self.model = entry.model
        self.provider, self.base_url = entry.provider, entry.base_url
        return entry

    def fallback_key_var(self) -> str | None:
        """The key variable of the fallback entry in use, when it names its own (`key_env`)."""
        if not self.fallback_index or self.fallback_settings is None:
            return None
        return self._settings().fallback_providers[self.fallback_index - 1].key_env

    def restore_primary(self) -> None:
        """Back to the primary endpoint; its transport is built again on the next call."""
        self.close()
        self.fallback_index = 0
        self.fallback_settings = None
        settings = self._settings()
        self.model = settings.model
        self.provider, self.base_url = settings.provider, settings.base_url

    def renew_keys(self) -> None:
        """The primary endpoint changed: its own credential pool."""
        self.key_pool = KeyPool.for_settings(self._settings())

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()
        self._transport = None

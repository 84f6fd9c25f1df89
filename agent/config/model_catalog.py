"""The provider's model list (`GET /models`), for the `/model` picker and for refusing a misspelt name.

Asked through the official SDK of the session's protocol (its auth, base URL and error types), cached per
endpoint in `$HERMES_HOME/tui/models.json` for a day (names only: never a key). A provider that cannot list
its models (many local servers) is not an error: the catalog is then unknown and any name is accepted.
"""

from __future__ import annotations

import difflib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from agent.config.settings import Settings
from agent.core.bounded_files import MAX_CONFIG_BYTES, read_bytes
from agent.core.fileio import atomic_write_bytes
from agent.core.tls import sdk_http_client

__all__ = ["ModelCatalog", "closest_models", "load_catalog"]

CACHE_TTL = 24 * 3600.0
TIMEOUT = 10.0


@dataclass
class ModelCatalog:
    models: list[str] = field(default_factory=list)
    problem: str = ""  # why the list is unknown ("" when it was read)
    cached: bool = False

    @property
    def known(self) -> bool:
        return bool(self.models)

    def has(self, name: str) -> bool:
        return not self.known or name in self.models


def closest_models(name: str, models: list[str], n: int = 3) -> list[str]:
    """The names most like `name`: close spellings first, then names containing it."""
    close = difflib.get_close_matches(name, models, n=n, cutoff=0.5)
    inner = [m for m in models if name.lower() in m.lower() and m not in close]
    return (close + inner)[:n]


def _endpoint(settings: Settings) -> str:
    return f"{settings.api_mode} {settings.effective_base_url or ''}"


def load_catalog(settings: Settings, *, refresh: bool = False, now: float | None = None) -> ModelCatalog:
    """The endpoint's models: from the cache when fresh (unless `refresh`), else asked for (blocking, up to
    TIMEOUT seconds: call it off the UI thread)."""
    now = time.time() if now is None else now
    cache_path = settings.hermes_home / "tui" / "models.json"
    key = _endpoint(settings)
    cache = _read_cache(cache_path)
    entry = cache.get(key)
    if not refresh and isinstance(entry, dict) and now - float(entry.get("at", 0)) < CACHE_TTL:
        models = [m for m in entry.get("models", []) if isinstance(m, str)]
        if models:
            return ModelCatalog(models, cached=True)
    try:
        models = _fetch(settings)
    except Exception as exc:  # any SDK or network error: the list is unknown, never fatal
        return ModelCatalog(problem=f"the provider's model list could not be read ({_reason(exc)})")
    if models:
        cache[key] = {"at": now, "models": models}
        try:
            cache_path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(cache_path, json.dumps(cache, indent=1).encode())
        except OSError:
            pass  # a read-only home: no cache, still a list
    return ModelCatalog(models, problem="" if models else "the provider lists no models")


def _reason(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:160]}" if text else type(exc).__name__


def _read_cache(path: Path) -> dict[str, object]:
    try:
        data = json.loads(read_bytes(path, limit=MAX_CONFIG_BYTES).decode("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _fetch(settings: Settings) -> list[str]:
    key = settings.api_key.get_secret_value() if settings.api_key else None
    if settings.api_mode == "anthropic":
        import anthropic

        client = anthropic.Anthropic(
            api_key=key or "none",
            base_url=settings.effective_base_url,
            timeout=TIMEOUT,
            max_retries=0,
            http_client=sdk_http_client(anthropic),
        )
        try:
            return sorted(m.id for m in client.models.list(limit=1000))
        finally:
            client.close()
    import openai

    openai_client = openai.OpenAI(
        api_key=key or "none",
        base_url=settings.effective_base_url,
        timeout=TIMEOUT,
        max_retries=0,
        http_client=sdk_http_client(openai),
    )
    try:
        return sorted(m.id for m in openai_client.models.list())
    finally:
        openai_client.close()

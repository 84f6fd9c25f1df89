"""The context window a local OpenAI-compatible server says it runs with, for the context meter and the
compression threshold when the configuration does not give one (`model.context_length`).

llama.cpp's server (and llama-cpp-python's when built with it) says `n_ctx` in `GET /props`
(`default_generation_settings.n_ctx`, at the server's root, beside `/v1`); vLLM says `max_model_len` in the
model's entry of `GET /v1/models`. A server that says neither leaves the window to the configuration's
default. Asked once per endpoint and model, only of local endpoints, with a short timeout: never an error.

The first session's question is asked ahead, by the app's prewarm thread after its first frame
(`prewarm_served_window`): otherwise its two round trips (and the HTTP client's making) sit between the
first Enter and the request.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agent.config.settings import Settings
from agent.core.prebuilt import Prebuilt
from agent.transports.endpoint import Endpoint

__all__ = [
    "PROBE_TIMEOUT",
    "ServedWindowQuestion",
    "prewarm_served_window",
    "served_context_window",
    "served_window_question",
    "session_served_window",
]

PROBE_TIMEOUT = 3.0
_MAX_BODY = 4 * 1024 * 1024

ServedWindowQuestion = tuple[str, str, str | None]
"""What a session asks its server's window for: the base URL, the model and the key."""

_ASKED_AHEAD: Prebuilt[ServedWindowQuestion, int | None] = Prebuilt(patience=2 * PROBE_TIMEOUT + 1)


def served_window_question(settings: Settings) -> ServedWindowQuestion | None:
    """The question to ask, or None when the configuration gives the window or the server is not a local
    OpenAI-compatible one (clouds say nothing of the kind)."""
    base = settings.effective_base_url
    if settings.context_window or not base or settings.api_mode != "openai_chat":
        return None
    if not Endpoint(settings.provider or "", base, settings.model).is_local:
        return None
    return base, settings.model, settings.api_key.get_secret_value() if settings.api_key else None


def prewarm_served_window(settings: Settings) -> None:
    """Ask now (a background thread), for the first session that will ask the same. A server that cannot
    be reached leaves nothing: the session asks it again (it may have been started since the app was)."""
    question = served_window_question(settings)
    if question is not None:
        _ASKED_AHEAD.build(question, lambda: _asked(*question))


def session_served_window(question: ServedWindowQuestion) -> int | None:
    """The answer asked ahead (once), else asked now."""
    return _ASKED_AHEAD.take(question, lambda: served_context_window(*question))


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _root(base_url: str) -> str:
    base = base_url.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


def window_from_props(data: Any) -> int | None:
    """`n_ctx` of llama.cpp's `/props` (newer builds also give it at the top level)."""
    if not isinstance(data, dict):
        return None
    settings = data.get("default_generation_settings")
    found = _positive(settings.get("n_ctx")) if isinstance(settings, dict) else None
    return found or _positive(data.get("n_ctx"))


def window_from_models(data: Any, model: str) -> int | None:
    """`max_model_len` of `model`'s entry in a `/v1/models` answer (vLLM), or of the only entry."""
    entries = data.get("data") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return None
    cards = [e for e in entries if isinstance(e, dict)]
    named = [e for e in cards if e.get("id") == model] or (cards if len(cards) == 1 else [])
    for card in named:
        found = _positive(card.get("max_model_len"))
        if found:
            return found
    return None


def served_context_window(base_url: str, model: str, api_key: str | None = None) -> int | None:
    """The window the server at `base_url` says it has for `model`, or None (not said, or not reachable)."""
    try:
        return _asked(base_url, model, api_key)
    except Exception:  # any network or decoding trouble: the window stays the configured default
        return None


def _asked(base_url: str, model: str, api_key: str | None) -> int | None:
    """What the server says (None: nothing); raises when it cannot be asked."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    found = _ask(f"{_root(base_url)}/props", headers, window_from_props)
    if found is None:
        found = _ask(f"{base_url.rstrip('/')}/models", headers, lambda d: window_from_models(d, model))
    return found


def _ask(url: str, headers: dict[str, str], read: Callable[[Any], int | None]) -> int | None:
    status, body = _get(url, headers)
    if status != 200 or body is None:
        return None
    try:
        return read(json.loads(body))
    except ValueError:
        return None


def _get(url: str, headers: dict[str, str]) -> tuple[int, bytes | None]:
    """One GET with the standard library's `http.client`: the SDKs' HTTP stack is not imported yet when the
    question is asked ahead (it is being imported beside it), and importing a second one (httpx, and an
    HTTP client with its TLS context) cost the first Enter ~0.08 s of the interpreter's time. No redirect is
    followed (the key is never sent on to another host) and no proxy is used (the server is local). The
    body: None when larger than `_MAX_BODY` (a window is a number, not megabytes of model cards)."""
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an HTTP URL: {url}")
    connection_type = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = connection_type(parts.hostname, parts.port, timeout=PROBE_TIMEOUT)
    try:
        path = parts.path or "/"
        connection.request("GET", f"{path}?{parts.query}" if parts.query else path, headers=headers)
        response = connection.getresponse()
        body = response.read(_MAX_BODY + 1)
        return response.status, body if len(body) <= _MAX_BODY else None
    finally:
        connection.close()

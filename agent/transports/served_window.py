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
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    with httpx.Client(timeout=PROBE_TIMEOUT, headers=headers) as client:
        found = _ask(client, f"{_root(base_url)}/props", window_from_props)
        if found is None:
            found = _ask(client, f"{base_url.rstrip('/')}/models", lambda d: window_from_models(d, model))
        return found


def _ask(client: Any, url: str, read: Any) -> int | None:
    response = client.get(url)
    if response.status_code != 200:
        return None
    try:
        found: int | None = read(response.json())
    except ValueError:
        return None
    return found

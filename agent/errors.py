"""Classify provider failures into what the loop should do and what the user should be told.

The SDKs raise many exception types; the loop needs only: a reason, whether a retry can help, whether to
compress, whether to fall back, and a one-line hint that says how to fix it. SDK types are checked by
name and duck-typed attributes so this module never imports an SDK (they are slow to import).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from agent.exit_reasons import EMPTY_RESPONSE, STREAM_INCOMPLETE, THINKING_EXHAUSTED, TRUNCATED

# Outcomes that are their own exit reason (`stream_incomplete`), not `error:<reason>`.
_BARE_EXIT_REASONS = frozenset({STREAM_INCOMPLETE, THINKING_EXHAUSTED, EMPTY_RESPONSE, TRUNCATED})


class AgentError(Exception):
    """A failure the loop understands. `classified` says what to do about it."""

    def __init__(self, classified: ClassifiedError):
        super().__init__(classified.message)
        self.classified = classified


class StaleStreamError(Exception):
    """No chunk arrived for `stale_timeout` seconds: the stream is considered dead."""


class EmptyStreamError(Exception):
    """The provider closed the stream without a single chunk."""


class StreamIncompleteError(Exception):
    """The reply stream ended without its protocol's terminal event (chat completions: no finish reason
    and no `[DONE]`; Anthropic: no `message_stop`), or the connection broke while the body was read: what
    arrived is only part of the reply."""


class InterruptedByUser(Exception):
    """Raised inside the loop when the interrupt flag is seen; never escapes `run_conversation`."""


@dataclass(frozen=True)
class ClassifiedError:
    reason: str  # auth | billing | rate_limit | overloaded | server_error | timeout | context_overflow |
    # payload_too_large | image_too_large | model_not_found | content_policy | format_error | connection |
    # stream_incomplete | unknown; and the reply outcomes thinking_exhausted | empty_response_exhausted |
    # truncated
    message: str
    retryable: bool
    hint: str
    status_code: int | None = None
    retry_after: float | None = None
    should_compress: bool = False
    should_fallback: bool = False

    @property
    def exit_reason(self) -> str:
        return self.reason if self.reason in _BARE_EXIT_REASONS else f"error:{self.reason}"

    def user_line(self) -> str:
        detail = f" ({self.status_code})" if self.status_code else ""
        return f"{self.hint}{detail}" if self.hint else self.message


_CONTEXT_PATTERNS = (
    "context length",
    "context_length",
    "maximum context",
    "context window",
    "too many tokens",
    "prompt is too long",
    "input is too long",
    "reduce the length",
    "exceeds the context",
    "max_tokens",
)
_BILLING_PATTERNS = (
    "insufficient credits",
    "insufficient_quota",
    "exceeded your current quota",
    "billing",
    "payment",
)
_MODEL_PATTERNS = (
    "model not found",
    "does not exist",
    "unknown model",
    "invalid model",
    "no such model",
    "model_not_found",
)
_POLICY_PATTERNS = ("content policy", "content_policy", "safety", "flagged")
_IMAGE_SIZE_PATTERNS = ("too large", "too big", "exceeds", "maximum", "size limit", "dimensions")


def _body_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("type")
            if msg:
                return str(msg)
        elif isinstance(err, str):
            return err
    response = getattr(exc, "response", None)
    if response is not None:
        try:
            data = json.loads(response.text)
            err = data.get("error", data)
            if isinstance(err, dict) and err.get("message"):
                return str(err["message"])
        except Exception:
            pass
    return str(getattr(exc, "message", "") or exc)


def _retry_after(exc: Any, cap: float = 120.0) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    for name in ("retry-after-ms", "retry-after"):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            value = float(raw)
        except ValueError:
            continue
        if name == "retry-after-ms":
            value /= 1000.0
        return max(0.0, min(value, cap))
    return None


def classify(
    exc: BaseException, *, provider: str = "", model: str = "", base_url: str = ""
) -> ClassifiedError:
    """Map any exception from a model call to a ClassifiedError."""
    if isinstance(exc, AgentError):
        return exc.classified
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    if status is None:
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", None)
    message = _body_message(exc)
    low = message.lower()
    key_var = {"anthropic": "ANTHROPIC_API_KEY", "openrouter": "OPENROUTER_API_KEY"}.get(
        provider, "OPENAI_API_KEY"
    )
    where = base_url or provider or "the provider"

    if isinstance(exc, StaleStreamError):
        return ClassifiedError(
            "timeout", message, True, f"The model stopped sending data ({message}).", should_fallback=True
        )
    if isinstance(exc, json.JSONDecodeError):
        return ClassifiedError("server_error", str(exc), True, "The provider sent a malformed chunk.")
    if isinstance(exc, StreamIncompleteError):
        return ClassifiedError(
            STREAM_INCOMPLETE,
            message,
            True,
            "The connection closed before the reply finished.",
            should_fallback=True,
        )
    if isinstance(exc, EmptyStreamError):
        return ClassifiedError(
            "server_error", message, True, "The provider closed the stream without a reply."
        )
    if name in ("APITimeoutError", "ReadTimeout", "TimeoutException", "TimeoutError", "ConnectTimeout"):
        return ClassifiedError(
            "timeout", message, True, f"The request to {where} timed out.", should_fallback=True
        )
    if name in ("APIConnectionError", "ConnectError", "RemoteProtocolError", "ConnectionError", "ReadError"):
        cause = exc.__cause__ or exc.__context__
        detail = f": {cause}" if cause else ""
        return ClassifiedError(
            "connection",
            f"{message}{detail}",
            True,
            f"Could not reach {where}{detail}. Check the base URL and your network.",
            should_fallback=True,
        )
    if isinstance(status, int):
        retry_after = _retry_after(exc)
        if status in (400, 413, 422) and "image" in low and any(p in low for p in _IMAGE_SIZE_PATTERNS):
            # Not retryable as it is: the loop shrinks the images and retries once (agent/images/parts.py).
            return ClassifiedError(
                "image_too_large", message, False, "The provider refused an image as too large.", status
            )
        if status == 401 or (status == 403 and not any(p in low for p in _BILLING_PATTERNS)):
            return ClassifiedError(
                "auth",
                message,
                False,
                f"The API key was rejected: set {key_var} or run with --api-key.",
                status,
                should_fallback=True,
            )
        if status == 402 or any(p in low for p in _BILLING_PATTERNS):
            return ClassifiedError(
                "billing",
                message,
                False,
                "The provider says the account is out of credits or quota.",
                status,
                should_fallback=True,
            )
        if status == 429:
            if "overload" in low:
                return ClassifiedError(
                    "overloaded",
                    message,
                    True,
                    "The provider is overloaded.",
                    status,
                    retry_after,
                    should_fallback=True,
                )
            return ClassifiedError(
                "rate_limit",
                message,
                True,
                "Rate limited by the provider.",
                status,
                retry_after,
                should_fallback=True,
            )
        if status == 413:
            return ClassifiedError(
                "payload_too_large",
                message,
                True,
                "The request is too large for the provider.",
                status,
                should_compress=True,
            )
        if status in (503, 529):
            return ClassifiedError(
                "overloaded",
                message,
                True,
                "The provider is overloaded.",
                status,
                retry_after,
                should_fallback=True,
            )
        if status >= 500 and any(p in low for p in _CONTEXT_PATTERNS):
            return ClassifiedError(
                "context_overflow",
                message,
                True,
                "The conversation is too long for this model.",
                status,
                should_compress=True,
            )
        if status >= 500:
            return ClassifiedError(
                "server_error",
                message,
                True,
                f"The provider had an error ({message[:80]}).",
                status,
                retry_after,
                should_fallback=True,
            )
        if status in (400, 404, 422) and any(p in low for p in _CONTEXT_PATTERNS):
            return ClassifiedError(
                "context_overflow",
                message,
                True,
                "The conversation is too long for this model.",
                status,
                should_compress=True,
            )
        if (status in (400, 404) and any(p in low for p in _MODEL_PATTERNS)) or (
            status == 404 and "model" in low
        ):
            return ClassifiedError(
                "model_not_found",
                message,
                False,
                f"Unknown model '{model}': pick another with --model or /model.",
                status,
                should_fallback=True,
            )
        if any(p in low for p in _POLICY_PATTERNS):
            return ClassifiedError(
                "content_policy",
                message,
                False,
                "The provider's safety filter refused the request.",
                status,
                should_fallback=True,
            )
        if status == 404:
            return ClassifiedError(
                "model_not_found",
                message,
                False,
                f"{where} answered 404: check the base URL and the model name '{model}'.",
                status,
                should_fallback=True,
            )
        if 400 <= status < 500:
            return ClassifiedError(
                "format_error",
                message,
                False,
                f"The provider rejected the request: {message[:120]}",
                status,
                should_fallback=True,
            )
    if any(p in low for p in _CONTEXT_PATTERNS) and "context" in low:
        return ClassifiedError(
            "context_overflow",
            message,
            True,
            "The conversation is too long for this model.",
            should_compress=True,
        )
    return ClassifiedError(
        "unknown", f"{name}: {message}", True, f"Unexpected error from the provider: {name}: {message[:120]}"
    )


def backoff_delay(
    attempt: int, *, base: float = 2.0, cap: float = 60.0, retry_after: float | None = None
) -> float:
    """Exponential backoff with jitter; a server's Retry-After wins (already capped by `classify`)."""
    if retry_after is not None:
        return retry_after
    # `2 ** int` is typed Any (a negative exponent would give a float); the product is a float here.
    delay: float = min(base * (2 ** max(0, attempt - 1)), cap)
    return delay + random.uniform(0, 0.5 * delay)

"""Classify provider failures into what the loop should do and what the user should be told.

The SDKs raise many exception types; the loop needs only: a reason, whether a retry can help, whether to
compress, whether to fall back, and a one-line hint that says how to fix it. SDK types are checked by
name and duck-typed attributes so this module never imports an SDK (they are slow to import).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass
from typing import Any

from agent.core.exit_reasons import EMPTY_RESPONSE, STREAM_INCOMPLETE, THINKING_EXHAUSTED, TRUNCATED

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


class ProviderSetupError(Exception):
    """The provider cannot be used as configured (a cloud's credentials missing, a model it does not serve,
    a package not installed). The message is the one line the user gets, naming what to set; never a key."""


class InterruptedByUser(Exception):
    """Raised inside the loop when the interrupt flag is seen; never escapes `run_conversation`."""


@dataclass(frozen=True)
class ClassifiedError:
    reason: str  # auth | billing | entitlement | rate_limit | overloaded | server_error | timeout |
    # context_overflow | payload_too_large | image_too_large | model_not_found | content_policy |
    # format_error | thinking_signature | connection | stream_incomplete | unknown; and the reply
    # outcomes thinking_exhausted | empty_response_exhausted | truncated
    message: str
    retryable: bool
    hint: str
    status_code: int | None = None
    retry_after: float | None = None
    should_compress: bool = False
    should_fallback: bool = False

    def __post_init__(self) -> None:
        from agent.core.secrets import redact  # a provider's message may quote the key it refused

        object.__setattr__(self, "message", redact(self.message))

    @property
    def exit_reason(self) -> str:
        return self.reason if self.reason in _BARE_EXIT_REASONS else f"error:{self.reason}"

    @property
    def action(self) -> str:
        """What the loop does first about it: compress | retry | fallback | stop."""
        if self.should_compress:
            return "compress"
        if self.retryable:
            return "retry"
        return "fallback" if self.should_fallback else "stop"

    def user_line(self) -> str:
        from agent.core.secrets import redact  # an error body may quote the key it refused

        detail = f" ({self.status_code})" if self.status_code else ""
        return redact(f"{self.hint}{detail}" if self.hint else self.message)


# The providers' own words, lower case. Each list is matched against the error's whole text: the
# exception, the body's message and an aggregator's wrapped upstream error (OpenRouter's `metadata.raw`).
_CONTEXT_PATTERNS = (
    "context length",
    "context_length",
    "context size",  # Ollama: "context size has been exceeded"
    "maximum context",
    "context window",
    "token limit",
    "too many tokens",
    "prompt is too long",
    "prompt exceeds max length",
    "input is too long",
    "reduce the length",
    "exceeds the context",
    "max_tokens",
    "maximum number of tokens",
    "max_model_len",  # vLLM: "... exceeds the max_model_len"
    "maximum model length",  # vLLM: "prompt length ... exceeds maximum model length"
    "slot context",  # llama.cpp: "slot context: N tokens, ... not enough space"
    "n_ctx_slot",
    "tokens in request more than max tokens allowed",  # Z.ai / Zhipu (code 1210)
    "超过最大长度",  # "exceeds the maximum length"
    "上下文长度",  # "context length"
    "max input token",
    "exceeds the maximum number of input tokens",
)
_CONTEXT_CODES = frozenset({"context_length_exceeded", "max_tokens_exceeded"})
# A request the provider cannot take as written, whatever its size: checked before the context patterns
# ("Unsupported parameter: 'max_tokens' ... use 'max_completion_tokens'" names max_tokens).
_PARAMETER_PATTERNS = (
    "unsupported parameter",
    "unknown parameter",
    "unrecognized request argument",
    "unsupported_parameter",
    "unknown_parameter",
)
_BILLING_PATTERNS = (
    "insufficient credits",
    "insufficient_quota",
    "insufficient balance",
    "credit balance",
    "credits exhausted",
    "no usable credits",
    "exceeded your current quota",
    "billing",
    "payment",
    "key limit exceeded",  # OpenRouter's per-key limit, sent as a 403
    "spending limit",
    "out of funds",
    "balance_depleted",
    "requires available credits",
    "balance is too low",
)
_BILLING_CODES = frozenset(
    {
        "insufficient_quota",
        "billing_not_active",
        "payment_required",
        "insufficient_credits",
        "balance_depleted",
    }
)
# The account is fine but its plan does not cover what was asked for.
_ENTITLEMENT_PATTERNS = (
    "plan does not include",
    "not available on the free tier",
    "model_not_supported_on_free_tier",
    "do not have an active grok subscription",
    "not included in your plan",
)
_RATE_LIMIT_PATTERNS = (
    "rate limit",
    "rate_limit",
    "too many requests",
    "throttled",
    "requests per minute",
    "tokens per minute",
    "rate increased too quickly",  # Alibaba / DashScope
    "resource_exhausted",
    "resource exhausted",
    "resource-exhausted",
    "resourceexhausted",
    "too many concurrent requests",
)
_RATE_LIMIT_CODES = frozenset({"rate_limit_exceeded", "resource_exhausted", "throttled", "rate_limit_error"})
# A usage cap that resets (a rate limit) rather than an empty account (billing).
_USAGE_LIMIT_PATTERNS = ("usage limit", "quota", "limit exceeded")
_TRANSIENT_SIGNALS = ("try again", "retry", "resets at", "reset in", "wait", "window")
_OVERLOAD_PATTERNS = ("overloaded", "at capacity", "over capacity")
_MODEL_PATTERNS = (
    "model not found",
    "does not exist",
    "unknown model",
    "invalid model",
    "is not a valid model",
    "no such model",
    "unsupported model",
    "model_not_found",
)
_MODEL_CODES = frozenset({"model_not_found", "model_not_available", "invalid_model"})
# Verbatim phrases of providers' safety filters (never a bare "policy", which billing errors use too).
_POLICY_PATTERNS = (
    "content policy",
    "content_policy",
    "content_filter",
    "violates our usage policies",
    "your request was flagged",
    "prompt was flagged by our safety",
    "blocked by content filtering",  # Anthropic: "Output blocked by content filtering policy"
    "responses cannot be generated due to safety",
    "responsibleaipolicyviolation",
    "flagged for possible cybersecurity risk",
)
_AUTH_PATTERNS = ("invalid api key", "invalid_api_key", "unauthorized", "authentication", "token expired")
_TIMEOUT_PATTERNS = ("timed out", "deadline exceeded")
_IMAGE_SIZE_PATTERNS = ("too large", "too big", "exceeds", "maximum", "size limit", "dimensions")


def _has(text: str, patterns: tuple[str, ...]) -> bool:
    return any(p in text for p in patterns)


def _error_body(exc: Any) -> dict[str, Any]:
    """The provider's error object: the SDK's `body` (the whole JSON or its `error` member), else the
    response's JSON; {} when there is none."""
    body = getattr(exc, "body", None)
    if not isinstance(body, dict):
        response = getattr(exc, "response", None)
        try:
            body = json.loads(response.text) if response is not None else None
        except Exception:
            body = None
    if not isinstance(body, dict):
        return {}
    inner = body.get("error", body)
    return inner if isinstance(inner, dict) else {"message": str(inner)}


def _wrapped_message(body: dict[str, Any]) -> str:
    """An aggregator's upstream error (OpenRouter: "Provider returned error" with the upstream's own JSON
    in `metadata.raw`): the upstream's message, or ""."""
    metadata = body.get("metadata")
    raw = metadata.get("raw") if isinstance(metadata, dict) else None
    if not isinstance(raw, str) or not raw.strip():
        return ""
    try:
        inner = json.loads(raw)
    except ValueError:
        return raw
    if isinstance(inner, dict):
        err = inner.get("error", inner)
        if isinstance(err, dict):
            return str(err.get("message") or "")
        return str(err)
    return raw


_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|[nrt])")
_SIMPLE_ESCAPES = {"n": "\n", "r": "\r", "t": "\t"}
MESSAGE_CHARS = 1000
"""A provider's message is shown whole up to this (one readable paragraph; a page of HTML is cut)."""


def readable(message: str) -> str:
    """A provider's message as one readable paragraph: the escapes some servers leave in it (`\\x0a`,
    `\\n`, `\\u00e9`, from a body quoted as a Python or JSON string) decoded, whitespace runs made one
    space, cut only past MESSAGE_CHARS."""

    def decode(match: re.Match[str]) -> str:
        code = match.group(1)
        return _SIMPLE_ESCAPES.get(code) or chr(int(code[1:], 16))

    text = " ".join(_ESCAPE.sub(decode, message).split())
    return text if len(text) <= MESSAGE_CHARS else text[: MESSAGE_CHARS - 1] + "…"


def _body_message(exc: Any, body: dict[str, Any]) -> str:
    """The most telling message for the user: the upstream's when an aggregator wrapped one."""
    wrapped = _wrapped_message(body)
    if wrapped:
        return readable(wrapped)
    msg = body.get("message") or body.get("type")
    if msg:
        return readable(str(msg))
    return readable(str(getattr(exc, "message", "") or exc))


def _error_code(body: dict[str, Any]) -> str:
    for value in (body.get("code"), body.get("type"), body.get("error_code")):
        if isinstance(value, str) and value.strip():
            return value.strip().lower()
    return ""


def _status(exc: Any) -> int | None:
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None


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


def key_variable(provider: str) -> str:
    """The environment variable that holds the key for `provider` (Hermes' names), OPENAI_API_KEY for an
    unnamed OpenAI-compatible endpoint."""
    from agent.core.providers import key_env_vars

    found = key_env_vars(provider)
    return found[0] if found else "OPENAI_API_KEY"


_CLOUD_AUTH_HINTS = {
    "bedrock": "AWS Bedrock rejected the credentials: check AWS_PROFILE, AWS_ACCESS_KEY_ID and "
    "AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK, and the model's access in the region.",
    "vertex": "Google Vertex AI rejected the credentials: check the service account "
    "(VERTEX_CREDENTIALS_PATH or GOOGLE_APPLICATION_CREDENTIALS), its project and region, and that the model "
    "is enabled there.",
}


@dataclass(frozen=True)
class _Failure:
    """One failed call as the rules read it."""

    message: str  # for the user
    text: str  # everything matched, lower case
    code: str
    status: int | None
    retry_after: float | None
    key_var: str
    where: str
    model: str
    key_source: str = ""
    """Where the key came from, as the settings say (`flag --api-key`, `env X`, `<home>/.env X`)."""
    cloud: str = ""
    """The cloud whose credentials sign the request (`bedrock`, `vertex`), "" for a key."""

    def error(self, reason: str, retryable: bool, hint: str, **flags: bool) -> ClassifiedError:
        retry_after = self.retry_after if retryable else None
        return ClassifiedError(reason, self.message, retryable, hint, self.status, retry_after, **flags)

    def context_overflow(self) -> ClassifiedError:
        return self.error(
            "context_overflow",
            True,
            "The conversation is too long for this model: /compress it, start a /new session, or pick a "
            "model with a larger context window (model.context_length).",
            should_compress=True,
        )

    def rate_limit(self) -> ClassifiedError:
        hint = "Rate limited by the provider (set fallback_providers to switch instead of waiting)."
        return self.error("rate_limit", True, hint, should_fallback=True)

    def overloaded(self) -> ClassifiedError:
        hint = "The provider is overloaded (set fallback_providers to switch instead of waiting)."
        return self.error("overloaded", True, hint, should_fallback=True)

    def billing(self) -> ClassifiedError:
        hint = (
            f"The provider says the account of {self.key_var} is out of credits or over its spending "
            "limit: top it up, or set fallback_providers."
        )
        return self.error("billing", False, hint, should_fallback=True)

    def entitlement(self) -> ClassifiedError:
        hint = (
            f"The account's plan does not include the model '{self.model}': pick another with --model "
            "or /model."
        )
        return self.error("entitlement", False, hint, should_fallback=True)

    def auth(self) -> ClassifiedError:
        if self.cloud:
            hint = _CLOUD_AUTH_HINTS.get(self.cloud, "The cloud provider rejected the credentials.")
            return self.error("auth", False, hint, should_fallback=True)
        if self.key_source.startswith("flag"):
            hint = (
                "The API key given with --api-key was rejected: check it (typo, revoked, another provider's)."
            )
        elif self.key_source:
            where = self.key_source.removeprefix("env ")
            origin = f"the environment variable {where}" if self.key_source.startswith("env ") else where
            hint = f"The API key from {origin} was rejected: replace it there, or pass --api-key."
        else:
            hint = f"The API key was rejected: set {self.key_var} or run with --api-key."
        return self.error("auth", False, hint, should_fallback=True)

    def model_not_found(self) -> ClassifiedError:
        hint = f"Unknown model '{self.model}': pick another with --model or /model."
        return self.error("model_not_found", False, hint, should_fallback=True)

    def timeout(self) -> ClassifiedError:
        hint = f"The request to {self.where} timed out."
        return self.error("timeout", True, hint, should_fallback=True)

    def format_error(self) -> ClassifiedError:
        hint = f"The provider rejected the request: {self.message}"
        return self.error("format_error", False, hint, should_fallback=True)

    def server_error(self) -> ClassifiedError:
        hint = f"The provider had an error ({self.message})."
        return self.error("server_error", True, hint, should_fallback=True)


_STATED_WINDOW = re.compile(r"maximum context length is (\d[\d,]*) tokens", re.IGNORECASE)


def _n_ctx(value: Any) -> int | None:
    """llama.cpp's `n_ctx` field anywhere in an error body."""
    if isinstance(value, dict):
        found = value.get("n_ctx")
        if isinstance(found, int) and not isinstance(found, bool) and found > 0:
            return found
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            if (inner := _n_ctx(item)) is not None:
                return inner
    return None


def stated_context_window(exc: BaseException) -> int | None:
    """The context window an overflow error states, or None: OpenAI's wording, which vLLM and
    llama-cpp-python use too ("This model's maximum context length is 2048 tokens"), or llama.cpp's
    `n_ctx` beside its `exceed_context_size_error`."""
    body = getattr(exc, "body", None)
    found = _n_ctx(body)
    if found is not None:
        return found
    text = f"{exc} {json.dumps(body, default=str) if body is not None else ''}"
    match = _STATED_WINDOW.search(text)
    window = int(match.group(1).replace(",", "")) if match else 0
    return window if window > 0 else None


def classify(
    exc: BaseException,
    *,
    provider: str = "",
    model: str = "",
    base_url: str = "",
    key_var: str | None = None,
    key_source: str = "",
) -> ClassifiedError:
    """Map any exception from a model call to a ClassifiedError. `key_var`: the variable the key came
    from when not the provider's own (a fallback entry's `key_env`); `key_source`: how the key was given
    (the settings' `sources["api_key"]`), so a rejected key's hint says where to fix it."""
    if isinstance(exc, AgentError):
        return exc.classified
    known = _known_exception(exc, base_url or provider or "the provider")
    if known is not None:
        return known
    body = _error_body(exc)
    message = _body_message(exc, body)
    sources = [str(exc), str(body.get("message") or ""), _wrapped_message(body)]
    failure = _Failure(
        message=message,
        text=" ".join(dict.fromkeys(s.lower() for s in sources if s)),
        code=_error_code(body),
        status=_status(exc),
        retry_after=_retry_after(exc),
        key_var=key_var or key_variable(provider),
        where=base_url or provider or "the provider",
        model=model,
        key_source=key_source,
        cloud=_cloud(provider),
    )
    found = _by_content(failure)
    if found is None and failure.status is not None:
        found = _by_status(failure, failure.status)
    if found is None:
        found = _by_code(failure) or _by_message(failure)
    if found is not None:
        return found
    name = type(exc).__name__
    return ClassifiedError(
        "unknown", f"{name}: {message}", True, f"Unexpected error from the provider: {name}: {message}"
    )


def _cloud(provider: str) -> str:
    from agent.core.providers import lookup

    spec = lookup(provider)
    return spec.platform if spec is not None else ""


def _known_exception(exc: BaseException, where: str) -> ClassifiedError | None:
    """Our own stream failures and the transports' timeout and connection errors (by type name)."""
    name = type(exc).__name__
    message = str(getattr(exc, "message", "") or exc)
    if isinstance(exc, ProviderSetupError):
        return ClassifiedError("auth", message, False, message, should_fallback=True)
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
        if _refused(exc) and _is_loopback(where):
            # A local server that is not running will not start while we back off: say so at once
            # (retrying took 18 s before the line came).
            return ClassifiedError(
                "connection",
                f"{message}{detail}",
                False,
                f"Nothing is listening at {where} (connection refused): start the local model server, "
                "or check the port in the base URL.",
                should_fallback=True,
            )
        return ClassifiedError(
            "connection",
            f"{message}{detail}",
            True,
            f"Could not reach {where}{detail}. Check the base URL and your network.",
            should_fallback=True,
        )
    return None


def hung_up_without_response(exc: BaseException) -> bool:
    """The server closed the connection before any response: httpx's "Server disconnected without sending
    a response", or a connection reset while the SDK was still sending the request or waiting for its status
    line (its `APIConnectionError`: a reset in the middle of a stream is not wrapped so). From a local server
    it is a refusal, not a network fault: llama-cpp-python's server does either (a race) to a streamed
    prompt over its window, when it does not answer with an empty stream."""
    request_phase = type(exc).__name__ == "APIConnectionError"
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:  # causes only: what an earlier failure left as
        # the context of this one (a retry made while handling it) is not this failure
        if type(current).__name__ == "RemoteProtocolError" and "without sending a response" in str(current):
            return True
        if request_phase and isinstance(current, ConnectionResetError):
            return True
        seen.add(id(current))
        current = current.__cause__
    return False


def _refused(exc: BaseException) -> bool:
    """A connection refused somewhere in the exception's chain (the SDKs wrap httpx, which wraps OSError)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, ConnectionRefusedError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _is_loopback(where: str) -> bool:
    import ipaddress
    from urllib.parse import urlsplit

    host = (urlsplit(where).hostname or "") if "://" in where else where
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _by_content(f: _Failure) -> ClassifiedError | None:
    """What the words alone settle, whatever the status: a safety refusal, a thinking block's signature."""
    if _has(f.text, _POLICY_PATTERNS):
        hint = "The provider's safety filter refused the request."
        return f.error("content_policy", False, hint, should_fallback=True)
    if f.status == 400 and "thinking" in f.text and _has(f.text, ("signature", "cannot be modified")):
        # Retried once as it is; a second refusal stops the turn with this line.
        hint = "The provider refused a thinking block replayed from an earlier reply."
        return f.error("thinking_signature", True, hint)
    return None


def _by_status(f: _Failure, status: int) -> ClassifiedError | None:
    text = f.text
    if status in (400, 413, 422) and "image" in text and _has(text, _IMAGE_SIZE_PATTERNS):
        # Not retryable as it is: the loop shrinks the images and retries once (agent/images/parts.py).
        return f.error("image_too_large", False, "The provider refused an image as too large.")
    if status == 401:
        return f.auth()
    if status in (402, 403, 404) and _has(text, _ENTITLEMENT_PATTERNS):
        return f.entitlement()
    if status == 402 or (status in (403, 404) and _has(text, _BILLING_PATTERNS)):
        if _has(text, _USAGE_LIMIT_PATTERNS) and _has(text, _TRANSIENT_SIGNALS):
            return f.rate_limit()  # "usage limit, try again in 5 minutes": a cap that resets
        return f.billing()
    if status == 403:
        return f.auth()
    if status == 408:  # the server says so itself: retrying is safe (RFC 9110 15.5.9)
        return f.timeout()
    if status == 413:
        hint = "The request is too large for the provider."
        return f.error("payload_too_large", True, hint, should_compress=True)
    if status == 429:
        if "extra usage" in text and "long context" in text:
            # Anthropic's tier gate: a context this long needs "extra usage"; a shorter one is served.
            return f.context_overflow()
        if _has(text, _OVERLOAD_PATTERNS):
            return f.overloaded()
        if _has(text, _BILLING_PATTERNS):
            return f.billing()
        return f.rate_limit()
    if status >= 500:
        if _has(text, _PARAMETER_PATTERNS):
            return f.format_error()  # a gateway's 5xx for a bad parameter: it fails the same every time
        if _has(text, _CONTEXT_PATTERNS) or f.code in _CONTEXT_CODES:
            return f.context_overflow()
        return f.overloaded() if status in (503, 529) else f.server_error()
    if status == 404 and not _has(text, _MODEL_PATTERNS) and "model" not in text:
        hint = f"{f.where} answered 404: check the base URL and the model name '{f.model}'."
        return f.error("model_not_found", False, hint, should_fallback=True)
    if 400 <= status < 500:
        return _client_error(f)
    return None


def _client_error(f: _Failure) -> ClassifiedError:
    """A 4xx the status alone does not explain: providers send rate limits, billing and context overflow
    as a 400 too."""
    text = f.text
    if _has(text, _PARAMETER_PATTERNS) or f.code in ("unsupported_parameter", "unknown_parameter"):
        hint = f"The provider rejected a request parameter: {f.message}"
        return f.error("format_error", False, hint, should_fallback=True)
    if _has(text, _CONTEXT_PATTERNS) or f.code in _CONTEXT_CODES:
        return f.context_overflow()
    if _has(text, _MODEL_PATTERNS) or f.code in _MODEL_CODES or (f.status == 404 and "model" in text):
        return f.model_not_found()
    if _has(text, _RATE_LIMIT_PATTERNS) or f.code in _RATE_LIMIT_CODES:
        return f.rate_limit()
    if _has(text, _ENTITLEMENT_PATTERNS):
        return f.entitlement()
    if _has(text, _BILLING_PATTERNS) or f.code in _BILLING_CODES:
        return f.billing()
    return f.format_error()


def _by_code(f: _Failure) -> ClassifiedError | None:
    """No status (an error event inside a stream): the body's code."""
    if f.code in _CONTEXT_CODES:
        return f.context_overflow()
    if f.code in _RATE_LIMIT_CODES:
        return f.rate_limit()
    if f.code in _BILLING_CODES:
        return f.billing()
    if f.code in _MODEL_CODES:
        return f.model_not_found()
    return None


def _by_message(f: _Failure) -> ClassifiedError | None:
    """No status and no known code: the words."""
    text = f.text
    if _has(text, _CONTEXT_PATTERNS) and not _has(text, _PARAMETER_PATTERNS):
        return f.context_overflow()
    if _has(text, _USAGE_LIMIT_PATTERNS):
        return f.rate_limit() if _has(text, _TRANSIENT_SIGNALS) else f.billing()
    if _has(text, _OVERLOAD_PATTERNS):
        return f.overloaded()
    if _has(text, _ENTITLEMENT_PATTERNS):
        return f.entitlement()
    if _has(text, _BILLING_PATTERNS):
        return f.billing()
    if _has(text, _RATE_LIMIT_PATTERNS):
        return f.rate_limit()
    if _has(text, _AUTH_PATTERNS):
        return f.auth()
    if _has(text, _MODEL_PATTERNS):
        return f.model_not_found()
    if _has(text, _TIMEOUT_PATTERNS):
        return f.timeout()
    return None


def backoff_delay(
    attempt: int, *, base: float = 2.0, cap: float = 60.0, retry_after: float | None = None
) -> float:
    """Exponential backoff with jitter; a server's Retry-After wins (already capped by `classify`)."""
    if retry_after is not None:
        return retry_after
    # `2 ** int` is typed Any (a negative exponent would give a float); the product is a float here.
    delay: float = min(base * (2 ** max(0, attempt - 1)), cap)
    return delay + random.uniform(0, 0.5 * delay)

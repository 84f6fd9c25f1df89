"""Error classification: every provider failure maps to a reason, a retry decision and a hint."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx
import openai
import pytest

from agent.core.errors import StaleStreamError, backoff_delay, classify


class FakeResponse:
    def __init__(self, status: int, headers: dict[str, str] | None = None, body: dict | None = None) -> None:
        self.status_code = status
        self.headers = headers or {}
        self.text = json.dumps(body or {})


class FakeStatusError(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status_code = status
        self.body = {"error": {"message": message}}
        self.response = FakeResponse(status, headers, self.body)


@pytest.mark.parametrize(
    ("status", "message", "reason", "retryable"),
    [
        (401, "Incorrect API key", "auth", False),
        (403, "forbidden", "auth", False),
        (402, "Payment required", "billing", False),
        (429, "You exceeded your current quota", "billing", False),
        (429, "Rate limit reached", "rate_limit", True),
        (529, "Overloaded", "overloaded", True),
        (503, "Service unavailable", "overloaded", True),
        (500, "Internal error", "server_error", True),
        (400, "This model's maximum context length is 8192 tokens", "context_overflow", True),
        (413, "Request too large", "payload_too_large", True),
        (404, "The model `gpt-9` does not exist", "model_not_found", False),
        (400, "Invalid value for 'messages'", "format_error", False),
    ],
)
def test_status_errors(status: int, message: str, reason: str, retryable: bool) -> None:
    c = classify(FakeStatusError(status, message), provider="openai", model="gpt-9")
    assert (c.reason, c.retryable) == (reason, retryable)
    assert c.hint and "Traceback" not in c.user_line()


def test_retry_after_is_honoured_and_capped() -> None:
    c = classify(FakeStatusError(429, "slow down", {"retry-after": "3"}))
    assert c.retry_after == 3.0 and backoff_delay(1, retry_after=c.retry_after) == 3.0
    c = classify(FakeStatusError(429, "slow down", {"retry-after": "99999"}))
    assert c.retry_after == 120.0


def test_backoff_grows_with_jitter_and_cap() -> None:
    first = [backoff_delay(1) for _ in range(50)]
    assert all(2.0 <= d <= 3.0 for d in first)
    assert all(60.0 <= backoff_delay(10) <= 90.0 for _ in range(20))


def test_auth_hint_names_the_key_variable() -> None:
    assert "ANTHROPIC_API_KEY" in classify(FakeStatusError(401, "x"), provider="anthropic").hint
    assert "OPENAI_API_KEY" in classify(FakeStatusError(401, "x"), provider="openai").hint


def test_stale_stream_is_a_retryable_timeout() -> None:
    c = classify(StaleStreamError("no data for 180 s"))
    assert c.reason == "timeout" and c.retryable


# ------------------------------------------------------- providers' own words, as the SDKs raise them


def sdk_error(status: int, body: dict[str, Any], api: str = "openai") -> Exception:
    """The exception the real SDK raises for this HTTP answer (built by the SDK from the response itself;
    nothing is sent)."""
    url = "http://127.0.0.1:9/v1"
    request = httpx.Request("POST", f"{url}/chat/completions")
    response = httpx.Response(status, request=request, json=body)
    client: Any = (
        anthropic.Anthropic(api_key="k", base_url="http://127.0.0.1:9")
        if api == "anthropic"
        else openai.OpenAI(api_key="k", base_url=url)
    )
    error: Exception = client._make_status_error_from_response(response)
    return error


def openai_body(message: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "code": code}}


def openrouter_wrapped(message: str) -> dict[str, Any]:
    raw = json.dumps({"error": {"message": message, "code": 400}})
    return {"error": {"message": "Provider returned error", "code": 400, "metadata": {"raw": raw}}}


@pytest.mark.parametrize(
    ("status", "message"),
    [
        pytest.param(408, "Request Timeout", id="408-request-timeout"),
        pytest.param(408, "Timed out reading request body", id="408-timed-out-reading-body"),
    ],
)
def test_408_is_a_retried_timeout_not_a_format_error(status: int, message: str) -> None:
    c = classify(sdk_error(status, openai_body(message)))
    assert (c.reason, c.retryable, c.action) == ("timeout", True, "retry")


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(openai_body("rate limit exceeded on this model"), id="400-rate-limit-exceeded"),
        pytest.param(openai_body("Request rate increased too quickly"), id="400-dashscope-rate-increased"),
        pytest.param(openrouter_wrapped("Rate limit exceeded: free-models-per-min"), id="400-openrouter-raw"),
    ],
)
def test_rate_limit_sent_as_400_is_retried(body: dict[str, Any]) -> None:
    c = classify(sdk_error(400, body), provider="openrouter")
    assert (c.reason, c.retryable, c.should_compress) == ("rate_limit", True, False)


CONTEXT_MESSAGES = [
    pytest.param(400, openai_body("context size has been exceeded"), id="ollama"),
    pytest.param(
        400,
        openai_body("slot context: 4096 tokens, prompt 5000 tokens; not enough space, try increasing it"),
        id="llama.cpp",
    ),
    pytest.param(
        400,
        openai_body("This model's maximum context length is 8192. The prompt exceeds the max_model_len"),
        id="vllm-max-model-len",
    ),
    pytest.param(
        400,
        openai_body("The engine prompt length 9000 exceeds maximum model length 8192"),
        id="vllm-prompt-length",
    ),
    pytest.param(
        400, openai_body("Tokens in request more than max tokens allowed", code="1210"), id="zai-1210"
    ),
    pytest.param(400, openai_body("输入内容超过最大长度限制"), id="chinese"),
    pytest.param(
        400, openrouter_wrapped("This endpoint's maximum context length is 4096 tokens"), id="openrouter-raw"
    ),
]


@pytest.mark.parametrize(("status", "body"), CONTEXT_MESSAGES)
def test_context_overflow_in_each_providers_words_compresses(status: int, body: dict[str, Any]) -> None:
    c = classify(sdk_error(status, body))
    assert (c.reason, c.should_compress, c.action) == ("context_overflow", True, "compress")


@pytest.mark.parametrize("status", [500, 502, 503, 529])
def test_context_overflow_sent_as_5xx_compresses_instead_of_retrying_unchanged(status: int) -> None:
    body = openai_body("slot context: 4096 tokens, prompt 5000 tokens; not enough space")
    c = classify(sdk_error(status, body))
    assert (c.reason, c.should_compress) == ("context_overflow", True)


def test_streamed_context_length_exceeded_code_compresses() -> None:
    # A chat-completions stream's `error` chunk: the transport raises the SDK's APIError, no status.
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    error = openai.APIError(
        "An error occurred during streaming",
        request=request,
        body={"message": "An error occurred during streaming", "code": "context_length_exceeded"},
    )
    c = classify(error)
    assert (c.reason, c.should_compress) == ("context_overflow", True)


def test_unsupported_max_tokens_parameter_is_not_context_overflow() -> None:
    message = (
        "Unsupported parameter: 'max_tokens' is not supported with this model. "
        "Use 'max_completion_tokens' instead."
    )
    c = classify(sdk_error(400, openai_body(message, code="unsupported_parameter")))
    assert (c.reason, c.should_compress, c.retryable) == ("format_error", False, False)
    assert "max_completion_tokens" in c.hint


@pytest.mark.parametrize(
    "message",
    [
        pytest.param("Key limit exceeded", id="openrouter-key-limit"),
        pytest.param("Your monthly spending limit reached", id="spending-limit"),
    ],
)
def test_403_spending_limits_are_billing_not_a_rejected_key(message: str) -> None:
    c = classify(sdk_error(403, openai_body(message)), provider="openrouter")
    assert (c.reason, c.retryable) == ("billing", False)
    assert "rejected" not in c.hint and "OPENROUTER_API_KEY" in c.hint


def test_403_plan_without_the_model_is_entitlement() -> None:
    c = classify(
        sdk_error(403, openai_body("Your plan does not include the requested model")), model="big-model"
    )
    assert (c.reason, c.should_fallback) == ("entitlement", True)
    assert "big-model" in c.hint and "rejected" not in c.hint


def test_a_plain_403_is_still_a_rejected_key() -> None:
    assert classify(sdk_error(403, openai_body("forbidden")), provider="deepseek").reason == "auth"


def test_auth_hint_names_the_providers_own_key_variable() -> None:
    c = classify(sdk_error(401, openai_body("Authentication Fails")), provider="deepseek")
    assert "DEEPSEEK_API_KEY" in c.user_line() and "OPENAI_API_KEY" not in c.user_line()


def test_anthropic_safety_refusal_is_content_policy() -> None:
    body = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "Your prompt was flagged by our safety system"},
    }
    c = classify(sdk_error(400, body, api="anthropic"), provider="anthropic")
    assert (c.reason, c.retryable, c.should_fallback) == ("content_policy", False, True)


def test_thinking_signature_is_its_own_class() -> None:
    body = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "Invalid `signature` in `thinking` block"},
    }
    c = classify(sdk_error(400, body, api="anthropic"), provider="anthropic")
    assert c.reason == "thinking_signature" and not c.should_compress


def test_usage_limit_that_resets_is_a_rate_limit_not_billing() -> None:
    c = classify(sdk_error(402, openai_body("Usage limit reached, try again in 5 minutes")))
    assert (c.reason, c.retryable) == ("rate_limit", True)
    assert classify(sdk_error(402, openai_body("Insufficient credits"))).reason == "billing"


def test_overloaded_429_backs_off_on_the_same_key() -> None:
    c = classify(
        sdk_error(429, openai_body("The service may be temporarily overloaded, please try again later"))
    )
    assert (c.reason, c.retryable) == ("overloaded", True)


def test_404_paid_model_without_credits_is_billing() -> None:
    message = (
        "Model 'openai/gpt-5.5-pro' requires available credits. Your account balance is too low to use paid "
        "models — add credits at https://portal.nousresearch.com or pick a free model."
    )
    c = classify(sdk_error(404, {"status": 404, "message": message}), provider="nous")
    assert (c.reason, c.retryable, c.should_fallback) == ("billing", False, True)


@pytest.mark.parametrize("spelling", ["resource exhausted", "RESOURCE_EXHAUSTED", "ResourceExhausted"])
def test_resource_exhausted_without_a_status_is_a_rate_limit(spelling: str) -> None:
    c = classify(RuntimeError(f"{spelling}: Worker local total request limit reached (32/32)"))
    assert (c.reason, c.retryable) == ("rate_limit", True)


def test_anthropic_long_context_tier_429_compresses() -> None:
    body = {
        "type": "error",
        "error": {
            "type": "rate_limit_error",
            "message": "Extra usage is required for long context requests over 200k tokens",
        },
    }
    c = classify(sdk_error(429, body, api="anthropic"), provider="anthropic")
    assert (c.reason, c.should_compress) == ("context_overflow", True)


def test_anthropic_content_filtering_block_is_content_policy() -> None:
    body = {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "Output blocked by content filtering policy"},
    }
    c = classify(sdk_error(400, body, api="anthropic"), provider="anthropic")
    assert (c.reason, c.retryable) == ("content_policy", False)


@pytest.mark.parametrize(
    ("status", "message", "setting"),
    [
        (429, "Rate limit reached", "fallback_providers"),
        (529, "Overloaded", "fallback_providers"),
        (400, "This model's maximum context length is 8192 tokens", "model.context_length"),
        (402, "Insufficient credits", "OPENROUTER_API_KEY"),
        (401, "Incorrect API key", "OPENROUTER_API_KEY"),
    ],
)
def test_each_hint_names_what_to_set(status: int, message: str, setting: str) -> None:
    c = classify(sdk_error(status, openai_body(message)), provider="openrouter")
    assert setting in c.user_line() and "\n" not in c.user_line()


@pytest.mark.parametrize(
    ("source", "says", "never"),
    [
        ("flag --api-key", "given with --api-key was rejected", "run with --api-key"),
        ("env OPENAI_API_KEY", "environment variable OPENAI_API_KEY was rejected", "run with --api-key"),
        ("/home/u/.hermes/.env OPENAI_API_KEY", "/home/u/.hermes/.env OPENAI_API_KEY was rejected", "set "),
        ("", "set OPENAI_API_KEY or run with --api-key", "given with"),
    ],
)
def test_a_rejected_key_says_where_it_came_from(source: str, says: str, never: str) -> None:
    error = classify(FakeStatusError(401, "Incorrect API key"), provider="openai", key_source=source)
    assert error.reason == "auth" and says in error.hint and never not in error.hint


def test_a_hang_up_before_any_response_is_told_from_a_reset_mid_stream() -> None:
    """llama-cpp-python drops a streamed prompt over its window: "Server disconnected without sending a
    response", or a reset while the SDK waits for the status line (wrapped as its APIConnectionError). A
    reset in the middle of a stream (httpx's own ReadError, unwrapped) is not a hang-up."""
    import httpx
    import openai

    from agent.core.errors import hung_up_without_response

    request = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions")

    def wrapped(cause: BaseException) -> openai.APIConnectionError:
        error = openai.APIConnectionError(request=request)
        error.__cause__ = cause
        return error

    disconnected = httpx.RemoteProtocolError("Server disconnected without sending a response.")
    reset = httpx.ReadError("[Errno 104] Connection reset by peer")
    reset.__cause__ = ConnectionResetError(104, "Connection reset by peer")
    assert hung_up_without_response(wrapped(disconnected))
    assert hung_up_without_response(wrapped(reset))
    assert not hung_up_without_response(reset)  # mid-stream: the SDK does not wrap it
    assert not hung_up_without_response(wrapped(httpx.ConnectError("[Errno 111] Connection refused")))

"""Error classification: every provider failure maps to a reason, a retry decision and a hint."""

from __future__ import annotations

import json

import pytest

from agent.errors import StaleStreamError, backoff_delay, classify


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

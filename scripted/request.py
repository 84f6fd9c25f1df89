"""A model request as the scripted server received it, and what tells one conversation from another."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Api", "RecordedRequest", "first_user_text"]

Api = Literal["openai", "anthropic", "responses", "bedrock", "oauth"]
"""`bedrock`: Claude's invoke routes on Bedrock (event-stream framing); Vertex's streamRawPredict speaks
`anthropic`; `oauth`: a Google token request (a service account's JWT exchanged for an access token)."""


@dataclass(frozen=True)
class RecordedRequest:
    """A model request as the server received it."""

    path: str
    headers: dict[str, str]
    """Header names in lowercase."""
    body: dict[str, Any]
    """The parsed JSON body (empty when it was not valid JSON)."""
    time: float
    """`time.monotonic()` at arrival."""
    api: Api = "openai"
    method: str = "POST"
    raw: bytes = b""
    call_index: int | None = None
    """Index in `scenario.calls` of the call that answered; None for the fallback or no call."""

    @property
    def stream(self) -> bool:
        return self.body.get("stream") is True


def first_user_text(body: dict[str, Any]) -> str:
    """The text of a request's first user message (OpenAI or Anthropic shape; text parts joined)."""
    for message in body.get("messages") or body.get("input") or []:  # chat, messages, Responses
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        return ""
    return ""

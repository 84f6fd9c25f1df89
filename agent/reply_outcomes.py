"""Replies that are not answers: empty ones, ones that spent the whole output budget thinking, ones still cut
at the output limit after the continuations. How to recognise each, and the one line the user gets.

The loop decides what to do (retry with a nudge, fall back, stop); this module only names the cases, so the
loop, the headless runner and the TUI say the same thing about them.
"""

from __future__ import annotations

from typing import Any

from agent.errors import ClassifiedError
from agent.exit_reasons import EMPTY_RESPONSE, THINKING_EXHAUSTED, TRUNCATED
from agent.transports.base import ModelResponse

__all__ = [
    "EMPTY_AGAIN",
    "EMPTY_NUDGE",
    "EMPTY_NUDGE_AFTER_TOOLS",
    "empty_response_error",
    "is_empty",
    "is_thinking_exhausted",
    "nudge_messages",
    "thinking_exhausted_error",
    "truncated_error",
]

EMPTY_NUDGE_AFTER_TOOLS = (
    "You just executed tool calls but returned an empty response. Please process the tool results above "
    "and continue with the task."
)
"""Hermes' post-tool nudge, word for word."""
EMPTY_NUDGE = "You returned an empty response. Please answer the last message above."


def is_thinking_exhausted(response: ModelResponse) -> bool:
    """Cut at the output limit with reasoning but not a word of answer (a `<think>` block counts: the
    transport moved it to `reasoning`). A continuation would only think more."""
    return (
        response.finish_reason == "length"
        and not response.tool_calls
        and not response.text.strip()
        and bool(response.reasoning.strip())
    )


def is_empty(response: ModelResponse) -> bool:
    """No answer text and no tool call (reasoning alone is not an answer), and not a refusal."""
    if response.tool_calls or response.text.strip() or response.finish_reason == "content_filter":
        return False
    return not is_thinking_exhausted(response)


def nudge_messages(after_tools: bool) -> list[dict[str, Any]]:
    """What the retry of an empty reply adds on the wire only: the empty turn, then the nudge (so the
    roles still alternate). Never stored: the transcript keeps what was really said."""
    return [
        {"role": "assistant", "content": "(empty)"},
        {"role": "user", "content": EMPTY_NUDGE_AFTER_TOOLS if after_tools else EMPTY_NUDGE},
    ]


EMPTY_AGAIN = ClassifiedError(
    EMPTY_RESPONSE, "the model returned no text and no tool calls", False, "The reply was empty again."
)
"""What the fallback notice says before it names the provider it falls back to."""


def thinking_exhausted_error() -> ClassifiedError:
    return ClassifiedError(
        THINKING_EXHAUSTED,
        "the model used all its output tokens on reasoning",
        False,
        "The model used its whole output budget thinking and wrote no answer (its reasoning is kept): "
        "raise max_output_tokens or lower the reasoning effort.",
    )


def empty_response_error(*, fell_back: bool) -> ClassifiedError:
    tried = "asked again and tried the fallback providers" if fell_back else "asked again"
    return ClassifiedError(
        EMPTY_RESPONSE,
        "the model returned no text and no tool calls",
        False,
        f"The model returned an empty reply ({tried}): try again, rephrase, or pick another model with "
        "/model.",
        should_fallback=True,
    )


def truncated_error(continuations: int) -> ClassifiedError:
    return ClassifiedError(
        TRUNCATED,
        f"the reply remained truncated after {continuations} continuations",
        False,
        f"The reply is still cut at the output limit after {continuations} continuations, so it is "
        "incomplete: raise max_output_tokens or ask for a shorter answer.",
    )

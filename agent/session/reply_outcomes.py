"""Replies that are not answers: empty ones, ones that spent the whole output budget thinking, ones still cut
at the output limit after the continuations, tool calls cut at the output limit, calls to tools that do not
exist, a safety filter's refusal, a budget summary with no text. How to recognise each, and the one line the
user gets.

The loop decides what to do (retry with a nudge, fall back, stop); this module only names the cases, so the
loop, the headless runner and the TUI say the same thing about them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agent.core.errors import ClassifiedError
from agent.core.exit_reasons import EMPTY_RESPONSE, THINKING_EXHAUSTED, TRUNCATED
from agent.transports.base import ModelResponse

__all__ = [
    "BUDGET_NO_SUMMARY",
    "CUT_TOOL_CALL_RETRIES",
    "EMPTY_AGAIN",
    "EMPTY_NUDGE",
    "EMPTY_NUDGE_AFTER_TOOLS",
    "UNKNOWN_TOOL_STRIKES",
    "content_filter_error",
    "context_full_error",
    "cut_tool_call_cap",
    "cut_tool_call_error",
    "empty_response_error",
    "empty_stream_overflow",
    "empty_stream_unknown_window",
    "fills_context",
    "is_empty",
    "is_thinking_exhausted",
    "nudge_messages",
    "thinking_exhausted_error",
    "truncated_error",
    "unknown_tools_error",
]

CUT_TOOL_CALL_RETRIES = 4
"""A tool call cut at the output limit is never run: the call is asked again this many times, each with a
doubled output cap (Hermes' numbers)."""
UNKNOWN_TOOL_STRIKES = 3
CONTEXT_FULL_SHARE = 0.95
"""A `length`-cut reply whose prompt and reply use this share of the context window hit the window, not
the output cap (the count is the server's own, or the bytes / 4 estimate)."""
EMPTY_OVERFLOW_SHARE = 0.6
"""An empty 200 stream for a request estimated at this share of the window or more is taken as llama.cpp's
overflow (it says nothing else): the estimate (bytes / 4) can be well under the model's own count."""
"""Replies in a row whose every call names a tool that is not offered, before the turn stops (Hermes' 3)."""
BUDGET_NO_SUMMARY = "I reached the iteration limit ({limit} model calls) and couldn't generate a summary."
"""The budget summary's text when the model gave none, even when asked twice (Hermes' words)."""

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


def context_full_error(used: int, window: int) -> ClassifiedError:
    """A reply cut where the context window ends (prompt plus reply filled it): asking the model to go
    on would only send a longer prompt into the same wall."""
    return ClassifiedError(
        TRUNCATED,
        f"the reply filled the context window ({used} of {window} tokens)",
        False,
        f"The reply stopped where the model's context window ends ({used:,} of {window:,} tokens), so it is "
        "incomplete: /compress the conversation or start a /new session, then ask again.",
    )


def empty_stream_overflow(used: int, window: int) -> ClassifiedError | None:
    """llama.cpp answers a prompt longer than its window with a 200 and an empty stream: near a full window
    that is a context overflow (compress, then retry), not a server fault to retry as is."""
    if window <= 0 or used < window * EMPTY_OVERFLOW_SHARE:
        return None
    return ClassifiedError(
        "context_overflow",
        f"the server sent an empty reply with the context near full ({used} of {window} tokens)",
        True,
        f"The conversation is too long for this model (the server sent an empty reply at about {used:,} of "
        f"{window:,} tokens): /compress it, start a /new session, or pick a model with a larger context "
        "window (model.context_length).",
        should_compress=True,
    )


def empty_stream_unknown_window(classified: ClassifiedError, used: int) -> ClassifiedError:
    """An empty stream from a local server whose window nobody told us (llama-cpp-python has no `/props`):
    the likeliest cause is a request longer than its `n_ctx`, which a bare "closed without a reply" hides."""
    hint = (
        f"{classified.hint} A local server sends nothing when the request (about {used:,} tokens here) does "
        "not fit its context window: if so, start it with a larger n_ctx, or give its n_ctx as "
        "model.context_length so the conversation is compressed to fit."
    )
    return replace(classified, hint=hint)


def fills_context(used: int, window: int) -> bool:
    """True when a `length`-cut reply ended at the context window rather than at the output cap."""
    return window > 0 and used >= window * CONTEXT_FULL_SHARE


def cut_tool_call_cap(configured: int | None, retry: int) -> int:
    """The output cap of the `retry`-th request after a tool call was cut: the configured cap (4096 when
    none) doubled per retry, at most 32768 (or the configured cap when it is higher)."""
    base = configured or 4096
    boosted: int = base << retry  # base * 2**retry, typed as an int
    return min(boosted, max(32768, base))


def cut_tool_call_error(retries: int) -> ClassifiedError:
    return ClassifiedError(
        TRUNCATED,
        f"the tool call was still cut at the output limit after {retries} retries",
        False,
        f"The model's tool call was cut at the output limit {retries + 1} times, so it was not run: raise "
        "max_output_tokens or ask for smaller steps.",
    )


def unknown_tools_error(names: list[str], strikes: int) -> ClassifiedError:
    listed = ", ".join(sorted(set(names))) or "(no name)"
    return ClassifiedError(
        "invalid_tool_call",
        f"the model called tools that do not exist: {listed}",
        False,
        f"The model kept calling tools it does not have ({listed}): stopped after {strikes} tries.",
    )


def content_filter_error(fell_back: bool) -> ClassifiedError:
    tried = " (the fallback providers refused too)" if fell_back else ""
    return ClassifiedError(
        "content_filter",
        "the provider's safety filter stopped the reply",
        False,
        f"The model declined to respond: the provider's safety filter stopped the reply{tried}. Rephrase "
        "the request, or set fallback_providers to try another model.",
        should_fallback=True,
    )

"""The scripted model the fuzzer talks to: every turn streams, calls tools, asks a clarify question and asks
for approval, so whatever the fuzzer presses lands during one of them.

A sequence's mode decides what its first turn does first (`plan.MODES`): stream a long reply, ask a
question at once, or ask for approval at once; every later message plays the whole cycle again.
"""

from __future__ import annotations

from typing import Any

SCRATCH = "fuzz-scratch"
"""The folder the risky command removes (in the test's temp working directory): approving it is harmless."""

_MARKDOWN = (
    "## A heading\n\nSome **bold**, some *italics*, `code`, a [link](http://127.0.0.1/) and [not markup]."
    "\n\n- one\n- two\n  - nested\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\ndef f(x):\n"
    "    return x * 2\n```\n\n> a quote \x1b[31mwith an escape\x1b[0m\n\n"
)


def _stream(repeat: int) -> dict[str, Any]:
    return {
        "first_delay": 0.2,
        "reasoning": "Thinking about what to show. " * 8,
        "text": _MARKDOWN * repeat,
        "chunk_size": 12,
        "delay": 0.01,
        "tool_calls": [
            {"name": "terminal", "arguments": {"command": "echo fuzz; printf 'a\\tb\\x1b[31mred\\n'"}},
            {"name": "todo", "arguments": {"todos": [{"id": "1", "content": "fuzz", "status": "pending"}]}},
        ],
    }


CLARIFY: dict[str, Any] = {
    "first_delay": 0.1,
    "text": "One question:",
    "tool_calls": [
        {
            "name": "clarify",
            "arguments": {"question": "Which one?", "choices": ["First", "Second", "Third"]},
        }
    ],
}

APPROVAL: dict[str, Any] = {
    "first_delay": 0.1,
    "text": "This needs your approval:",
    "tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf ./{SCRATCH}"}}],
}

FINAL: dict[str, Any] = {"first_delay": 0.1, "delay": 0.01, "text": "Done. " + _MARKDOWN}


def fuzz_scenario(mode: str, turns: int = 12) -> dict[str, Any]:
    """The calls for a sequence starting in `mode`, then `turns` full cycles."""
    first: list[dict[str, Any]] = {
        "idle": [],
        "setup": [],
        "stream": [_stream(8), FINAL],
        "clarify": [CLARIFY, FINAL],
        "approval": [APPROVAL, FINAL],
    }[mode]
    cycle = [_stream(2), CLARIFY, APPROVAL, FINAL]
    return {
        "name": f"fuzz-{mode}",
        "calls": first + cycle * turns,
        "fallback": {"text": "Fallback reply.", "delay": 0.01},
    }

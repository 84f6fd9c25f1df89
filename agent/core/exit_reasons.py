"""Why a turn ended: the loop's names, the names stored for Hermes users, and what each one tells the user.

Two vocabularies, on purpose. The loop's names (`TurnResult.exit_reason`, `TurnFinished.exit_reason`) are
the engine's API: the TUI, headless mode's exit code, plugins and the tests read them, and the four that
predate this module (`completed`, `interrupted`, `budget_exhausted`, `error:<reason>`) keep their meaning.
The store records Hermes' names (`stored_name`), so a Hermes user reading `hermes-tui sessions` sees the
words Hermes' own logs use: `text_response`, `interrupted_by_user`, `max_iterations_reached`,
`context_overflow`, `error:<reason>`; the newer outcomes have one name in both.

A turn that did not complete keeps what the model wrote; the stored assistant row says why in
`meta["incomplete"]` (one of the names below), and `reply_marker` gives the line shown under that reply,
live and when the session is opened again.
"""

from __future__ import annotations

__all__ = [
    "BUDGET_EXHAUSTED",
    "COMPLETED",
    "EMPTY_RESPONSE",
    "INTERRUPTED",
    "INTERRUPTED_NAMES",
    "INTERRUPTED_NOTE",
    "STREAM_INCOMPLETE",
    "THINKING_EXHAUSTED",
    "TRUNCATED",
    "is_success",
    "reply_marker",
    "session_status",
    "stored_name",
]

COMPLETED = "completed"
INTERRUPTED = "interrupted"
BUDGET_EXHAUSTED = "budget_exhausted"  # the iteration budget ran out; the model was asked to summarize
STREAM_INCOMPLETE = "stream_incomplete"  # the reply stream broke off on every attempt
THINKING_EXHAUSTED = "thinking_exhausted"  # the whole output budget went to reasoning, no answer
EMPTY_RESPONSE = "empty_response_exhausted"  # no text and no tool calls, after the nudge and the fallbacks
TRUNCATED = "truncated"  # still cut at the output limit after the continuations

_STORED = {
    COMPLETED: "text_response",
    INTERRUPTED: "interrupted_by_user",
    BUDGET_EXHAUSTED: "max_iterations_reached",
    "error:context_overflow": "context_overflow",
}
_SUCCESS = frozenset({COMPLETED, BUDGET_EXHAUSTED})
INTERRUPTED_NAMES = frozenset({INTERRUPTED, _STORED[INTERRUPTED]})
"""An interrupted turn in either vocabulary (a resumed session's last turn is read from the store)."""
INTERRUPTED_NOTE = "[Request interrupted by user]"
"""What the model reads before the user's next message after Esc (Claude Code's words): its partial reply
(or none) was cut by the user, not finished. Kept in that message's `api_content`, so every later request
and a resume send it again byte for byte."""
_MARKERS = {
    STREAM_INCOMPLETE: "incomplete: the connection closed before the reply finished",
    TRUNCATED: "truncated: the reply is still cut at the output limit",
    THINKING_EXHAUSTED: "no answer: the model used its whole output budget thinking",
    EMPTY_RESPONSE: "no answer: the model's reply was empty",
}
_FAILED_CALL_MARKER = "incomplete: the model call failed before the reply finished"


def stored_name(exit_reason: str) -> str:
    """Hermes' name for a loop exit reason (what the store records per turn)."""
    return _STORED.get(exit_reason, exit_reason)


def is_success(exit_reason: str) -> bool:
    """The turn ended the way it should (headless mode exits 0): a full answer, or the budget summary."""
    return exit_reason in _SUCCESS


def session_status(exit_reason: str) -> str:
    """The session's status after a turn that ended so (`agent.store` SESSION_STATUSES)."""
    if exit_reason == INTERRUPTED:
        return "interrupted"
    return "completed" if is_success(exit_reason) else "error"


def reply_marker(incomplete: object) -> str | None:
    """The line under a reply whose stored `meta["incomplete"]` is `incomplete` (None: nothing to mark).

    A reply kept from a call that failed for another reason is marked too: a partial reply is never
    presented as complete."""
    if not isinstance(incomplete, str) or not incomplete:
        return None
    if incomplete in _MARKERS:
        return _MARKERS[incomplete]
    return _FAILED_CALL_MARKER if incomplete.startswith("error:") else None

"""What a failed model call tries before it gives up: an ordered table of steps.

A call that raised is classified (`agent.core.errors.classify`) and handed to each step of `STEPS` in order;
the first that decides says what happens next:

1. `rotate_key`: the credential pool's next key, at once (not one of the call's retries);
2. `shrink_images`: a provider refused an image as too large: the images go smaller, for the session;
3. `compress`: the request is too big: the conversation is summarized (at most a few times a turn);
4. `fall_back`: out of retries (or retrying cannot help) and the error allows it: the next fallback
   provider, whose retries start again;
5. `back_off`: a retry after a delay the user can interrupt, or give up once retries are spent.

Each step only reads the failure and acts through its `RecoveryHost` (the model call), so the table is
tested without HTTP (`tests/engine/test_recovery.py`). Replies that arrive but are not usable (empty, cut,
refused) are the turn's to handle (`agent.session.turn`, `agent.session.reply_outcomes`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Protocol

from agent.core.errors import ClassifiedError, backoff_delay
from agent.session.key_pool import KeyTurn

__all__ = ["STEPS", "Failure", "RecoveryHost", "Verdict", "recover"]


class Verdict(enum.Enum):
    NOT_MINE = "not mine"  # the next step decides
    RETRY = "retry"  # again at once; not one of the call's retries
    RETRY_COUNTED = "retry counted"  # again after a backoff: one of the call's retries
    RETRY_FRESH = "retry fresh"  # again on another provider: its retries start again
    GIVE_UP = "give up"
    STOPPED = "stopped"  # the user interrupted the wait


@dataclass
class Failure:
    """One failed attempt: the classified error (a step may add to its hint) and the call's retries so far."""

    error: ClassifiedError
    retries: int
    max_retries: int

    @property
    def exhausted(self) -> bool:
        """Sending it again cannot help: too big even after compression, not retryable, or out of retries."""
        error = self.error
        return error.should_compress or not error.retryable or self.retries + 1 > self.max_retries


class RecoveryHost(Protocol):
    """What the steps act through: the model call that failed, its session and what it streamed."""

    def notice(self, text: str) -> None:
        """A retry notice for the user."""

    def discard(self, error: ClassifiedError) -> None:
        """Withdraw what the failed attempt streamed (a retry follows)."""

    def next_key(self, error: ClassifiedError, retry_left: bool) -> KeyTurn | None:
        """The credential pool's answer to the failure; None without a pool (or on a fallback)."""

    def use_key(self, key: str) -> None: ...

    def images_shrunk(self) -> bool: ...

    def shrink_images(self) -> None: ...

    def may_compress(self) -> bool: ...

    def compress(self, reason: str) -> bool:
        """Summarize the conversation; True when it got shorter."""

    def fall_back(self, error: ClassifiedError) -> bool:
        """Move to the next fallback provider (saying so); False when there is none."""

    def wait(self, delay: float) -> bool:
        """Sleep before a retry; True when the user interrupted meanwhile."""

    def keep_failed(self, error: ClassifiedError) -> None:
        """Keep what the failed attempt streamed (the call ends here)."""


Step = Callable[[RecoveryHost, Failure], Verdict]


def rotate_key(host: RecoveryHost, failure: Failure) -> Verdict:
    error = failure.error
    retry_left = error.retryable and failure.retries < failure.max_retries
    turn = host.next_key(error, retry_left)
    if turn is None:
        return Verdict.NOT_MINE
    if turn.key is not None:
        host.discard(error)
        host.use_key(turn.key)
        host.notice(turn.notice)
        return Verdict.RETRY
    if turn.note:  # every key rests: the error's line says how many were tried
        failure.error = replace(error, hint=f"{error.hint} {turn.note}".strip())
    return Verdict.NOT_MINE


def shrink_images(host: RecoveryHost, failure: Failure) -> Verdict:
    if failure.error.reason != "image_too_large" or host.images_shrunk():
        return Verdict.NOT_MINE
    host.shrink_images()  # for the rest of the session: the provider's limit is lower
    host.discard(failure.error)
    host.notice(f"{failure.error.hint} Sending the images smaller.")
    return Verdict.RETRY


def compress(host: RecoveryHost, failure: Failure) -> Verdict:
    error = failure.error
    if not error.should_compress or not host.may_compress():
        return Verdict.NOT_MINE
    host.discard(error)
    return Verdict.RETRY if host.compress(f"the provider said: {error.hint}") else Verdict.NOT_MINE


def fall_back(host: RecoveryHost, failure: Failure) -> Verdict:
    if not (failure.exhausted and failure.error.should_fallback):
        return Verdict.NOT_MINE
    if not host.fall_back(failure.error):
        return Verdict.NOT_MINE
    host.discard(failure.error)
    return Verdict.RETRY_FRESH


def back_off(host: RecoveryHost, failure: Failure) -> Verdict:
    if failure.exhausted:
        return Verdict.GIVE_UP
    error = failure.error
    attempt = failure.retries + 1
    host.discard(error)
    delay = backoff_delay(attempt, retry_after=error.retry_after)
    host.notice(f"{error.hint} Retrying in {delay:.0f} s (attempt {attempt} of {failure.max_retries}).")
    if host.wait(delay):
        host.keep_failed(error)  # closes a reused partial row
        return Verdict.STOPPED
    return Verdict.RETRY_COUNTED


STEPS: tuple[Step, ...] = (rotate_key, shrink_images, compress, fall_back, back_off)


def recover(host: RecoveryHost, failure: Failure, steps: tuple[Step, ...] = STEPS) -> Verdict:
    """The first step's verdict that is not `NOT_MINE` (a table whose steps all pass gives up)."""
    for step in steps:
        verdict = step(host, failure)
        if verdict is not Verdict.NOT_MINE:
            return verdict
    return Verdict.GIVE_UP

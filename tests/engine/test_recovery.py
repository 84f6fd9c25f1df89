"""The recovery table of a failed model call (`agent.session.recovery`), step by step, without HTTP: each
step is given a failure and a host that records what the step did."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.core.errors import ClassifiedError
from agent.session.key_pool import KeyTurn
from agent.session.recovery import (
    STEPS,
    Failure,
    Verdict,
    back_off,
    compress,
    fall_back,
    recover,
    rotate_key,
    shrink_images,
)


def error(reason: str = "server_error", **kw: object) -> ClassifiedError:
    values: dict[str, object] = {
        "message": f"{reason} happened",
        "retryable": True,
        "hint": "The provider failed.",
    }
    values.update(kw)
    return ClassifiedError(reason=reason, **values)  # type: ignore[arg-type]


@dataclass
class FakeHost:
    """A model call as the steps see it: every action is recorded in order."""

    key_turn: KeyTurn | None = None
    shrunk: bool = False
    compress_allowed: bool = True
    compress_works: bool = True
    fallback_left: int = 0
    interrupted: bool = False
    did: list[str] = field(default_factory=list)
    key_retry_left: list[bool] = field(default_factory=list)

    def notice(self, text: str) -> None:
        self.did.append(f"notice:{text}")

    def discard(self, error: ClassifiedError) -> None:
        self.did.append("discard")

    def next_key(self, error: ClassifiedError, retry_left: bool) -> KeyTurn | None:
        self.key_retry_left.append(retry_left)
        return self.key_turn

    def use_key(self, key: str) -> None:
        self.did.append(f"use_key:{key}")

    def images_shrunk(self) -> bool:
        return self.shrunk

    def shrink_images(self) -> None:
        self.shrunk = True
        self.did.append("shrink")

    def may_compress(self) -> bool:
        return self.compress_allowed

    def compress(self, reason: str) -> bool:
        self.did.append(f"compress:{reason}")
        return self.compress_works

    def fall_back(self, error: ClassifiedError) -> bool:
        if self.fallback_left:
            self.fallback_left -= 1
            self.did.append("fall_back")
            return True
        return False

    def wait(self, delay: float) -> bool:
        self.did.append("wait")
        return self.interrupted

    def keep_failed(self, error: ClassifiedError) -> None:
        self.did.append("keep_failed")


def test_the_table_is_in_order() -> None:
    assert list(STEPS) == [rotate_key, shrink_images, compress, fall_back, back_off]


def test_another_key_retries_at_once_without_counting() -> None:
    host = FakeHost(key_turn=KeyTurn(key="k2", notice="Key 1 of 2 refused: trying key 2."))
    failure = Failure(error("auth", retryable=False), retries=0, max_retries=2)
    assert rotate_key(host, failure) is Verdict.RETRY
    assert host.did == ["discard", "use_key:k2", "notice:Key 1 of 2 refused: trying key 2."]
    assert host.key_retry_left == [False]  # not retryable: the pool rotates now rather than backing off


def test_without_a_pool_the_key_step_passes() -> None:
    host = FakeHost()
    assert rotate_key(host, Failure(error(), retries=0, max_retries=2)) is Verdict.NOT_MINE
    assert host.did == []


def test_every_key_resting_adds_the_note_and_passes() -> None:
    host = FakeHost(key_turn=KeyTurn(note="(2 keys tried)"))
    failure = Failure(error("rate_limit"), retries=1, max_retries=2)
    assert rotate_key(host, failure) is Verdict.NOT_MINE
    assert failure.error.hint == "The provider failed. (2 keys tried)"
    assert host.key_retry_left == [True]


def test_a_too_large_image_is_shrunk_once() -> None:
    host = FakeHost()
    failure = Failure(error("image_too_large", hint="Image too large."), retries=0, max_retries=2)
    assert shrink_images(host, failure) is Verdict.RETRY
    assert host.did == ["shrink", "discard", "notice:Image too large. Sending the images smaller."]
    assert shrink_images(host, failure) is Verdict.NOT_MINE  # already smaller: the next steps decide
    assert shrink_images(FakeHost(), Failure(error(), 0, 2)) is Verdict.NOT_MINE


def test_an_overflow_compresses_and_retries() -> None:
    host = FakeHost()
    failure = Failure(error("context_overflow", should_compress=True, hint="Too long."), 0, 2)
    assert compress(host, failure) is Verdict.RETRY
    assert host.did == ["discard", "compress:the provider said: Too long."]


def test_compression_that_cannot_run_or_fails_passes() -> None:
    overflow = Failure(error("context_overflow", should_compress=True), 0, 2)
    assert compress(FakeHost(compress_allowed=False), overflow) is Verdict.NOT_MINE
    failed = FakeHost(compress_works=False)
    assert compress(failed, overflow) is Verdict.NOT_MINE
    assert compress(FakeHost(), Failure(error(), 0, 2)) is Verdict.NOT_MINE  # not an overflow


def test_fallback_only_once_retrying_cannot_help() -> None:
    host = FakeHost(fallback_left=1)
    retryable = Failure(error(should_fallback=True), retries=0, max_retries=2)
    assert fall_back(host, retryable) is Verdict.NOT_MINE  # retries left: back off first
    spent = Failure(error(should_fallback=True), retries=2, max_retries=2)
    assert fall_back(host, spent) is Verdict.RETRY_FRESH
    assert host.did == ["fall_back", "discard"]
    assert fall_back(host, spent) is Verdict.NOT_MINE  # the chain is spent


def test_backoff_counts_a_retry_and_gives_up_when_spent() -> None:
    host = FakeHost()
    failure = Failure(error(hint="Busy.", retry_after=3.0), retries=0, max_retries=2)
    assert back_off(host, failure) is Verdict.RETRY_COUNTED
    assert host.did == ["discard", "notice:Busy. Retrying in 3 s (attempt 1 of 2).", "wait"]
    assert back_off(FakeHost(), Failure(error(), retries=2, max_retries=2)) is Verdict.GIVE_UP
    assert back_off(FakeHost(), Failure(error(retryable=False), 0, 2)) is Verdict.GIVE_UP


def test_an_interrupted_backoff_keeps_what_streamed_and_stops() -> None:
    host = FakeHost(interrupted=True)
    assert back_off(host, Failure(error(retry_after=1.0), 0, 2)) is Verdict.STOPPED
    assert host.did[-2:] == ["wait", "keep_failed"]


def test_the_table_walks_to_the_first_step_that_decides() -> None:
    host = FakeHost(fallback_left=1)
    overflow = Failure(error("context_overflow", should_compress=True, should_fallback=True), 0, 2)
    host.compress_works = False  # compression cannot shrink it: sending it again cannot help
    assert recover(host, overflow) is Verdict.RETRY_FRESH
    assert host.did[-2:] == ["fall_back", "discard"]
    assert recover(FakeHost(compress_works=False), overflow) is Verdict.GIVE_UP  # no fallback: it fails


def test_a_table_whose_steps_all_pass_gives_up() -> None:
    assert recover(FakeHost(), Failure(error(), 0, 2), steps=(rotate_key, shrink_images)) is Verdict.GIVE_UP

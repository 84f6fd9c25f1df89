"""`Prebuilt`: what the prewarm thread builds ahead is taken once, waited for while it is being built, and
never built twice at once."""

from __future__ import annotations

import threading

from agent.core.prebuilt import Prebuilt


def test_a_value_built_ahead_is_taken_once_then_made_anew() -> None:
    built: Prebuilt[str, object] = Prebuilt()
    ahead = object()
    built.build("k", lambda: ahead)
    assert built.pending("k")
    assert built.take("k", object) is ahead
    assert not built.pending("k")
    later = built.take("k", lambda: "made")
    assert later == "made"


def test_nothing_built_ahead_or_another_key_makes_its_own() -> None:
    built: Prebuilt[str, str] = Prebuilt()
    built.build("a", lambda: "for a")
    assert built.take("b", lambda: "made for b") == "made for b"
    assert built.take("a", lambda: "made for a") == "for a"


def test_a_taker_waits_for_the_build_in_progress_instead_of_making_a_second() -> None:
    built: Prebuilt[str, str] = Prebuilt()
    started, release = threading.Event(), threading.Event()
    makes: list[str] = []

    def slow() -> str:
        started.set()
        release.wait(10)
        makes.append("ahead")
        return "ahead"

    builder = threading.Thread(target=built.build, args=("k", slow))
    builder.start()
    assert started.wait(10)
    built.build("k", lambda: makes.append("second") or "second")  # in progress: not built again
    got: list[str] = []
    taker = threading.Thread(target=lambda: got.append(built.take("k", lambda: makes.append("own") or "own")))
    taker.start()
    release.set()
    taker.join(10)
    builder.join(10)
    assert got == ["ahead"] and makes == ["ahead"]


def test_a_failed_build_leaves_the_taker_to_make_its_own() -> None:
    built: Prebuilt[str, str] = Prebuilt()

    def broken() -> str:
        raise OSError("no route")

    built.build("k", broken)
    assert not built.pending("k")
    assert built.take("k", lambda: "own") == "own"


def test_a_build_slower_than_the_patience_is_not_waited_for() -> None:
    built: Prebuilt[str, str] = Prebuilt(patience=0.0)
    started, release = threading.Event(), threading.Event()

    def stuck() -> str:
        started.set()
        release.wait(10)
        return "late"

    builder = threading.Thread(target=built.build, args=("k", stuck))
    builder.start()
    assert started.wait(10)
    try:
        assert built.take("k", lambda: "own") == "own"
    finally:
        release.set()
        builder.join(10)

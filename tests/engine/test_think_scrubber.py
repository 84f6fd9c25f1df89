"""`<think>` blocks in answer text, fed the way a stream delivers them: split at every possible point."""

from __future__ import annotations

import pytest

from agent.transports.think_scrubber import ThinkScrubber, scrub


def _feed(pieces: list[str]) -> tuple[str, str]:
    scrubber = ThinkScrubber()
    answer, reasoning = [], []
    for piece in pieces:
        for is_reasoning, text in scrubber.feed(piece):
            (reasoning if is_reasoning else answer).append(text)
    for is_reasoning, text in scrubber.finish():
        (reasoning if is_reasoning else answer).append(text)
    return "".join(answer), "".join(reasoning)


REPLY = "<think>Weigh the options.</think>\n\nThe answer is <b>bold</b> 4."


@pytest.mark.parametrize("cut", range(1, len(REPLY)))
def test_a_tag_split_at_any_point_is_still_caught(cut: int) -> None:
    assert _feed([REPLY[:cut], REPLY[cut:]]) == ("The answer is <b>bold</b> 4.", "Weigh the options.")


def test_one_character_at_a_time() -> None:
    assert _feed(list(REPLY)) == ("The answer is <b>bold</b> 4.", "Weigh the options.")


@pytest.mark.parametrize("tag", ["think", "thinking", "reasoning", "THINK", "REASONING_SCRATCHPAD"])
def test_every_tag_name_hermes_knows(tag: str) -> None:
    assert scrub(f"<{tag}>hmm</{tag}>Answer.") == ("Answer.", "hmm")


def test_a_tag_mid_sentence_is_prose() -> None:
    text = "Write <think> before your reasoning."
    assert scrub(text) == (text, "")


def test_an_orphan_closing_tag_is_dropped() -> None:
    assert scrub("</think>The answer.") == ("The answer.", "")


def test_a_block_still_open_at_the_end_is_reasoning() -> None:
    assert _feed(["<think>still going", " and go"]) == ("", "still going and go")


def test_a_tail_that_never_became_a_tag_is_text() -> None:
    assert _feed(["Use a <th"]) == ("Use a <th", "")
    assert _feed(["x\n<thi"]) == ("x\n<thi", "")


def test_plain_text_passes_through_unchanged() -> None:
    assert _feed(["a < b and ", "c > d"]) == ("a < b and c > d", "")


MID_LINE = "Hello <think>note</think> world"


def test_a_closed_pair_mid_line_is_reasoning() -> None:
    assert scrub(MID_LINE) == ("Hello world", "note")


@pytest.mark.parametrize("cut", range(1, len(MID_LINE)))
def test_a_closed_pair_mid_line_split_at_any_point(cut: int) -> None:
    assert _feed([MID_LINE[:cut], MID_LINE[cut:]]) == ("Hello world", "note")


def test_a_closed_pair_mid_line_one_character_at_a_time() -> None:
    assert _feed(list(MID_LINE)) == ("Hello world", "note")


def test_a_stray_closing_tag_before_a_pair() -> None:
    assert scrub("</think>Hello <think>note</think> world") == ("Hello world", "note")
    assert scrub("Hi</think> there <think>x</think> you") == ("Hi there you", "x")


def test_a_mid_line_pair_of_another_tag_name() -> None:
    assert scrub("Result: <thinking>check units</thinking>42 m") == ("Result: 42 m", "check units")


def test_a_mid_line_opening_tag_without_its_close_is_shown_once_the_stream_ends() -> None:
    text = "Write <think> before your reasoning,\nthen the answer."
    assert _feed([text[:9], text[9:20], text[20:]]) == (text, "")


def test_a_mid_line_opening_tag_is_released_as_prose_after_max_pending() -> None:
    from agent.transports.think_scrubber import MAX_PENDING

    scrubber = ThinkScrubber()
    shown = scrubber.feed("Use <think> like this: ")
    assert "".join(t for r, t in shown if not r) == "Use "  # held: a closing tag may still come
    shown = scrubber.feed("x" * (MAX_PENDING + 1))
    assert "".join(t for r, t in shown if not r) == "<think> like this: " + "x" * (MAX_PENDING + 1)
    assert scrubber.feed("</think> end") == [(False, " end")]  # an orphan now: dropped

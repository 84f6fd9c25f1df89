"""`<think>` blocks in answer text, fed the way a stream delivers them: split at every possible point."""

from __future__ import annotations

import pytest

from agent.think_scrubber import ThinkScrubber, scrub


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

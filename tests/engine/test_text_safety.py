"""`visible_controls` through its translation table shows every character as the per-character rule says
(`is_kept`, else its stand-in), for each way of showing, the first time and once the table is filled, and
past the table's bound."""

from __future__ import annotations

from typing import Any

import pytest

from agent.core import text_safety
from agent.core.text_safety import PASTE_KEEP, control_token, is_kept, visible_controls

WAYS = [{}, {"keep": PASTE_KEEP, "formats": False}, {"keep": "\t"}, {"keep": ""}]
"""The display's default, a paste's, headless stderr's and an error line's."""
SAMPLE = "".join(map(chr, range(0x2100))) + "\ud800\udfff\u200b\u202e\ufeff\U0001f44d\U000e0001\U0010ffff"


def by_rule(value: str, keep: str = "\n\t", formats: bool = True) -> str:
    """The definition, one character at a time."""
    kept = set(keep)
    shown = []
    for char in value:
        if is_kept(char, kept, formats):
            shown.append(char)
        elif 0xD800 <= ord(char) <= 0xDFFF:
            shown.append("\ufffd")
        else:
            shown.append(control_token(char))
    return "".join(shown)


@pytest.mark.parametrize("way", WAYS, ids=["display", "paste", "stderr", "line"])
def test_every_character_is_shown_as_the_rule_says(way: dict[str, Any]) -> None:
    expected = by_rule(SAMPLE, **way)
    assert visible_controls(SAMPLE, **way) == expected
    assert visible_controls(SAMPLE, **way) == expected  # now from the filled table


def test_the_ways_do_not_share_answers() -> None:
    """A character kept by one way and shown as a token by another is answered for each as its own."""
    assert visible_controls("a\rb\u200bc") == "a\\x0db\\u200bc"
    assert visible_controls("a\rb\u200bc", keep=PASTE_KEEP, formats=False) == "a\rb\u200bc"
    assert visible_controls("a\rb\u200bc") == "a\\x0db\\u200bc"


def test_past_the_tables_bound_characters_are_shown_by_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text_safety._ShownAs, "LIMIT", 10)
    text_safety._shown_as.cache_clear()
    try:
        value = "".join(map(chr, range(0x7F, 0x400))) + "\n\x1b"
        assert visible_controls(value) == by_rule(value)
        assert visible_controls(value) == by_rule(value)
        assert len(text_safety._shown_as("\n\t", True)) == 10
    finally:
        text_safety._shown_as.cache_clear()

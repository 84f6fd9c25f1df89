"""The terminal's bytes become text before Textual's parser: bad bytes and pastes (issue 20, items 8, 16)."""

from __future__ import annotations

import pytest
from textual import events
from textual._xterm_parser import XTermParser

from hermes_tui.terminal_input import TerminalDecoder
from hermes_tui.textual_compat.input_decoder import install

PASTE = b"\x1b[200~abc\x1b]0;T\x07def\x1b[31mred\x1b[0m\xc2\x9bz\x1b[201~"


def parse(chunks: list[bytes]) -> list[events.Event]:
    """What Textual's parser makes of `chunks` read one after the other through our decoder."""
    decoder = TerminalDecoder()
    parser = XTermParser()
    out: list[events.Event] = []
    for chunk in chunks:
        if text := decoder.decode(chunk):  # the driver feeds only what decoded to something ("" is EOF)
            out.extend(parser.feed(text))
    return out


@pytest.mark.parametrize("size", [1, 2, 5, 4096], ids=lambda n: f"reads-of-{n}")
def test_a_paste_with_escapes_is_one_literal_paste_in_order(size: int) -> None:
    data = b"x" + PASTE + b"y"
    events_ = parse([data[i : i + size] for i in range(0, len(data), size)])
    pastes = [e for e in events_ if isinstance(e, events.Paste)]
    keys = [e.key for e in events_ if isinstance(e, events.Key)]
    assert [p.text for p in pastes] == ["abc\\x1b]0;T\\x07def\\x1b[31mred\\x1b[0m\\x9bz"]
    assert keys == ["x", "y"]  # no ctrl+g from the BEL, nothing typed out of order


def test_invalid_utf8_becomes_replacement_characters() -> None:
    keys = [e.character for e in parse([b"aa\xe9\xe9bb"]) if isinstance(e, events.Key)]
    assert keys == ["a", "a", "\ufffd", "\ufffd", "b", "b"]


def test_a_character_split_across_reads_is_kept() -> None:
    euro = "€".encode()
    keys = [e.character for e in parse([euro[:1], euro[1:]]) if isinstance(e, events.Key)]
    assert keys == ["€"]


def test_a_lone_escape_is_not_held_back() -> None:
    assert TerminalDecoder().decode(b"\x1b") == "\x1b"  # the Escape key must not wait for the next read


def test_the_linux_driver_decodes_with_it() -> None:
    from textual.drivers import linux_driver

    assert install()
    decoder = linux_driver.getincrementaldecoder("utf-8")()
    assert decoder.decode(b"\xff") == "\ufffd"


def test_legacy_alt_enter_keeps_its_alt() -> None:
    keys = [e.key for e in parse([b"a\x1b\rb"]) if isinstance(e, events.Key)]
    assert keys == ["a", "alt+enter", "b"]


def test_a_pasted_escape_cr_is_not_alt_enter() -> None:
    pastes = [e.text for e in parse([b"\x1b[200~a\x1b\rb\x1b[201~"]) if isinstance(e, events.Paste)]
    assert pastes == ["a\\x1b\rb"]

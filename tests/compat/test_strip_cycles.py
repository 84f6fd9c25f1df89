"""`textual_compat/strip_cycles.py`: dividing a strip at its own length, or adjusting it to its own length,
gives what Textual gives, and leaves no reference cycle (the strip is freed by its last reference)."""

from __future__ import annotations

import gc
import inspect

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from hermes_tui.textual_compat import guard
from hermes_tui.textual_compat.strip_cycles import UncachedSameLength, UncachedWholeDivide


def _strip() -> Strip:
    return Strip([Segment("hello ", Style(bold=True)), Segment("world")], 11)


def test_the_wrapped_methods_keep_textuals_signatures() -> None:
    assert guard.active()
    divide = inspect.getattr_static(Strip, "divide")
    adjust = inspect.getattr_static(Strip, "adjust_cell_length")
    assert isinstance(divide, UncachedWholeDivide) and isinstance(adjust, UncachedSameLength)
    assert str(inspect.signature(divide.original)) == "(self, cuts: 'Iterable[int]') -> 'Sequence[Strip]'"
    assert str(inspect.signature(adjust.original)) == (
        "(self, cell_length: 'int', style: 'Style | None' = None) -> 'Strip'"
    )


def test_same_results_as_textual() -> None:
    strip = _strip()
    divide = inspect.getattr_static(Strip, "divide").original
    adjust = inspect.getattr_static(Strip, "adjust_cell_length").original
    for cuts in ([11], [5, 11], [3, 7, 11], [20]):
        assert [s.text for s in strip.divide(cuts)] == [s.text for s in divide(_strip(), cuts)]
    for length in (11, 5, 20):
        assert strip.adjust_cell_length(length).text == adjust(_strip(), length).text
    assert strip.divide([11]) == [strip] and strip.adjust_cell_length(11) is strip


def test_a_whole_width_strip_is_freed_without_the_collector() -> None:
    gc.collect()
    gc.disable()
    try:
        for _ in range(200):
            strip = _strip()
            strip.divide([11])
            strip.adjust_cell_length(11)
        del strip
        assert gc.collect() == 0, "strips were left in reference cycles"
    finally:
        gc.enable()

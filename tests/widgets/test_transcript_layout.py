"""`EntryHeights`: where each entry is on the transcript's canvas, kept right through any edit (checked
against plain prefix sums), and the anchor that keeps the view on the line the user reads."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from widgets.transcript.model import Anchor, EntryHeights


def _naive_offsets(heights: list[int]) -> list[int]:
    offsets = [0]
    for height in heights:
        offsets.append(offsets[-1] + height)
    return offsets


EDITS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(0, 9)),
        st.tuples(st.just("insert"), st.integers(0, 9)),
        st.tuples(st.just("remove"), st.integers(0, 9)),
        st.tuples(st.just("set"), st.integers(0, 9)),
    ),
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(EDITS, st.randoms())
def test_offsets_stay_the_prefix_sums_of_the_heights_through_any_edit(edits, rng) -> None:  # type: ignore[no-untyped-def]
    heights = EntryHeights()
    model: list[int] = []
    for op, value in edits:
        if op == "append":
            heights.append(value, exact=False)
            model.append(value)
        elif op == "insert":
            at = rng.randint(0, len(model))
            heights.insert(at, value, exact=True)
            model.insert(at, value)
        elif model:
            at = rng.randrange(len(model))
            if op == "remove":
                heights.remove(at)
                del model[at]
            else:
                assert heights.set(at, value, exact=True) == value - model[at]
                model[at] = value
        if rng.random() < 0.5:  # read sometimes, so the lazy sums are exercised half-way too
            expected = _naive_offsets(model)
            assert [heights.offset(i) for i in range(len(model) + 1)] == expected
    expected = _naive_offsets(model)
    assert heights.total == expected[-1]
    for y in range(expected[-1]):
        index = heights.index_at(y)
        assert expected[index] <= y < expected[index + 1]  # the entry that line belongs to


def test_an_empty_entry_never_owns_a_line() -> None:
    heights = EntryHeights()
    for height in (2, 0, 3):
        heights.append(height, exact=True)
    assert [heights.index_at(y) for y in range(5)] == [0, 0, 2, 2, 2]
    assert heights.index_at(99) == 2
    assert EntryHeights().index_at(0) == -1


def test_the_anchor_follows_its_entry_when_heights_above_change() -> None:
    heights = EntryHeights()
    for height in (5, 5, 5, 5):
        heights.append(height, exact=False)
    anchor = heights.anchor_at(12)  # line 2 of the third entry
    assert anchor == Anchor(2, 2)
    heights.set(0, 9, exact=True)  # an estimate above the view corrected: 4 lines more
    assert heights.y_of(anchor) == 16  # the same line of the same entry, 4 lines lower on the canvas
    heights.set(2, 1, exact=True)  # the anchor's own entry shrank below the offset
    assert heights.y_of(anchor) == heights.offset(2)


def test_a_new_width_makes_every_height_an_estimate_again() -> None:
    heights = EntryHeights()
    heights.append(3, exact=True)
    heights.append(4, exact=True)
    heights.forget_exact([6, 8])
    assert not heights.is_exact(0) and not heights.is_exact(1)
    assert heights.total == 14 and heights.offset(1) == 6

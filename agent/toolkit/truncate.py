"""Keep the start and the end of a long text: the middle of a long output is the least useful part.

Shared by the terminal tool (its own 50,000-character cap) and the executor (the per-result budget).
"""

from __future__ import annotations

HEAD_FRACTION = 0.4


def omission_marker(omitted: int) -> str:
    return f"[... {omitted} characters omitted ...]"


def join_head_tail(head: str, tail: str, omitted: int) -> str:
    """The shape `truncate_middle` produces, for callers that kept only a head and a tail of a stream."""
    return f"{head}\n\n{omission_marker(omitted)}\n\n{tail}"


def truncate_middle(text: str, budget: int) -> str:
    """`text` unchanged when it fits in `budget` characters, else its first 40% and last 60% around a marker.

    The marker `[... N characters omitted ...]` says exactly how many characters were cut; the result keeps
    `budget` characters of the original text plus the marker line.
    """
    if len(text) <= budget:
        return text
    if budget <= 0:
        return omission_marker(len(text))
    head_len = int(budget * HEAD_FRACTION)
    tail_len = budget - head_len
    omitted = len(text) - head_len - tail_len
    return join_head_tail(text[:head_len], text[len(text) - tail_len :], omitted)

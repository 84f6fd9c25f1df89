"""Rank file paths against what was typed after `@`, the way fuzzy finders do: the letters in order; a match
at the start of the file name, then inside it, then anywhere in the path as typed, then spread out (the
tighter the better); fewer folders and shorter paths first.

Textual's own fuzzy matcher scores ~2,000 paths a second here (8.7 s for a 17,000-file tree), too slow to
run on each key. This prefilters with one backtrack-free regex per query, ranks substring matches with C-speed
`in` tests, and measures the letters' spread only when too few substring matches exist (~10-30 ms for
17,000 paths).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["rank_paths"]


def rank_paths(query: str, paths: Sequence[str], limit: int = 20) -> list[str]:
    q = query.lower()
    if not q:
        return sorted(paths, key=_shape)[:limit]
    # `[^b]*b` cannot backtrack (`a.*?b.*?c` does, badly, on paths that almost match).
    loose = re.compile("".join(f"[^{re.escape(c)}]*{re.escape(c)}" for c in q))
    tiers: tuple[list[str], list[str], list[str], list[str]] = ([], [], [], [])
    for path in paths:
        lowered = path.lower()
        if loose.match(lowered) is None:
            continue
        name = lowered.rstrip("/").rpartition("/")[2]
        if name.startswith(q):
            tiers[0].append(path)
        elif q in name:
            tiers[1].append(path)
        elif q in lowered:
            tiers[2].append(path)
        else:
            tiers[3].append(path)
    ranked: list[str] = []
    for tier in tiers[:3]:
        ranked += sorted(tier, key=_shape)
        if len(ranked) >= limit:
            return ranked[:limit]
    spread = sorted(tiers[3], key=lambda p: (_span(q, p.lower()), *_shape(p)))
    return (ranked + spread)[:limit]


def _shape(path: str) -> tuple[int, int, str]:
    return (path.count("/") - path.endswith("/"), len(path), path)


def _span(q: str, text: str) -> int:
    """Width of the tightest window holding the letters of `q` in order (the prefilter ensured one)."""
    best = len(text) + 1
    start = text.find(q[0])
    while start != -1:
        pos = start
        for c in q[1:]:
            pos = text.find(c, pos + 1)
            if pos == -1:
                return best
        best = min(best, pos - start + 1)
        start = text.find(q[0], start + 1)
    return best

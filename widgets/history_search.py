"""Searching the prompt's history for a fragment (Ctrl+R with text typed, as bash's reverse-i-search and
Claude Code's history search find an earlier prompt by a piece of it).

Plain data: the prompt owns one `HistorySearch` while a search is on and shows its match and its title.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["HistorySearch", "older_match"]


def _has(entry: str, query: str) -> bool:
    """`entry` contains `query` (any case) and is not just the query (finding what is typed is no help)."""
    folded, needle = entry.casefold(), query.casefold()
    return needle in folded and folded.strip() != needle.strip()


def older_match(history: Sequence[str], query: str, before: int) -> int | None:
    """The newest entry older than index `before` that has `query`."""
    for index in range(min(before, len(history)) - 1, -1, -1):
        if _has(history[index], query):
            return index
    return None


@dataclass
class HistorySearch:
    """One search: what was typed when it began (restored on Esc) and the entry shown."""

    query: str
    draft: str
    index: int | None = None
    exhausted: bool = False
    """Ctrl+R found nothing older: the title says so, the match shown stays."""

    def step(self, history: Sequence[str]) -> bool:
        """Move to the next older match; False (and `exhausted`) when there is none."""
        found = older_match(history, self.query, len(history) if self.index is None else self.index)
        self.exhausted = found is None
        if found is not None:
            self.index = found
        return found is not None

    def title(self, history: Sequence[str]) -> str:
        shown = f"history search '{_short(self.query)}'"
        if self.index is None:
            return f"{shown}: no earlier prompt has it · Esc back"
        matches = [i for i, entry in enumerate(history) if _has(entry, self.query)]
        where = f"{sum(1 for i in matches if i >= self.index)} of {len(matches)}"
        oldest = self.exhausted or older_match(history, self.query, self.index) is None
        more = "no older match" if oldest else "Ctrl+R older"
        return f"{shown}: {where} · {more} · Enter keep · Esc back"


def _short(text: str, limit: int = 30) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"

"""Searching the prompt's history for a fragment (Ctrl+R with text typed, as bash's reverse-i-search and
Claude Code's history search find an earlier prompt by a piece of it).

Plain data: the prompt owns one `HistorySearch` while a search is on and shows its match and its title.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["HistorySearch", "older_match"]


def _has(entry: str, query: str, typed: str) -> bool:
    """`entry` contains `query` (any case) and is not just what was typed in the prompt when the search
    began (finding that is no help; once the fragment is narrowed, an entry equal to it is a real find)."""
    folded = entry.casefold()
    return query.casefold() in folded and folded.strip() != typed.casefold().strip()


def older_match(history: Sequence[str], query: str, before: int, typed: str | None = None) -> int | None:
    """The newest entry older than index `before` that has `query` and is not `typed` (default: `query`)."""
    skip = query if typed is None else typed
    for index in range(min(before, len(history)) - 1, -1, -1):
        if _has(history[index], query, skip):
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
        before = len(history) if self.index is None else self.index
        found = older_match(history, self.query, before, self.draft)
        self.exhausted = found is None
        if found is not None:
            self.index = found
        return found is not None

    def narrow(self, history: Sequence[str], query: str) -> bool:
        """Typing (or Backspace) in the search changes the fragment: look again from the newest prompt, as
        bash's reverse-i-search does; False (and `index` None) when no earlier prompt has it."""
        self.query, self.index = query, None
        return self.step(history)

    def title(self, history: Sequence[str]) -> str:
        shown = f"history search '{_short(self.query)}'"
        if self.index is None:
            return f"{shown}: no earlier prompt has it · Esc back"
        matches = [i for i, entry in enumerate(history) if _has(entry, self.query, self.draft)]
        where = f"{sum(1 for i in matches if i >= self.index)} of {len(matches)}"
        oldest = self.exhausted or older_match(history, self.query, self.index, self.draft) is None
        more = "no older match" if oldest else "Ctrl+R older"
        return f"{shown}: {where} · {more} · Enter keep · Esc back"


def _short(text: str, limit: int = 30) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"

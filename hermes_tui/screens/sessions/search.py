"""One search typed into the session browser, computed a page at a time in a worker thread.

Titles and ids are matched in memory (`SearchQuery.select`, the same reading the store gives messages)
and come first; then the store's message hits, a page at a time (`iter_search`), grouped by session: one
row per session (its best hit, or its title), which counts the messages that match. The screen awaits
one page per thread call, so the first rows are on screen while the rest is still being found, and a new
keystroke `cancel()`s the search: its SQL statement stops and no further page is made.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.api import parse_search_query as parse
from hermes_tui.screens.sessions.rows import SessionRow

if TYPE_CHECKING:
    from textual.widgets.option_list import Option

    from agent.api import SearchHit, SessionInfo, SessionStoreProtocol

__all__ = ["SearchGate", "SearchPage", "SessionSearch"]

SearchGate = Callable[[str, int], None]
"""Called in the worker thread before page `n` of the search for `text` is made: tests hold a page back
with it to make a search slow deterministically."""


@dataclass
class SearchPage:
    """Rows to add at the end of the list, with their options (built in the thread too)."""

    rows: list[SessionRow]
    options: list[Option]
    failed: bool = False
    recounted: tuple[str, ...] = ()
    """Sessions of earlier pages with more matching messages now: their rows are drawn again."""


class SessionSearch:
    """The pages of one search. `next_page()` (blocking: call it in a thread) returns the next page, or None
    when the search is complete or cancelled. The first page always comes, even when empty."""

    def __init__(
        self,
        store: SessionStoreProtocol,
        text: str,
        sessions: Sequence[SessionInfo],
        render: Callable[[list[SessionRow]], list[Option]],
        *,
        hit_limit: int,
        page_size: int,
        gate: SearchGate | None = None,
    ) -> None:
        self.store = store
        self.text = text
        self.query = parse(text)
        self.sessions = sessions
        self.render = render
        self.hit_limit = hit_limit
        self.page_size = page_size
        self.gate = gate
        self._cancel = threading.Event()
        self._pages = self._generate()
        self._lock = threading.Lock()

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def next_page(self) -> SearchPage | None:
        with self._lock:  # one thread at a time drives the generator
            return next(self._pages, None)

    def _generate(self) -> Iterator[SearchPage]:
        query = self.query
        found = query.select([(info.title, info.id) for info in self.sessions])
        rows = [SessionRow(self.sessions[index], query=query, matches=0) for index in found]
        known = {info.id: info for info in self.sessions}
        shown = {row.session_id: row for row in rows}  # one row per session, the first that found it
        hit_pages = self.store.iter_search(
            query, page_size=self.page_size, limit=self.hit_limit, cancelled=self._cancel.is_set
        )
        index = 0
        while True:
            if self.gate is not None:
                self.gate(self.text, index)
            if self.cancelled:
                return
            failed = False
            try:
                hits: list[SearchHit] | None = next(hit_pages, None)
            except Exception:  # the store promises not to raise on user text; belt and braces
                hits, failed = None, True
            if hits is None and index > 0:
                return
            on_this_page = {row.session_id for row in rows}
            recounted: set[str] = set()
            for hit in hits or []:
                if (row := shown.get(hit.session_id)) is not None:
                    row.matches += 1
                    if hit.session_id not in on_this_page:
                        recounted.add(hit.session_id)
                    continue
                info = known.get(hit.session_id)
                if info is None:  # a session newer than the list
                    info = self.store.get_session(hit.session_id)
                    if info is None:
                        continue
                    known[info.id] = info
                shown[info.id] = row = SessionRow(info, hit=hit)
                on_this_page.add(info.id)
                rows.append(row)
            yield SearchPage(rows, self.render(rows), failed, tuple(sorted(recounted)))
            rows = []
            index += 1
            if hits is None:
                return

"""Full-text search over messages: a query plan per kind of query, the ranking, the snippets.

Queries are parsed once by `agent.store.query` (the same reading the sessions screen applies to titles).
Two plans, measured on 10,000 sessions / 500,000 messages (`benchmarks/sessions_bench.py`):

- **ranked**, when FTS5 alone decides the query (words, phrases, prefixes, OR, NOT): one statement fetches
  the newest `RANK_CANDIDATES` matches with their indexed text (FTS5 walks its doclists newest first and
  stops there: ~1 ms for any word, ~14 ms for a prefix of a word in 60% of all messages, which FTS5 must
  merge first), then Python scores them (BM25: term frequency, text length, term weights estimated on the
  candidates) and builds snippets for the page only.
  Not SQLite's `bm25()`: it counts each phrase's documents over the whole index on every query (~12 ms per
  common word, ~40 ms for a two-word phrase, whatever the LIMIT or rowid bound) and then scores every row
  (~300 ms to rank all matches of a common word). Rare words have fewer matches than the bound, so they are
  ranked among all their matches; common ones among the most recent, which is what someone searching their
  history usually wants.
- **filtered**, when part of the query is invisible to FTS5 (a CJK substring, `🎉`, `%`): candidates come
  newest first from the indexable part of the query (FTS5) or from a LIKE scan, and
  `SearchQuery.matches()` decides. These hits are unranked (rank 0.0, newest first) and come a page at a
  time as the scan finds them, so a slow scan shows its first results early.

Every statement runs on the store's read connection and stops when the caller's `cancelled()` turns true.
"""

from __future__ import annotations

import bisect
import math
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import agent.store.vocabulary as vocabulary
from agent.store.core import StoreBase
from agent.store.query import And, Node, Not, Or, SearchQuery, Term, TextView, parse
from agent.store.records import HIGHLIGHT_END, HIGHLIGHT_START, SearchHit, collapse
from agent.store.schema import tool_args_sql

__all__ = [
    "RANK_CANDIDATES",
    "SNIPPET_TOKENS",
    "Candidate",
    "SearchMixin",
    "like_filter",
    "like_pattern",
    "make_snippet",
    "rank_candidates",
]

RANK_CANDIDATES = 300
"""The ranked plan scores at most this many of the newest matches."""
SNIPPET_TOKENS = 12
SCAN_CHUNK = 200
MAX_SCAN_CHUNK = 5_000
_K1, _B = 1.2, 0.75  # BM25's usual constants

_FIELDS = "messages_fts.rowid, content, tool_name, tool_args"
_IN_SESSION = " AND messages_fts.rowid IN (SELECT id FROM messages WHERE session_id = ?)"

Cancelled = Callable[[], bool]


@dataclass
class Candidate:
    """A message that may match: its id and the text fields a query is matched against."""

    id: int
    fields: tuple[str, str, str]  # content, tool name, tool arguments: the text FTS5 indexed
    rank: float = 0.0


class SearchMixin(StoreBase):
    def search(
        self, query: str | SearchQuery, limit: int = 20, offset: int = 0, session_id: str | None = None
    ) -> list[SearchHit]:
        """Full-text search over message content, tool names and tool-call arguments, best first.

        Accepts any user text and never raises on it (see `agent.store.query` for the language); blank
        text or text with nothing searchable gives []. Hits of a query FTS5 decides alone are ranked (the
        `rank` of a hit: lower is better); hits of a query with a substring part (CJK, emoji) come newest
        first with rank 0.0. `limit`/`offset` page through the same order.
        """
        if limit <= 0:
            return []
        start = max(0, offset)
        pages = self._pages(_as_query(query), start, start + limit, limit, session_id, None)
        return [hit for page in pages for hit in page]

    def iter_search(
        self,
        query: str | SearchQuery,
        *,
        page_size: int = 50,
        limit: int = 200,
        session_id: str | None = None,
        cancelled: Cancelled | None = None,
    ) -> Iterator[list[SearchHit]]:
        """The hits of `search(query, limit)` in pages of `page_size`, each computed when asked for: a
        screen shows the first page while the rest is found. Stops early (and any running statement is
        interrupted) once `cancelled()` returns true. Never holds a lock between pages."""
        yield from self._pages(_as_query(query), 0, max(0, limit), max(1, page_size), session_id, cancelled)

    # ---------------------------------------------------------------- plans

    def _pages(
        self,
        query: SearchQuery,
        start: int,
        stop: int,
        page_size: int,
        session_id: str | None,
        cancelled: Cancelled | None,
    ) -> Iterator[list[SearchHit]]:
        if query.is_empty or stop <= start:
            return
        try:
            fts = self._fts_expression(query, cancelled)
            if fts and query.exact:
                try:
                    candidates = self._ranked_candidates(query, fts, session_id, cancelled)
                except sqlite3.OperationalError:
                    if cancelled is not None and cancelled():
                        return
                    candidates = None  # FTS5 refused the expression (should not happen): scan instead
                if candidates is not None:
                    for at in range(start, min(stop, len(candidates)), page_size):
                        page = candidates[at : min(at + page_size, stop)]
                        if cancelled is not None and cancelled():
                            return
                        yield self._hits(query, page, cancelled)
                    return
                fts = ""
            yield from self._filtered(query, fts, start, stop, page_size, session_id, cancelled)
        except sqlite3.Error:  # interrupted, locked, closed: what was found so far is all there is
            return

    def _fts_expression(self, query: SearchQuery, cancelled: Cancelled | None) -> str:
        """The query for FTS5, prefixes spelled out as their exact terms when the term table is current."""
        if not any(term.prefix and not term.substring for term, _ in query.all_terms()):
            return query.to_fts5()
        if not vocabulary.refresh(self):
            return query.to_fts5()
        with self._reading(cancelled) as conn:
            return query.to_fts5(lambda term: vocabulary.expand_prefix(conn, term.tokens[-1]))

    def _ranked_candidates(
        self, query: SearchQuery, fts: str, session_id: str | None, cancelled: Cancelled | None
    ) -> list[Candidate]:
        params: list[Any] = [fts]
        where = "messages_fts MATCH ?"
        if session_id is not None:
            where += _IN_SESSION
            params.append(session_id)
        with self._reading(cancelled) as conn:
            rows = conn.execute(
                f"SELECT {_FIELDS} FROM messages_fts WHERE {where} ORDER BY messages_fts.rowid DESC LIMIT ?",
                [*params, RANK_CANDIDATES],
            ).fetchall()
        candidates = [Candidate(row[0], (row[1] or "", row[2] or "", row[3] or "")) for row in rows]
        rank_candidates(query, candidates)
        return candidates

    def _filtered(
        self,
        query: SearchQuery,
        fts: str,
        start: int,
        stop: int,
        page_size: int,
        session_id: str | None,
        cancelled: Cancelled | None,
    ) -> Iterator[list[SearchHit]]:
        """Scan newest first in growing chunks (no statement or lock spans two chunks); SQL narrows the
        rows down (FTS5 for the indexable part, LIKE for the rest), `matches()` decides."""
        assert query.root is not None
        if fts:
            columns = ("content", "tool_name", "tool_args")
            select, source, key = _FIELDS, "messages_fts", "messages_fts.rowid"
            conditions, params = ["messages_fts MATCH ?"], [fts]
            if session_id is not None:
                conditions.append("messages_fts.rowid IN (SELECT id FROM messages WHERE session_id = ?)")
                params.append(session_id)
        else:  # the table itself: LIKE over it is twice as fast as over the FTS table
            columns = ("m.content", "m.tool_name", "m.tool_calls")
            select = f"m.id, m.content, m.tool_name, {tool_args_sql('m')}"
            source, key = "messages m", "m.id"
            conditions, params = [], []
            if session_id is not None:
                conditions.append("m.session_id = ?")
                params.append(session_id)
        like = like_filter(query.root, columns)
        if like is not None:
            conditions.append(like[0])
            params += like[1]
        where = " AND ".join(conditions) or "1"
        seen = 0
        pending: list[Candidate] = []
        before: int | None = None
        chunk = SCAN_CHUNK
        while seen < stop:
            if cancelled is not None and cancelled():
                return
            bound = "" if before is None else f" AND {key} < ?"
            with self._reading(cancelled) as conn:
                rows = conn.execute(
                    f"SELECT {select} FROM {source} WHERE {where}{bound} ORDER BY {key} DESC LIMIT ?",
                    [*params, *([] if before is None else [before]), chunk],
                ).fetchall()
            for row in rows:
                fields = (row[1] or "", row[2] or "", row[3] or "")
                if not query.matches(*fields):
                    continue
                if seen >= start:
                    pending.append(Candidate(row[0], fields))
                seen += 1
                if seen >= stop:
                    break
            while len(pending) >= page_size:
                yield self._hits(query, pending[:page_size], cancelled)
                pending = pending[page_size:]
            if len(rows) < chunk:
                break
            before = rows[-1][0]
            chunk = min(chunk * 2, MAX_SCAN_CHUNK)
        if pending:
            yield self._hits(query, pending, cancelled)

    def _hits(
        self, query: SearchQuery, page: Sequence[Candidate], cancelled: Cancelled | None
    ) -> list[SearchHit]:
        """The page's hits: where each message is (session, seq, role...) and a snippet of its text."""
        ids = [candidate.id for candidate in page]
        with self._reading(cancelled) as conn:
            rows = conn.execute(
                "SELECT m.id, m.session_id, m.seq, m.role, m.tool_name, m.created_at, s.title "
                "FROM messages m JOIN sessions s ON s.id = m.session_id "
                f"WHERE m.id IN ({', '.join('?' * len(ids))})",
                ids,
            ).fetchall()
        found = {row[0]: row for row in rows}
        hits = []
        for candidate in page:
            row = found.get(candidate.id)
            if row is None:
                continue  # deleted since it was found
            hits.append(
                SearchHit(
                    session_id=row[1],
                    message_id=row[0],
                    seq=row[2],
                    role=row[3],
                    snippet=make_snippet(query, candidate.fields),
                    session_title=row[6],
                    tool_name=row[4],
                    rank=candidate.rank,
                    created_at=row[5],
                )
            )
        return hits


def _as_query(query: str | SearchQuery) -> SearchQuery:
    return query if isinstance(query, SearchQuery) else parse(query or "")


# --------------------------------------------------------------------------------------------- ranking


def rank_candidates(query: SearchQuery, candidates: list[Candidate]) -> None:
    """Score with BM25 and sort best first (ties: newest first). Term weights (IDF) are estimated on the
    candidates: a term found in few of them weighs more; for a single word they are all equal, as in bm25.
    Text length is counted in characters, a stand-in for tokens that ranks the same way."""
    if not candidates:
        return
    terms = query.positive_terms()
    counts: list[list[int]] = []
    lengths: list[int] = []
    documents = [0] * len(terms)
    for candidate in candidates:
        views = [TextView(text) for text in candidate.fields if text]
        row = [sum(term.count(view) for view in views) for term in terms]
        for index, count in enumerate(row):
            if count:
                documents[index] += 1
        counts.append(row)
        lengths.append(sum(len(view.text) for view in views))
    total = len(candidates)
    average = max(1.0, sum(lengths) / total)
    weights = [math.log(1 + (total - n + 0.5) / (n + 0.5)) for n in documents]
    for candidate, row, length in zip(candidates, counts, lengths, strict=True):
        norm = _K1 * (1 - _B + _B * length / average)
        score = sum(w * tf * (_K1 + 1) / (tf + norm) for w, tf in zip(weights, row, strict=True) if tf)
        candidate.rank = -score
    candidates.sort(key=lambda c: (c.rank, -c.id))


# --------------------------------------------------------------------------------------------- LIKE


def like_pattern(needle: str) -> str:
    """`%needle%` for `LIKE ? ESCAPE '\\'`: the needle's own `%`, `_` and `\\` match literally."""
    return "%" + needle.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def like_filter(node: Node, columns: Sequence[str]) -> tuple[str, list[Any]] | None:
    """A LIKE condition on `columns` (content, tool name, tool calls or their indexed text) that every match
    satisfies (None: no such condition), so a scan calls `matches()` on few rows. ASCII-case-insensitive,
    as substring terms are; a token term contributes its ASCII tokens as substrings."""
    if isinstance(node, Term):
        needles = [node.text] if node.substring else [t for t in node.tokens if t.isascii()]
        if not needles:
            return None
        clauses, params = [], []
        for needle in needles:
            pattern = like_pattern(needle)
            clauses.append("(" + " OR ".join(f"{column} LIKE ? ESCAPE '\\'" for column in columns) + ")")
            params += [pattern] * len(columns)
        return " AND ".join(clauses), params
    if isinstance(node, Not):
        return None
    parts = [like_filter(item, columns) for item in node.items]
    kept = [part for part in parts if part is not None]
    if isinstance(node, Or):
        if len(kept) < len(parts):
            return None  # a branch without a condition: the OR cannot narrow anything down
        return "(" + " OR ".join(f"({sql})" for sql, _ in kept) + ")", [p for _, ps in kept for p in ps]
    if not kept:
        return None
    assert isinstance(node, And)
    return " AND ".join(f"({sql})" for sql, _ in kept), [p for _, ps in kept for p in ps]


# --------------------------------------------------------------------------------------------- snippets


def make_snippet(query: SearchQuery, fields: Sequence[str], size: int = SNIPPET_TOKENS) -> str:
    """A one-line excerpt of a message's best field: `size` tokens around the matches, marked
    '\\x02'...'\\x03', '…' where text was cut. The same choice as FTS5's `snippet()` (which needs a MATCH
    cursor per row, so it cannot run for just the rows of a page): each match is scored by the distinct
    terms within `size` tokens of it (1000 each, 1 per repeat), the window centred on them; a window
    starting at a sentence (after '.' or ':') scores 100 more, the start of the text 120."""
    terms = query.positive_terms()
    best: tuple[int, int, int] | None = None  # score, field, first token
    for index, text in enumerate(fields):
        if not text:
            continue
        view = TextView(text)
        words = view.token_spans()
        starts = [start for start, _ in words]
        instances = sorted(
            (first, phrase, max(1, bisect.bisect_right(starts, end - 1) - first))
            for phrase, term in enumerate(terms)
            for span_start, end in term.spans(view)
            for first in [_token_at(words, starts, span_start)]
        )
        if not instances:
            continue
        sentences = _sentence_starts(text, words)
        for first, _phrase, _size in instances:
            score, adjusted = _window_score(instances, first, size, len(words))
            if best is None or score > best[0]:
                best = (score, index, adjusted)
            if len(words) > size:
                at = bisect.bisect_right(sentences, first) - 1
                if at >= 0 and sentences[at] < first:
                    score, _ = _window_score(instances, sentences[at], size, len(words), adjust=False)
                    score += 120 if sentences[at] == 0 else 100
                    if score > best[0]:
                        best = (score, index, sentences[at])
    if best is None:
        text = next((t for t in fields if t), "")
        return _excerpt(text, TextView(text).token_spans(), [], 0, size)
    text = fields[best[1]]
    return _excerpt(text, TextView(text).token_spans(), query.spans(text), best[2], size)


def _token_at(words: Sequence[tuple[int, int]], starts: Sequence[int], offset: int) -> int:
    """The token holding character `offset` (a substring match may begin inside one), else the next."""
    index = bisect.bisect_right(starts, offset) - 1
    if index < 0 or words[index][1] <= offset:
        index += 1
    return max(0, min(index, len(words) - 1))


def _window_score(
    instances: Sequence[tuple[int, int, int]], start: int, size: int, count: int, adjust: bool = True
) -> tuple[int, int]:
    """(score of the window of `size` tokens from `start`, its start moved to centre the matches)."""
    seen: set[int] = set()
    score, first, last = 0, -1, -1
    for offset, phrase, length in instances:
        if start <= offset < start + size:
            score += 1 if phrase in seen else 1000
            seen.add(phrase)
            if first < 0:
                first = offset
            last = offset + length
    if not adjust:
        return score, start
    moved = first - int((size - (last - first)) / 2)  # C division: towards zero
    moved = min(moved, count - size)
    return score, max(0, moved)


def _sentence_starts(text: str, words: Sequence[tuple[int, int]]) -> list[int]:
    """Token indexes that start a sentence: the first, and any after '.' or ':' and whitespace."""
    found = [0] if words else []
    for index in range(1, len(words)):
        before = text[: words[index][0]]
        stripped = before.rstrip(" \t\n\r")
        if len(stripped) < len(before) and stripped[-1:] in (".", ":"):
            found.append(index)
    return found


def _excerpt(
    text: str, words: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]], first: int, size: int
) -> str:
    lo = words[first][0] if 0 < first < len(words) else 0
    last = first + size - 1
    hi = words[last][1] if last < len(words) - 1 else len(text)
    out = ["…"] if lo > 0 else []
    at = lo
    for start, end in spans:
        start, end = max(start, lo), min(end, hi)
        if start >= end:
            continue
        out += [text[at:start], HIGHLIGHT_START, text[start:end], HIGHLIGHT_END]
        at = end
    out.append(text[at:hi])
    if last < len(words) - 1:
        out.append("…")
    return collapse("".join(out))

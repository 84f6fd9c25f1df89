"""Web search through one backend's HTTP API: SearXNG (`/search?format=json`), Tavily (`/search`), Exa
(`/search`), Firecrawl (`/v2/search`). Each answer becomes the same short list of (title, URL, snippet).

Plain `httpx` calls, no SDKs: the APIs are one JSON request each, and the tests run loopback stand-ins of
exactly these requests. Each is under the call's one deadline and a size cap, and Esc ends it
(`agent.web.transfer`); rows that are not results (no URL, not an object) are skipped and counted. A
failure is a `SearchError` whose message says which backend and what went wrong (never the key).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent.config.web import WebSettings

if TYPE_CHECKING:
    from agent.web.transfer import Answer

SNIPPET_CHARS = 300
MAX_RESULTS = 20
MAX_ANSWER_BYTES = 8_000_000  # a search answer is a few KB; past this it is not read (nor held)


@dataclass(frozen=True)
class SearchResult:
    title: str
    url: str
    snippet: str


class SearchError(Exception):
    """A search that failed, with a message for the model and the user."""


def _secret(value: Any) -> str:
    return value.get_secret_value() if value is not None else ""


def _text(value: Any) -> str:
    return " ".join(str(value or "").split())


def _result(title: Any, url: Any, snippet: Any) -> SearchResult | None:
    """One row, or None when it is malformed (no http(s) URL as text)."""
    if not isinstance(url, str) or not url.strip().lower().startswith(("http://", "https://")):
        return None
    url = _text(url)
    snippet = _text(snippet) if isinstance(snippet, str | int | float) else ""
    if len(snippet) > SNIPPET_CHARS:
        snippet = snippet[: SNIPPET_CHARS - 1].rstrip() + "…"
    title = _text(title) if isinstance(title, str | int | float) else ""
    return SearchResult(title=title or url, url=url, snippet=snippet)


@dataclass
class Http:
    """The backend's requests, each under the call's deadline and size cap (`agent.web.transfer`). The
    configured backend's own address is trusted: the user chose it, loopback or not."""

    web: WebSettings
    interrupt: threading.Event | None = None

    def get(self, url: str, *, params: dict[str, Any], headers: dict[str, str]) -> Answer:
        return self._exchange("GET", url, params=params, headers=headers)

    def post(self, url: str, *, json: Any, headers: dict[str, str] | None = None) -> Answer:
        return self._exchange("POST", url, json=json, headers=headers or {})

    def _exchange(self, method: str, url: str, **kwargs: Any) -> Answer:
        from agent.web.transfer import exchange

        return exchange(
            method, url, self.web, cap=MAX_ANSWER_BYTES, interrupt=self.interrupt, check_urls=False, **kwargs
        )


def _score(row: dict[str, Any]) -> float:
    try:
        return -float(row.get("score") or 0)
    except (TypeError, ValueError):
        return 0.0


def _searxng(http: Http, web: WebSettings, query: str, limit: int) -> Collected:
    answer = http.get(
        f"{web.searxng_url.rstrip('/')}/search",
        params={"q": query, "format": "json", "pageno": 1},
        headers={"Accept": "application/json"},
    )
    _check(answer, "SearXNG")
    rows = _rows(_json(answer, "SearXNG").get("results"))
    ranked = sorted(rows.objects, key=_score)
    return _collect(((r.get("title"), r.get("url"), r.get("content")) for r in ranked), rows)


def _tavily(http: Http, web: WebSettings, query: str, limit: int) -> Collected:
    answer = http.post(
        f"{web.tavily_base_url.rstrip('/')}/search",
        json={"query": query, "max_results": limit, "include_answer": False, "include_raw_content": False},
        headers={"Authorization": f"Bearer {_secret(web.tavily_api_key)}"},
    )
    _check(answer, "Tavily")
    rows = _rows(_json(answer, "Tavily").get("results"))
    return _collect(((r.get("title"), r.get("url"), r.get("content")) for r in rows.objects), rows)


def _exa(http: Http, web: WebSettings, query: str, limit: int) -> Collected:
    answer = http.post(
        f"{web.exa_base_url.rstrip('/')}/search",
        json={"query": query, "numResults": limit, "contents": {"highlights": True}},
        headers={"x-api-key": _secret(web.exa_api_key)},
    )
    _check(answer, "Exa")
    rows = _rows(_json(answer, "Exa").get("results"))
    out = []
    for r in rows.objects:
        highlights = r.get("highlights")
        snippet = " ".join(map(str, highlights)) if isinstance(highlights, list) else r.get("text")
        out.append((r.get("title"), r.get("url"), snippet))
    return _collect(out, rows)


def _firecrawl(http: Http, web: WebSettings, query: str, limit: int) -> Collected:
    headers = {"Authorization": f"Bearer {_secret(web.firecrawl_api_key)}"} if web.firecrawl_api_key else {}
    url = f"{web.firecrawl_api_url.rstrip('/')}/v2/search"
    answer = http.post(url, json={"query": query, "limit": limit}, headers=headers)
    _check(answer, "Firecrawl")
    data = _json(answer, "Firecrawl").get("data")
    rows = _rows(data.get("web") if isinstance(data, dict) else data)  # v2: data.web; v1: data
    triples = (
        (r.get("title"), r.get("url"), r.get("description") or r.get("markdown")) for r in rows.objects
    )
    return _collect(triples, rows)


SEARCHERS: dict[str, Callable[[Http, WebSettings, str, int], Collected]] = {
    "searxng": _searxng,
    "tavily": _tavily,
    "exa": _exa,
    "firecrawl": _firecrawl,
}
NAMES = {"searxng": "SearXNG", "tavily": "Tavily", "exa": "Exa", "firecrawl": "Firecrawl"}


@dataclass(frozen=True)
class Rows:
    """The answer's rows that are objects, and how many were not."""

    objects: list[dict[str, Any]]
    others: int


def _rows(value: Any) -> Rows:
    if not isinstance(value, list):
        return Rows([], 0)
    objects = [r for r in value if isinstance(r, dict)]
    return Rows(objects, len(value) - len(objects))


@dataclass(frozen=True)
class Collected:
    results: list[SearchResult]
    skipped: int  # malformed rows left out


def _collect(triples: Any, rows: Rows) -> Collected:
    seen: set[str] = set()
    out: list[SearchResult] = []
    malformed = rows.others
    for title, url, snippet in triples:
        result = _result(title, url, snippet)
        if result is None:
            malformed += 1
        elif result.url not in seen:
            seen.add(result.url)
            out.append(result)
    return Collected(out, malformed)


def _check(answer: Answer, name: str) -> None:
    if answer.status >= 400:
        detail = _text(answer.text)[:200]
        raise SearchError(f"{name} answered HTTP {answer.status}" + (f": {detail}" if detail else ""))


def _json(answer: Answer, name: str) -> dict[str, Any]:
    if answer.cut:
        raise SearchError(f"{name} answered with more than {MAX_ANSWER_BYTES // 1_000_000} MB: not read")
    try:
        data = json.loads(answer.body)
    except (ValueError, RecursionError):
        raise SearchError(f"{name} did not answer with JSON") from None
    if not isinstance(data, dict):
        raise SearchError(f"{name} answered with unexpected JSON ({type(data).__name__})")
    return data


def search(
    web: WebSettings, query: str, limit: int = 5, interrupt: threading.Event | None = None
) -> tuple[str, Collected]:
    """(backend name, results and how many malformed rows were skipped) for `query`. Raises SearchError."""
    from agent.web.transfer import Cancelled, TransferError

    backend = web.search_backend
    if backend is None:
        raise SearchError(web.unavailable() or "no search backend configured")
    limit = max(1, min(limit, MAX_RESULTS))
    name = NAMES[backend]
    try:
        collected = SEARCHERS[backend](Http(web, interrupt), web, query, limit)
    except Cancelled:
        raise SearchError("interrupted by the user") from None
    except TransferError as exc:
        raise SearchError(f"{name}: {exc}") from None
    return name, Collected(collected.results[:limit], collected.skipped)

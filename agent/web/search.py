"""Web search through one backend's HTTP API: SearXNG (`/search?format=json`), Tavily (`/search`), Exa
(`/search`), Firecrawl (`/v2/search`). Each answer becomes the same short list of (title, URL, snippet).

Plain `httpx` calls, no SDKs: the APIs are one JSON request each, and the tests run loopback stand-ins of
exactly these requests. A failure is a `SearchError` whose message says which backend and what went wrong
(never the key).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent.config.web import WebSettings

if TYPE_CHECKING:
    import httpx

SNIPPET_CHARS = 300
MAX_RESULTS = 20


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
    url = _text(url)
    if not url:
        return None
    snippet = _text(snippet)
    if len(snippet) > SNIPPET_CHARS:
        snippet = snippet[: SNIPPET_CHARS - 1].rstrip() + "…"
    return SearchResult(title=_text(title) or url, url=url, snippet=snippet)


def _searxng(client: httpx.Client, web: WebSettings, query: str, limit: int) -> list[SearchResult]:
    response = client.get(
        f"{web.searxng_url.rstrip('/')}/search",
        params={"q": query, "format": "json", "pageno": 1},
        headers={"Accept": "application/json"},
    )
    _check(response, "SearXNG")
    rows = _json(response, "SearXNG").get("results") or []
    rows = sorted((r for r in rows if isinstance(r, dict)), key=lambda r: -float(r.get("score") or 0))
    return _collect((r.get("title"), r.get("url"), r.get("content")) for r in rows)


def _tavily(client: httpx.Client, web: WebSettings, query: str, limit: int) -> list[SearchResult]:
    response = client.post(
        f"{web.tavily_base_url.rstrip('/')}/search",
        json={"query": query, "max_results": limit, "include_answer": False, "include_raw_content": False},
        headers={"Authorization": f"Bearer {_secret(web.tavily_api_key)}"},
    )
    _check(response, "Tavily")
    rows = _json(response, "Tavily").get("results") or []
    return _collect((r.get("title"), r.get("url"), r.get("content")) for r in rows if isinstance(r, dict))


def _exa(client: httpx.Client, web: WebSettings, query: str, limit: int) -> list[SearchResult]:
    response = client.post(
        f"{web.exa_base_url.rstrip('/')}/search",
        json={"query": query, "numResults": limit, "contents": {"highlights": True}},
        headers={"x-api-key": _secret(web.exa_api_key)},
    )
    _check(response, "Exa")
    rows = _json(response, "Exa").get("results") or []
    out = []
    for r in rows:
        if isinstance(r, dict):
            highlights = r.get("highlights")
            snippet = " ".join(map(str, highlights)) if isinstance(highlights, list) else r.get("text")
            out.append((r.get("title"), r.get("url"), snippet))
    return _collect(out)


def _firecrawl(client: httpx.Client, web: WebSettings, query: str, limit: int) -> list[SearchResult]:
    headers = {"Authorization": f"Bearer {_secret(web.firecrawl_api_key)}"} if web.firecrawl_api_key else {}
    url = f"{web.firecrawl_api_url.rstrip('/')}/v2/search"
    response = client.post(url, json={"query": query, "limit": limit}, headers=headers)
    _check(response, "Firecrawl")
    data = _json(response, "Firecrawl").get("data")
    rows = data.get("web") if isinstance(data, dict) else data  # v2: data.web; v1: data
    return _collect(
        (r.get("title"), r.get("url"), r.get("description") or r.get("markdown"))
        for r in rows or []
        if isinstance(r, dict)
    )


SEARCHERS: dict[str, Callable[[httpx.Client, WebSettings, str, int], list[SearchResult]]] = {
    "searxng": _searxng,
    "tavily": _tavily,
    "exa": _exa,
    "firecrawl": _firecrawl,
}
NAMES = {"searxng": "SearXNG", "tavily": "Tavily", "exa": "Exa", "firecrawl": "Firecrawl"}


def _collect(rows: Any) -> list[SearchResult]:
    seen: set[str] = set()
    out: list[SearchResult] = []
    for title, url, snippet in rows:
        result = _result(title, url, snippet)
        if result is not None and result.url not in seen:
            seen.add(result.url)
            out.append(result)
    return out


def _check(response: httpx.Response, name: str) -> None:
    if response.status_code >= 400:
        detail = _text(response.text)[:200]
        raise SearchError(f"{name} answered HTTP {response.status_code}" + (f": {detail}" if detail else ""))


def _json(response: httpx.Response, name: str) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        raise SearchError(f"{name} did not answer with JSON") from None
    if not isinstance(data, dict):
        raise SearchError(f"{name} answered with unexpected JSON ({type(data).__name__})")
    return data


def search(web: WebSettings, query: str, limit: int = 5) -> tuple[str, list[SearchResult]]:
    """(backend name, results) for `query`. Raises SearchError."""
    import httpx

    backend = web.search_backend
    if backend is None:
        raise SearchError(web.unavailable() or "no search backend configured")
    limit = max(1, min(limit, MAX_RESULTS))
    name = NAMES[backend]
    try:
        client = httpx.Client(timeout=web.timeout, follow_redirects=True, max_redirects=web.max_redirects)
        with client:
            results = SEARCHERS[backend](client, web, query, limit)
    except httpx.TimeoutException:
        raise SearchError(f"{name} did not answer within {web.timeout:g} s") from None
    except httpx.HTTPError as exc:
        raise SearchError(f"could not reach {name}: {type(exc).__name__}: {exc}") from None
    return name, results[:limit]

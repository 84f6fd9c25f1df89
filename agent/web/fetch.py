"""Fetch one page for web_extract: `httpx`, bounded in every way a page can misbehave.

- time: `web.timeout` seconds for the whole fetch (a server that trickles bytes is cut off too);
- redirects: at most `web.max_redirects` (a loop is reported as one);
- size: the body is streamed and reading stops after `web.max_page_bytes` (the page is marked cut);
- content types: HTML becomes the article as Markdown (`agent.web.extract`), text and JSON are kept as
  they are, anything else (PDF, images, archives) gets a clear "not extracted" note.

Any http(s) URL is fetched, loopback included (local docs servers). With the Firecrawl backend a public
page is scraped by Firecrawl instead (`scrape_firecrawl`); loopback and private addresses are always
fetched here, since a cloud scraper cannot reach them.
"""

from __future__ import annotations

import ipaddress
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from agent.config.web import WebSettings
from agent.core.humanize import format_size

USER_AGENT = "hermes-tui (web_extract)"
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript", "application/x-yaml")
HTML_TYPES = ("text/html", "application/xhtml+xml")


@dataclass
class Page:
    """One URL's outcome: `text` to show the model, or `error` saying why there is none."""

    url: str
    title: str = ""
    text: str = ""
    error: str = ""
    content_type: str = ""
    cut: bool = False  # the body was longer than the size cap
    bytes_read: int = 0
    final_url: str = ""


def check_url(url: str) -> str | None:
    """Why `url` cannot be fetched (None when it can)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        if parts.scheme == "file" or not parts.scheme:
            return "only http(s) URLs can be fetched; read local files with read_file"
        return f"unsupported URL scheme {parts.scheme!r} (only http and https)"
    if not parts.hostname:
        return "the URL has no host"
    return None


def is_local(url: str) -> bool:
    """Loopback, private or link-local hosts (and `localhost`): only this machine can reach them."""
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost") or host.endswith(".local"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def fetch_page(url: str, web: WebSettings) -> Page:
    import httpx

    page = Page(url=url)
    problem = check_url(url)
    if problem:
        page.error = problem
        return page
    deadline = time.monotonic() + web.timeout
    body = bytearray()
    try:
        with (
            httpx.Client(
                timeout=web.timeout,
                follow_redirects=True,
                max_redirects=web.max_redirects,
                headers={"User-Agent": USER_AGENT, "Accept": "text/html,text/*;q=0.9,*/*;q=0.5"},
            ) as client,
            client.stream("GET", url) as response,
        ):
            page.final_url = str(response.url)
            page.content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if response.status_code >= 400:
                page.error = f"HTTP {response.status_code} {response.reason_phrase}".strip()
                return page
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) > web.max_page_bytes:
                    del body[web.max_page_bytes :]
                    page.cut = True
                    break
                if time.monotonic() > deadline:
                    page.error = f"timed out after {web.timeout:g} s while reading the page"
                    return page
            encoding = response.encoding or "utf-8"
    except httpx.TooManyRedirects:
        page.error = f"too many redirects (more than {web.max_redirects}): a redirect loop?"
        return page
    except httpx.TimeoutException:
        page.error = f"timed out after {web.timeout:g} s"
        return page
    except httpx.HTTPError as exc:
        page.error = f"could not fetch it: {type(exc).__name__}: {exc}"
        return page
    page.bytes_read = len(body)
    _convert(page, bytes(body), encoding)
    return page


def _convert(page: Page, body: bytes, encoding: str) -> None:
    kind = page.content_type or _sniff(body)
    if kind.startswith(HTML_TYPES) or (not page.content_type and kind == "text/html"):
        from agent.web.extract import html_to_markdown

        html = body.decode(encoding, errors="replace")
        page.title, page.text = html_to_markdown(html, page.final_url or page.url)
        if not page.text.strip():
            page.error = "the page has no readable text (it may need JavaScript to render)"
        return
    if kind.startswith(TEXT_TYPES) or kind.endswith(("+json", "+xml")):
        page.text = body.decode(encoding, errors="replace")
        return
    size = format_size(len(body)) + ("+" if page.cut else "")
    page.error = f"not extracted: {kind or 'unknown content type'} ({size}); only HTML, text and JSON are"


def _sniff(body: bytes) -> str:
    head = body[:512].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")) or b"<body" in head:
        return "text/html"
    if head.startswith(b"%pdf"):
        return "application/pdf"
    try:
        body[:4096].decode("utf-8")
    except UnicodeDecodeError:
        return "application/octet-stream"
    return "text/plain" if b"\x00" not in body[:4096] else "application/octet-stream"


def scrape_firecrawl(url: str, web: WebSettings) -> Page:
    """The page as Firecrawl's scraper renders it (`/v2/scrape`, main content as Markdown)."""
    import httpx

    page = Page(url=url)
    headers = {}
    if web.firecrawl_api_key is not None:
        headers["Authorization"] = f"Bearer {web.firecrawl_api_key.get_secret_value()}"
    try:
        response = httpx.post(
            f"{web.firecrawl_api_url.rstrip('/')}/v2/scrape",
            json={"url": url, "formats": ["markdown"], "onlyMainContent": True},
            headers=headers,
            timeout=web.timeout * 3,  # the scraper fetches and renders the page itself
        )
    except httpx.TimeoutException:
        page.error = f"Firecrawl did not answer within {web.timeout * 3:g} s"
        return page
    except httpx.HTTPError as exc:
        page.error = f"could not reach Firecrawl: {type(exc).__name__}: {exc}"
        return page
    if response.status_code >= 400:
        detail = " ".join(response.text.split())[:200]
        page.error = f"Firecrawl answered HTTP {response.status_code}: {detail}"
        return page
    try:
        payload = response.json()
    except ValueError:
        page.error = "Firecrawl did not answer with JSON"
        return page
    data = payload.get("data") if isinstance(payload, dict) else None
    data = data if isinstance(data, dict) else {}
    metadata = data.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    page.title = str(metadata.get("title") or "")
    page.text = str(data.get("markdown") or "")
    page.content_type = "text/markdown"
    if not page.text.strip():
        page.error = str(payload.get("error") or "Firecrawl returned no content for this page")
    return page

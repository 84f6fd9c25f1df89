"""Fetch one page for web_extract: `httpx`, bounded in every way a page can misbehave.

- time: `web.timeout` seconds for the whole fetch, headers and redirects included (a server that trickles
  bytes is cut off too), and Esc ends it at once (`agent.web.transfer`);
- where: the URL policy (`agent.web.url_policy`) refuses metadata and link-local addresses always, and
  loopback and private ones unless configured, checked again after each redirect;
- redirects: at most `web.max_redirects` (a loop is reported as one);
- size: the body is streamed and reading stops after `web.max_page_bytes` (the page is marked cut);
- charset: whatever the server claims, the text is decoded (`decode_body`), never an error;
- content types: HTML becomes the article as Markdown (`agent.web.extract`), text and JSON are kept as
  they are, anything else (PDF, images, archives) gets a clear "not extracted" note.

With the Firecrawl backend a public page is scraped by Firecrawl instead (`scrape_firecrawl`); loopback
and private addresses (when allowed) are fetched here, since a cloud scraper cannot reach them.
"""

from __future__ import annotations

import codecs
import re
import threading
from dataclasses import dataclass

from agent.config.web import WebSettings
from agent.core.humanize import format_size
from agent.web.url_policy import is_local, scheme_refusal

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


def extract_page(url: str, web: WebSettings, interrupt: threading.Event | None = None) -> Page:
    """One URL as web_extract reads it (and an `@url:` reference): Firecrawl for a public page when it is
    the configured backend, else fetched here."""
    if web.search_backend == "firecrawl" and not is_local(url):
        return scrape_firecrawl(url, web)
    return fetch_page(url, web, interrupt)


def fetch_page(url: str, web: WebSettings, interrupt: threading.Event | None = None) -> Page:
    from agent.web.transfer import Cancelled, TransferError, exchange

    page = Page(url=url)
    problem = scheme_refusal(url)
    if problem:
        page.error = problem
        return page
    headers = {"User-Agent": USER_AGENT, "Accept": "text/html,text/*;q=0.9,*/*;q=0.5"}
    try:
        answer = exchange("GET", url, web, cap=web.max_page_bytes, interrupt=interrupt, headers=headers)
    except Cancelled:
        page.error = "interrupted by the user"
        return page
    except TransferError as exc:
        page.error = str(exc)
        return page
    page.final_url = answer.url
    page.content_type = answer.content_type.split(";")[0].strip().lower()
    if answer.status >= 400:
        page.error = f"HTTP {answer.status} {answer.reason}".strip()
        return page
    page.cut = answer.cut
    page.bytes_read = len(answer.body)
    _convert(page, answer.body, answer.content_type)
    return page


def decode_body(body: bytes, content_type: str = "", *, html: bool = False) -> str:
    """Bytes as text, whatever charset the server claims: a byte-order mark first, then the header's
    charset, then (HTML) a `<meta charset>`, each only if it is a real text encoding that fits the bytes;
    else UTF-8, with replacement characters where the bytes are not text. Never raises."""
    for bom, codec in _BOMS:
        if body.startswith(bom):
            return body[len(bom) :].decode(codec, errors="replace")
    declared = [_charset_of(content_type)]
    if html:
        match = _META_CHARSET.search(body[:4096])
        declared.append(match.group(1).decode("ascii", "replace") if match else "")
    for declared_name in declared:
        usable = _text_codec(declared_name, body)
        if usable is not None:
            try:
                return body.decode(usable, errors="replace")
            except (LookupError, UnicodeError, ValueError, TypeError):
                continue
    return body.decode("utf-8", errors="replace")


_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.IGNORECASE)
_NOT_FOR_PAGES = frozenset({"idna", "punycode", "raw_unicode_escape", "unicode_escape", "utf_7", "undefined"})


def _charset_of(content_type: str) -> str:
    for part in content_type.split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset":
            return value.strip().strip("\"'")
    return ""


def _text_codec(name: str, body: bytes) -> str | None:
    """`name` when it is a text encoding a page can be in and the bytes fit it (an ASCII page declared
    UTF-16 is not UTF-16); None otherwise (bogus, a bytes-to-bytes codec like zlib or base64, rot13)."""
    if not name:
        return None
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError, TypeError):
        return None
    if info.name in _NOT_FOR_PAGES:
        return None
    try:
        "a<".encode(info.name)
        b"a".decode(info.name)  # bytes.decode refuses what is not a text encoding (zlib, hex, rot13)
    except (LookupError, UnicodeError, ValueError, TypeError):
        return None
    ascii_compatible = "a<".encode(info.name) == b"a<"
    if not ascii_compatible and b"\x00" not in body[:4096]:
        return None  # UTF-16/32 without a single NUL byte: the declaration is wrong
    return info.name


def _convert(page: Page, body: bytes, content_type: str) -> None:
    kind = page.content_type or _sniff(body)
    if kind.startswith(HTML_TYPES) or (not page.content_type and kind == "text/html"):
        from agent.web.extract import html_to_markdown

        html = decode_body(body, content_type, html=True)
        page.title, page.text = html_to_markdown(html, page.final_url or page.url)
        if not page.text.strip():
            page.error = "the page has no readable text (it may need JavaScript to render)"
        return
    if kind.startswith(TEXT_TYPES) or kind.endswith(("+json", "+xml")):
        page.text = decode_body(body, content_type)
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

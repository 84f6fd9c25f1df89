"""Loopback stand-ins of the web: each search backend's HTTP API and a page server with misbehaving pages.

`WebStandIn` is one HTTP server on 127.0.0.1 (port from the OS) answering, under its own prefix, what the
real services answer to the requests `agent.web` sends: SearXNG `GET /searxng/search?format=json`, Tavily
`POST /tavily/search`, Exa `POST /exa/search`, Firecrawl `POST /firecrawl/v2/search` and `/v2/scrape`. It
records every request (method, path, headers, JSON body) so a test can check what was sent, and refuses a
request without the expected key. The pages (`/pages/...`) include an article between navigation and a
footer, a redirect loop, a 10 MB page, a binary, a PDF, one with terminal escapes in its title and text
(`/pages/escapes`) and one that never answers in time. Tavily's refusal can quote the key it refused
(`quote_refused_key`).
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pydantic import SecretStr

from agent.config.web import WebSettings

KEYS = {"tavily": "tvly-test-key", "exa": "exa-test-key", "firecrawl": "fc-test-key"}

ARTICLE_HTML = """<!doctype html>
<html><head><title>How octopuses edit their RNA</title></head><body>
<nav class="site-nav"><a href="/">Home</a> | <a href="/about">About us</a> | <a href="/shop">Shop</a></nav>
<header><div class="menu">Subscribe to our newsletter · Sign in</div></header>
<main><article>
<h1>How octopuses edit their RNA</h1>
<p>Octopuses and squid recode their proteins by editing messenger RNA on a scale no other animal does,
which lets them adjust their nervous system to the water around them.</p>
<h2>Cold water</h2>
<p>In colder water the editing rate rises: researchers measured it in tanks kept at different
temperatures over several weeks, and found the change within hours.</p>
<ul><li>More editing in the cold</li><li>Less editing in warm water</li></ul>
</article></main>
<footer>Copyright 2026 Example Corp · Privacy policy · Terms of use · Contact</footer>
</body></html>"""

BIG_BYTES = 10 * 1024 * 1024

ESCAPES_TITLE = "Breaking \x1b[31mred\x1b[0m news\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07 today"
ESCAPES_HTML = f"""<!doctype html>
<html><head><title>{ESCAPES_TITLE}</title></head><body><main><article>
<h1>Breaking news</h1>
<p>The council voted\x07 on the\x08 new bridge after a long debate about its cost and
the traffic it would carry into the old town centre.</p>
<p>Work starts in the spring and should take two years, the mayor said.</p>
</article></main></body></html>"""
ESCAPES_TEXT = (
    "Build log\r\n\x1b[2J\x1b[H\x1b[1;32mPASS\x1b[0m unit tests\x00\r\n"
    "\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\ here\x9b31m for the \x07report\n"
)
"""A page whose title and text carry terminal controls (colours, a window title, an OSC 52 clipboard
write, BEL, backspace), and a plain-text one (`/pages/escapes.txt`, not through an HTML parser) with
clear-screen, a hyperlink, NUL, CR LF and an 8-bit CSI: stored and exported, they must be neutralised as
shown."""


def _results(query: str, backend: str) -> list[dict[str, str]]:
    return [
        {
            "title": f"{query.title()}: a guide ({backend})",
            "url": f"https://guide.example/{backend}/{query.replace(' ', '-')}",
            "snippet": f"Everything about {query}, explained step by step.",
        },
        {
            "title": f"{query.title()} on the wiki",
            "url": f"https://wiki.example/{query.replace(' ', '_')}",
            "snippet": f"{query} is a topic with a long history.",
        },
    ]


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any = None


@dataclass
class WebStandIn:
    """Use as a context manager; `url` is its base, `settings(backend)` web settings aimed at it."""

    requests: list[Recorded] = field(default_factory=list)
    slow_seconds: float = 5.0
    quote_refused_key: bool = False
    """Tavily's refusal quotes the key it refused (some backends' errors do)."""

    def __post_init__(self) -> None:
        self._server: ThreadingHTTPServer | None = None
        self._release = threading.Event()

    def __enter__(self) -> WebStandIn:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                standin._handle(self, "GET")

            def do_POST(self) -> None:
                standin._handle(self, "POST")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="web-standin", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def settings(self, backend: str = "", **changes: Any) -> WebSettings:
        """Web settings with `backend` configured and aimed here ("" = none configured)."""
        values: dict[str, Any] = {
            "searxng_url": "",
            "tavily_base_url": f"{self.url}/tavily",
            "exa_base_url": f"{self.url}/exa",
            "timeout": 5.0,
            "allow_private_urls": True,  # the stand-in plays a public site on loopback
        }
        if backend == "searxng":
            values["searxng_url"] = f"{self.url}/searxng"
        elif backend:
            values[f"{backend}_api_key"] = SecretStr(KEYS[backend])
        if backend == "firecrawl":  # a URL of its own counts as a self-hosted Firecrawl: only when asked
            values["firecrawl_api_url"] = f"{self.url}/firecrawl"
        values.update(changes)
        return WebSettings(**values)

    def searches(self) -> list[Recorded]:
        return [r for r in self.requests if not r.path.startswith("/pages")]

    # ------------------------------------------------------------------ handling

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        parts = urlsplit(handler.path)
        body: Any = None
        length = int(handler.headers.get("Content-Length") or 0)
        if length:
            raw = handler.rfile.read(length)
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode("utf-8", "replace")
        headers = {k.lower(): v for k, v in handler.headers.items()}
        self.requests.append(Recorded(method, parts.path, parse_qs(parts.query), headers, body))
        path = parts.path
        if path.startswith("/pages/"):
            self._page(handler, path.removeprefix("/pages/"))
        elif path == "/searxng/search" and method == "GET":
            query = parse_qs(parts.query).get("q", [""])[0]
            rows = [
                {"title": r["title"], "url": r["url"], "content": r["snippet"], "score": 2 - i}
                for i, r in enumerate(_results(query, "searxng"))
            ]
            self._json(handler, {"query": query, "results": rows})
        elif path == "/tavily/search" and method == "POST":
            if headers.get("authorization") != f"Bearer {KEYS['tavily']}":
                error = "Unauthorized: missing or invalid API key."
                if self.quote_refused_key:  # as some backends do: the app must mask it (issue 33)
                    sent = headers.get("authorization", "").removeprefix("Bearer ")
                    error = f"Unauthorized: invalid API key {sent!r}."
                return self._json(handler, {"detail": {"error": error}}, 401)
            rows = [
                {"title": r["title"], "url": r["url"], "content": r["snippet"], "score": 0.9}
                for r in _results(body["query"], "tavily")
            ]
            self._json(handler, {"query": body["query"], "results": rows, "response_time": 0.5})
        elif path == "/exa/search" and method == "POST":
            if headers.get("x-api-key") != KEYS["exa"]:
                return self._json(handler, {"error": "Invalid API key"}, 401)
            rows = [
                {"id": r["url"], "title": r["title"], "url": r["url"], "highlights": [r["snippet"]]}
                for r in _results(body["query"], "exa")
            ]
            self._json(handler, {"requestId": "r1", "results": rows})
        elif path == "/firecrawl/v2/search" and method == "POST":
            if headers.get("authorization") != f"Bearer {KEYS['firecrawl']}":
                return self._json(handler, {"success": False, "error": "Unauthorized"}, 401)
            rows = [
                {"title": r["title"], "url": r["url"], "description": r["snippet"]}
                for r in _results(body["query"], "firecrawl")
            ]
            self._json(handler, {"success": True, "data": {"web": rows}})
        elif path == "/firecrawl/v2/scrape" and method == "POST":
            markdown = f"# Scraped by Firecrawl\n\nThe main content of {body['url']}."
            self._json(
                handler,
                {
                    "success": True,
                    "data": {
                        "markdown": markdown,
                        "metadata": {"title": "Scraped page", "sourceURL": body["url"]},
                    },
                },
            )
        else:
            self._send(handler, 404, b"not found", "text/plain")

    def _page(self, handler: BaseHTTPRequestHandler, name: str) -> None:
        if name == "article":
            self._send(handler, 200, ARTICLE_HTML.encode(), "text/html; charset=utf-8")
        elif name in ("loop-a", "loop-b"):
            target = "/pages/loop-b" if name == "loop-a" else "/pages/loop-a"
            handler.send_response(302)
            handler.send_header("Location", target)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
        elif name == "moved":
            handler.send_response(301)
            handler.send_header("Location", "/pages/article")
            handler.send_header("Content-Length", "0")
            handler.end_headers()
        elif name == "big":
            handler.send_response(200)
            handler.send_header("Content-Type", "text/plain; charset=utf-8")
            handler.send_header("Content-Length", str(BIG_BYTES))
            handler.end_headers()
            line = b"all work and no play makes a very long page\n"
            sent = 0
            try:
                while sent < BIG_BYTES:
                    chunk = (line * 1500)[: BIG_BYTES - sent]
                    handler.wfile.write(chunk)
                    sent += len(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading at its size cap: that is the point
        elif name == "binary":
            self._send(handler, 200, bytes(range(256)) * 64, "application/octet-stream")
        elif name == "report.pdf":
            self._send(handler, 200, b"%PDF-1.7\n" + b"\x00\x01binary" * 500, "application/pdf")
        elif name == "escapes":
            self._send(handler, 200, ESCAPES_HTML.encode(), "text/html; charset=utf-8")
        elif name == "escapes.txt":
            self._send(handler, 200, ESCAPES_TEXT.encode(), "text/plain; charset=utf-8")
        elif name == "notes.txt":
            self._send(handler, 200, b"plain notes\nline two\n", "text/plain; charset=utf-8")
        elif name == "data.json":
            self._send(handler, 200, b'{"answer": 42, "items": [1, 2]}', "application/json")
        elif name == "slow":
            self._release.wait(self.slow_seconds)  # longer than the client's timeout
            self._send(handler, 200, b"<html><body><p>too late</p></body></html>", "text/html")
        elif name == "long":
            words = " ".join(f"word{i}" for i in range(20_000))
            html = f"<html><head><title>Long</title></head><body><article><p>START {words} END</p></article>"
            self._send(handler, 200, html.encode(), "text/html")
        else:
            self._send(handler, 404, b"<html><body>Not here</body></html>", "text/html")

    @staticmethod
    def _json(handler: BaseHTTPRequestHandler, data: Any, status: int = 200) -> None:
        WebStandIn._send(handler, status, json.dumps(data).encode(), "application/json")

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, body: bytes, content_type: str) -> None:
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


COUNTER_HTML = b"""<html><head><title>Counter</title></head><body><h1>Counter</h1><p>count is 0</p>
<button onclick="document.querySelector('p').textContent='count is 1'">Add one</button></body></html>"""


class _BrowserPages(BaseHTTPRequestHandler):
    """`/` a page with a button that changes it; `/never` a page that never finishes loading."""

    def do_GET(self) -> None:
        if self.path == "/never":
            self.server.asked.set()  # type: ignore[attr-defined]
            self.server.hanging.wait(120)  # type: ignore[attr-defined]
            return
        WebStandIn._send(self, 200, COUNTER_HTML, "text/html")

    def log_message(self, *args: object) -> None:
        pass


@dataclass(frozen=True)
class NeverLoadingSite:
    """Its base URL, and `waiting`: set once a browser asked for `/never` (the page it now waits on), so a
    test acts on a browser that is up and stuck instead of after a guessed time."""

    url: str
    waiting: threading.Event


@contextlib.contextmanager
def never_loading_site() -> Iterator[NeverLoadingSite]:
    """A loopback site for the browser tools: `/` the counter page, `/never` one that never loads."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _BrowserPages)
    server.daemon_threads = True
    server.hanging = threading.Event()  # type: ignore[attr-defined]
    server.asked = threading.Event()  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield NeverLoadingSite(f"http://127.0.0.1:{server.server_port}", server.asked)  # type: ignore[attr-defined]
    finally:
        server.hanging.set()  # type: ignore[attr-defined]
        server.shutdown()
        server.server_close()

"""Hostile pages and backends (issue 33): one total deadline, Esc at once, any charset, metadata and
link-local refused in every spelling by every caller of the URL policy (the web tools, the browser), private
only when allowed, malformed search rows skipped."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from agent.config.web import WebSettings
from agent.web.fetch import decode_body, fetch_page
from agent.web.search import _collect, _rows
from agent.web.url_policy import browser_refusal, is_local, refusal

METADATA_SPELLINGS = [
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://[::ffff:169.254.169.254]/",
    "http://[::ffff:a9fe:a9fe]/",
    "http://2852039166/",
    "http://0251.0376.0251.0376/",
    "http://0xa9fea9fe/",
    "http://169.254.43518/",
    "http://[64:ff9b::a9fe:a9fe]/",
    "http://[2002:a9fe:a9fe::]/",
    "http://[fe80::1]/",
    "http://169.254.1.1/",
]


CALLERS: dict[str, Callable[[str], str | None]] = {
    "web": lambda url: refusal(url, allow_private=False, resolve=False),
    "web, private allowed": lambda url: refusal(url, allow_private=True, resolve=False),
    "browser": browser_refusal,  # resolves names; every spelling here is refused before that
}


@pytest.mark.parametrize("caller", sorted(CALLERS))
@pytest.mark.parametrize("url", METADATA_SPELLINGS)
def test_metadata_and_link_local_are_refused_in_every_spelling_by_every_caller(url: str, caller: str) -> None:
    assert "SSRF" in (CALLERS[caller](url) or "")


@pytest.mark.parametrize("caller", sorted(CALLERS))
@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "chrome://settings", "javascript:alert(1)", "data:text/html,hi", "ftp://x/"]
)
def test_only_http_and_https_for_every_caller(url: str, caller: str) -> None:
    assert "http" in (CALLERS[caller](url) or "")


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/",
        "http://localhost/",
        "http://10.1.2.3/",
        "http://[::1]/",
        "http://2130706433/",
    ],
)
def test_the_browser_may_open_this_machine_and_private_networks(url: str) -> None:
    """The one place the callers differ: a local dev server is what people test in the browser."""
    assert browser_refusal(url) is None
    assert is_local(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/",
        "http://localhost/",
        "http://10.1.2.3/",
        "http://[::1]/",
        "http://2130706433/",
    ],
)
def test_private_and_loopback_only_when_allowed(url: str) -> None:
    assert "allow_private_urls" in (refusal(url, allow_private=False, resolve=False) or "")
    assert refusal(url, allow_private=True, resolve=False) is None


def test_a_redirect_to_metadata_is_refused_after_the_hop() -> None:
    with _server(
        b"HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/\r\nContent-Length: 0\r\n\r\n"
    ) as url:
        page = fetch_page(url, WebSettings(allow_private_urls=True, timeout=5))
    assert "metadata" in page.error and page.error.startswith("refused")


@pytest.mark.parametrize("charset", ["zlib", "rot13", "base64", "hex", "utf-16", "idna", "bogus-42"])
def test_a_bogus_or_exotic_charset_still_gives_the_text(charset: str) -> None:
    body = "<html><body><p>Grüße aus Köln</p></body></html>".encode()
    assert "Grüße aus Köln" in decode_body(body, f"text/html; charset={charset}", html=True)


def test_malformed_search_rows_are_skipped_and_counted() -> None:
    raw = [{"url": "https://a.example", "title": "A"}, "junk", {"url": {"x": 1}}, {"title": "no url"}, 7]
    rows = _rows(raw)
    collected = _collect(((r.get("title"), r.get("url"), r.get("content")) for r in rows.objects), rows)
    assert [r.url for r in collected.results] == ["https://a.example"]
    assert collected.skipped == 4


def _drip(conn: socket.socket, stop: threading.Event) -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Slow: " + b"y" * 1000
    try:
        for byte in head:
            if stop.is_set():
                break
            conn.sendall(bytes([byte]))
            time.sleep(0.2)  # one byte at a time: no single read ever times out
    except OSError:
        pass
    finally:
        conn.close()


class _Server:
    def __init__(self, reply: bytes | None) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.reply = reply
        self.stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.recv(65536)
            if self.reply is None:
                threading.Thread(target=_drip, args=(conn, self.stop), daemon=True).start()
            else:
                conn.sendall(self.reply)
                conn.close()


from contextlib import contextmanager  # noqa: E402


@contextmanager
def _server(reply: bytes | None) -> Iterator[str]:
    server = _Server(reply)
    try:
        yield f"http://127.0.0.1:{server.sock.getsockname()[1]}/"
    finally:
        server.stop.set()
        server.sock.close()


def test_a_dripping_server_ends_within_the_timeout() -> None:
    with _server(None) as url:
        started = time.monotonic()
        page = fetch_page(url, WebSettings(allow_private_urls=True, timeout=1.0))
        elapsed = time.monotonic() - started
    assert "timed out after 1 s" in page.error
    assert elapsed < 1.0 + 1.0


def test_esc_ends_a_web_call_at_once() -> None:
    interrupt = threading.Event()
    threading.Timer(0.3, interrupt.set).start()
    with _server(None) as url:
        started = time.monotonic()
        page = fetch_page(url, WebSettings(allow_private_urls=True, timeout=30), interrupt)
        elapsed = time.monotonic() - started
    assert page.error == "interrupted by the user"
    assert elapsed < 0.3 + 3.0  # at once, not the 30 s timeout (margin for a loaded machine)

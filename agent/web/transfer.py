"""One HTTP exchange for the web tools, bounded in every way a server can misbehave.

- one deadline for the whole call (`web.timeout`): connecting, resolving, every redirect, the headers and
  the body together. httpx's timeouts are per read, so a server that drips a byte a second never trips
  them; the exchange runs in a worker thread and the caller stops waiting at the deadline (the worker is
  told to stop and its connection closed under it);
- the user's interrupt (Esc) ends the wait at once, the same way;
- the body is read as a stream and reading stops at `cap` bytes (the answer is marked cut);
- redirects are followed here, at most `web.max_redirects`, each target checked by the URL policy
  (`agent.web.url_policy`) before it is asked for, as the first URL is.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from agent.config.web import WebSettings
from agent.web.url_policy import refusal

if TYPE_CHECKING:
    import httpx

__all__ = ["Answer", "Cancelled", "TransferError", "exchange"]

WAIT_SLICE = 0.05  # how often the waiting caller looks at the interrupt
REDIRECTS = (301, 302, 303, 307, 308)


class TransferError(Exception):
    """An exchange that failed, with one line for the model and the user."""


class Cancelled(TransferError):
    """The user interrupted the call."""


@dataclass
class Answer:
    status: int
    reason: str
    url: str  # after redirects
    headers: dict[str, str] = field(default_factory=dict)  # names lower-cased
    body: bytes = b""
    cut: bool = False  # the body was longer than the cap

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


@dataclass
class _Run:
    stop: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)
    client: Any = None
    answer: Answer | None = None
    error: BaseException | None = None


def exchange(
    method: str,
    url: str,
    web: WebSettings,
    *,
    cap: int,
    interrupt: threading.Event | None = None,
    check_urls: bool = True,
    headers: dict[str, str] | None = None,
    params: dict[str, Any] | None = None,
    json: Any = None,
) -> Answer:
    """`method url` under one deadline, the body capped at `cap` bytes. Raises TransferError (Cancelled
    on the interrupt). `check_urls=False` for a configured backend: the user chose its address."""
    run = _Run()
    deadline = time.monotonic() + web.timeout
    request = (method, url, web, cap, check_urls, headers or {}, params, json)
    worker = threading.Thread(target=_work, args=(run, *request), name="web-exchange", daemon=True)
    worker.start()
    while not run.done.wait(WAIT_SLICE):
        if interrupt is not None and interrupt.is_set():
            _abandon(run)
            raise Cancelled("interrupted by the user")
        if time.monotonic() >= deadline:
            _abandon(run)
            raise TransferError(f"timed out after {web.timeout:g} s")
    if run.error is not None:
        raise _described(run.error, web)
    assert run.answer is not None
    return run.answer


def _abandon(run: _Run) -> None:
    """Stop waiting: the worker stops at its next step, its connection is closed under it (in a thread
    of its own: closing must not hold the caller either)."""
    run.stop.set()
    client = run.client
    if client is not None:
        threading.Thread(target=_close_quietly, args=(client,), name="web-abandon", daemon=True).start()


def _close_quietly(client: Any) -> None:
    try:
        client.close()
    except Exception:
        pass


def _described(exc: BaseException, web: WebSettings) -> TransferError:
    import httpx

    if isinstance(exc, TransferError):
        return exc
    if isinstance(exc, httpx.TimeoutException):
        return TransferError(f"timed out after {web.timeout:g} s")
    if isinstance(exc, httpx.HTTPError):
        return TransferError(f"could not fetch it: {type(exc).__name__}: {exc}")
    return TransferError(f"could not fetch it: {type(exc).__name__}: {exc}")


def _work(
    run: _Run,
    method: str,
    url: str,
    web: WebSettings,
    cap: int,
    check_urls: bool,
    headers: dict[str, str],
    params: dict[str, Any] | None,
    json: Any,
) -> None:
    import httpx

    try:
        with httpx.Client(timeout=web.timeout, follow_redirects=False, headers=headers) as client:
            run.client = client
            for _hop in range(web.max_redirects + 1):
                if run.stop.is_set():
                    return
                if check_urls:
                    problem = refusal(url, allow_private=web.allow_private_urls)
                    if problem:
                        raise TransferError(f"refused: {problem}")
                with client.stream(method, url, params=params, json=json) as response:
                    location = response.headers.get("location")
                    if response.status_code in REDIRECTS and location:
                        url = urljoin(str(response.url), location)
                        if response.status_code in (301, 302, 303):
                            method, json = "GET", None
                        params = None
                        continue
                    run.answer = _read(run, response, cap)
                    return
            raise TransferError(f"too many redirects (more than {web.max_redirects}): a redirect loop?")
    except BaseException as exc:  # carried to the caller (a worker must not die with a traceback)
        run.error = exc
    finally:
        run.done.set()


def _read(run: _Run, response: httpx.Response, cap: int) -> Answer:
    answer = Answer(
        status=response.status_code,
        reason=response.reason_phrase,
        url=str(response.url),
        headers={k.lower(): v for k, v in response.headers.items()},
    )
    body = bytearray()
    for chunk in response.iter_bytes():
        if run.stop.is_set():
            break
        body += chunk
        if len(body) > cap:
            del body[cap:]
            answer.cut = True
            break
    answer.body = bytes(body)
    return answer

"""One browser per session: Playwright's sync API on a thread of its own (Playwright objects belong to the
thread that made them, and tools run on the executor's threads), Chromium started on first use and closed
with the session.

No orphans: the driver and Chromium are process groups under the app's supervisor (`processes`), so the
reaper stops them when this process dies without closing them (kill -9 included; the driver would also
close the browser when its pipe to us closes); `close()` does it at once on a normal exit.
A call waits in short slices and gives up on the session's interrupt (Esc). The browser thread must not
stay behind it either (the next call of the session queues behind whatever it is doing): `navigate` waits
for a page in slices too, sees the call's cancel flag between them and stops the pending load (CDP's
`Page.stopLoading`), so the next call starts within a slice; a page that never loads ends at
`NAVIGATION_TIMEOUT_MS`, the same way.
"""

from __future__ import annotations

import os
import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, wait
from pathlib import Path
from typing import Any, TypeVar

from agent.browser.processes import BrowserProcesses
from agent.web.url_policy import browser_refusal

__all__ = ["ACTION_TIMEOUT_MS", "NAVIGATION_TIMEOUT_MS", "BrowserInterrupted", "BrowserSession"]

T = TypeVar("T")
NAVIGATION_TIMEOUT_MS = 30_000
ACTION_TIMEOUT_MS = 10_000
WAIT_SLICE = 0.1
FIRST_WAIT_MS = 500  # a page that loads at once is one plain goto; a slower one is waited for in slices
CONSOLE_KEEP = 500


_Call = tuple[Callable[[], Any], "Future[Any]", threading.Event]  # what to run, its answer, its cancel flag


class BrowserInterrupted(Exception):
    """The user interrupted a browser call before it finished."""


class BrowserSession:
    def __init__(self, executable: str) -> None:
        self.executable = executable
        self.console: list[dict[str, str]] = []
        self._calls: queue.Queue[_Call | None] = queue.Queue()
        self._cancel = threading.Event()  # the running call's: set when its caller gave up on it
        self._cdp: Any = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._page: Any = None
        self._browser: Any = None
        self._playwright: Any = None
        self._processes: BrowserProcesses | None = None
        self.closed = False

    # ------------------------------------------------------------------ the browser thread

    def _serve(self) -> None:
        while (item := self._calls.get()) is not None:
            fn, future, self._cancel = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn())
            except BaseException as exc:
                future.set_exception(exc)
        self._shutdown()

    def _shutdown(self) -> None:
        for closing in (self._browser, self._playwright):
            if closing is None:
                continue
            try:
                closing.close() if closing is self._browser else closing.stop()
            except Exception:
                pass
        self._page = self._browser = self._playwright = self._cdp = None
        processes, self._processes = self._processes, None
        if processes is not None:
            processes.stop()
            shutil.rmtree(processes.folder, ignore_errors=True)

    def _start(self) -> None:
        from playwright.sync_api import sync_playwright

        if self._processes is None:
            self._processes = BrowserProcesses(Path(tempfile.mkdtemp(prefix="hermes_browser_")))
        with self._processes.launching_driver():
            self._playwright = sync_playwright().start()
        args = ["--disable-gpu", "--disable-dev-shm-usage"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
        try:
            self._browser = self._playwright.chromium.launch(
                executable_path=self.executable, headless=True, args=args
            )
        finally:
            self._processes.adopt_chromium()
        context = self._browser.new_context()
        context.route("**/*", self._guard)
        self._page = context.new_page()
        self._page.set_default_timeout(ACTION_TIMEOUT_MS)
        self._page.set_default_navigation_timeout(NAVIGATION_TIMEOUT_MS)
        self._page.on("console", self._on_console)
        self._page.on("pageerror", lambda error: self._remember("error", str(error), "exception"))

    def _guard(self, route: Any) -> None:
        """Every request the page makes (redirects and subresources too) passes the SSRF check."""
        url = str(route.request.url)
        if url.startswith(("http://", "https://")) and browser_refusal(url) is not None:
            route.abort("blockedbyclient")
        else:
            route.continue_()

    def _remember(self, kind: str, text: str, source: str = "console") -> None:
        self.console.append({"type": kind, "text": text, "source": source})
        del self.console[:-CONSOLE_KEEP]

    def _on_console(self, message: Any) -> None:
        self._remember(str(message.type), str(message.text))

    # ------------------------------------------------------------------ calls (any thread)

    def page(self) -> Any:
        """The page (call only inside `run`)."""
        if self._page is None:
            self._start()
        return self._page

    def navigate(self, url: str) -> None:
        """Go to `url` and wait for its DOM (call only inside `run`). Playwright's `goto` cannot be
        stopped from another thread, so past a first short wait the load is watched through the page's
        events in slices: a failed load raises its error, a cancelled call or the navigation timeout
        stops the load and raises."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        page = self.page()
        loaded: list[bool] = []
        failed: list[str] = []

        def on_loaded(_page: Any) -> None:
            loaded.append(True)

        def on_failed(request: Any) -> None:
            if request.is_navigation_request() and request.frame == page.main_frame:
                failed.append(str(request.failure or "net::ERR_FAILED"))

        page.on("domcontentloaded", on_loaded)
        page.on("requestfailed", on_failed)
        try:
            try:
                first = min(FIRST_WAIT_MS, NAVIGATION_TIMEOUT_MS)
                page.goto(url, wait_until="domcontentloaded", timeout=first)
                return
            except PlaywrightTimeout:
                pass
            deadline = time.monotonic() + (NAVIGATION_TIMEOUT_MS - FIRST_WAIT_MS) / 1000
            while not loaded:
                if failed:
                    raise RuntimeError(f"{failed[0]} at {url}")
                if self._cancel.is_set():
                    self._stop_loading(page)
                    raise BrowserInterrupted()
                if time.monotonic() >= deadline:
                    self._stop_loading(page)
                    raise RuntimeError(f"Timeout {NAVIGATION_TIMEOUT_MS}ms exceeded navigating to {url}")
                page.wait_for_timeout(WAIT_SLICE * 1000)
        finally:
            page.remove_listener("domcontentloaded", on_loaded)
            page.remove_listener("requestfailed", on_failed)

    def _stop_loading(self, page: Any) -> None:
        """Stop the page's pending load, as the browser's stop button does (in the browser process, so a
        page busy in its script cannot hold it up); the page stays where it was."""
        try:
            if self._cdp is None:
                self._cdp = page.context.new_cdp_session(page)
            self._cdp.send("Page.stopLoading")
        except Exception:
            self._cdp = None  # the next navigation supersedes the pending one anyway

    @property
    def started(self) -> bool:
        return self._page is not None

    def run(self, fn: Callable[[], T], interrupt: threading.Event) -> T:
        """`fn()` on the browser thread; raises `BrowserInterrupted` when `interrupt` is set first."""
        with self._lock:
            if self.closed:
                raise RuntimeError("the browser was closed with its session")
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name="browser", daemon=True)
                self._thread.start()
        future: Future[T] = Future()
        cancel = threading.Event()
        self._calls.put((fn, future, cancel))
        # `done()` rather than `result(timeout)`'s TimeoutError: a call may itself fail with a TimeoutError
        while not wait([future], timeout=WAIT_SLICE).done:
            if interrupt.is_set():
                cancel.set()
                future.cancel()
                raise BrowserInterrupted()
        return future.result()

    def close(self, wait: float = 10.0) -> None:
        """Close the browser (and the driver) now; later calls fail."""
        with self._lock:
            self.closed = True
            thread = self._thread
        if thread is None:
            return
        self._calls.put(None)
        thread.join(wait)

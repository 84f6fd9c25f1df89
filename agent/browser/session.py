"""One browser per session: Playwright's sync API on a thread of its own (Playwright objects belong to the
thread that made them, and tools run on the executor's threads), Chromium started on first use and closed
with the session.

No orphans: the driver and Chromium are process groups under the app's supervisor (`processes`), so the
reaper stops them when this process dies without closing them (kill -9 included; the driver would also
close the browser when its pipe to us closes); `close()` does it at once on a normal exit.
A call waits in short slices and gives up on the session's interrupt (Esc), leaving the page as it is; a
page that never loads ends at `NAVIGATION_TIMEOUT`.
"""

from __future__ import annotations

import os
import queue
import shutil
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from agent.browser.processes import BrowserProcesses
from agent.browser.url_policy import refusal

__all__ = ["ACTION_TIMEOUT_MS", "NAVIGATION_TIMEOUT_MS", "BrowserInterrupted", "BrowserSession"]

T = TypeVar("T")
NAVIGATION_TIMEOUT_MS = 30_000
ACTION_TIMEOUT_MS = 10_000
WAIT_SLICE = 0.1
CONSOLE_KEEP = 500


class BrowserInterrupted(Exception):
    """The user interrupted a browser call before it finished."""


class BrowserSession:
    def __init__(self, executable: str) -> None:
        self.executable = executable
        self.console: list[dict[str, str]] = []
        self._calls: queue.Queue[tuple[Callable[[], Any], Future[Any]] | None] = queue.Queue()
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
            fn, future = item
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
        self._page = self._browser = self._playwright = None
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
        if url.startswith(("http://", "https://")) and refusal(url) is not None:
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
        self._calls.put((fn, future))
        while True:
            try:
                return future.result(timeout=WAIT_SLICE)
            except TimeoutError:
                if interrupt.is_set():
                    future.cancel()
                    raise BrowserInterrupted() from None

    def close(self, wait: float = 10.0) -> None:
        """Close the browser (and the driver) now; later calls fail."""
        with self._lock:
            self.closed = True
            thread = self._thread
        if thread is None:
            return
        self._calls.put(None)
        thread.join(wait)

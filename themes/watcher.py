"""`ThemeWatcher`: calls back when a theme file in the watched directories is written, added or removed.

`watchfiles.watch` runs in a daemon thread and is given a stop event, so the thread ends within about one
`step` of `stop()`. The step is also how often the idle watcher wakes up (its Rust loop takes the GIL each
step to check signals and the stop event): 250 ms, not watchfiles' 50, so an app sitting at the prompt
is woken 4 times a second per watcher instead of 20 (measured: a third of the idle app's CPU). A change is
reported within two steps plus the debounce. Changes are debounced by watchfiles (a burst of writes from
one save is one batch) and each path is reported once per batch. Directories that do not exist yet are
checked for every `rescan` seconds (1), so creating `$HERMES_HOME/tui/themes` while the app runs starts
watching it. Nothing here raises into the caller: errors in the watcher or in `on_change` are logged and
the watcher carries on.

`on_change(path)` runs in the watcher thread: hop to the UI thread before touching the app (`app.call_later`
is thread-safe and does not block; `call_from_thread` blocks until the UI runs it).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from themes.loader import is_theme_file, theme_files

__all__ = ["ThemeWatcher"]

log = logging.getLogger(__name__)


class ThemeWatcher:
    """Watch theme directories in a background thread; `start()` and `stop()` are explicit."""

    def __init__(
        self,
        dirs: Iterable[str | Path],
        on_change: Callable[[Path], None],
        *,
        debounce_ms: int = 300,
        step_ms: int = 250,
        rescan: float = 1.0,
        force_polling: bool | None = None,
    ) -> None:
        self.dirs: tuple[Path, ...] = tuple(Path(d) for d in dirs)
        self.on_change = on_change
        self.debounce_ms = debounce_ms
        self.step_ms = step_ms
        self.rescan = rescan
        self.force_polling = force_polling
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start watching (idempotent)."""
        if self.running:
            return
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="theme-watcher", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0, *, wait: bool = True) -> None:
        """Stop watching and wait (at most `timeout` seconds) for the thread to end. Safe to call twice.
        Without `wait` (an app quitting): the daemon thread ends by itself at its next step and calls
        nothing after the stop, so quitting does not wait up to a step for it."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if wait and thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def wait_ready(self, timeout: float = 2.0) -> bool:
        """Block until the watcher has set up its first watch (or found no directory to watch). For tests."""
        return self._ready.wait(timeout)

    # ----------------------------------------------------------------------------------------- internals

    def _existing(self) -> tuple[Path, ...]:
        return tuple(d for d in self.dirs if d.is_dir())

    def _filter(self, change: object, path: str) -> bool:
        return is_theme_file(Path(path))

    def _run(self) -> None:
        try:
            from watchfiles import watch
        except Exception:  # pragma: no cover - watchfiles is a dependency
            log.exception("theme watcher: watchfiles is not available")
            self._ready.set()
            return
        watched: tuple[Path, ...] | None = None  # None: the first round
        while not self._stop.is_set():
            previous, watched = watched, self._existing()
            # Directories that appeared since the last round: their files were written before we watched
            # them, so report them once the new watch is set up (at its first yield).
            appeared = [d for d in watched if d not in previous] if previous is not None else []
            if not watched:
                self._ready.set()
                self._stop.wait(self.rescan)
                continue
            try:
                for changes in watch(
                    *watched,
                    watch_filter=self._filter,
                    debounce=self.debounce_ms,
                    step=self.step_ms,
                    stop_event=self._stop,
                    rust_timeout=max(int(self.rescan * 1000), self.step_ms),
                    yield_on_timeout=True,
                    raise_interrupt=False,
                    force_polling=self.force_polling,
                    recursive=False,
                ):
                    self._ready.set()
                    if appeared:
                        self._dispatch(theme_files(appeared))
                        appeared = []
                    if changes:
                        self._dispatch(sorted({Path(p) for _change, p in changes}))
                    if self._stop.is_set() or self._existing() != watched:
                        break  # a directory appeared or vanished: watch the new set
            except Exception:
                log.warning("theme watcher: watching %s failed; retrying", watched, exc_info=True)
                self._ready.set()
                self._stop.wait(self.rescan)

    def _dispatch(self, paths: list[Path]) -> None:
        for path in paths:
            if self._stop.is_set():
                return
            try:
                self.on_change(path)
            except Exception:
                log.exception("theme watcher: on_change(%s) failed", path)

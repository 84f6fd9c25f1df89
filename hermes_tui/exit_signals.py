"""SIGTERM, SIGHUP (the terminal window closed) and SIGINT sent to the TUI: quit the way Ctrl+Q does.

Python's default for SIGTERM and SIGHUP ends the process at once: no cleanup, the terminal left in the
alternate screen with mouse reporting on, background processes orphaned. While the app runs, each of these
signals schedules `app.exit(128 + signal)` on its loop instead (the chat's unmount finalises the turn and
stops the background processes, Textual restores the terminal). If the app has not ended
`SIGNAL_EXIT_PATIENCE` seconds later (a stuck loop), or a second signal comes, the terminal is restored
directly (the modes Textual sets switched off, the main screen, the user's terminal settings), the
supervisor's children are stopped and the process ends. A signal handler runs on the main thread between
bytecodes, the asyncio loop's thread, so scheduling on it from there is safe.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

from widgets.support.timing import SIGNAL_EXIT_PATIENCE

__all__ = ["EXIT_SIGNALS", "RESTORE_TERMINAL", "handled", "restore_terminal"]

EXIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
LINGER = 2.0
"""Seconds the process may take to end after the app ended on a signal, before it is ended directly."""

RESTORE_TERMINAL = (
    "\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?1016l"  # mouse reporting off
    "\x1b[?2004l"  # bracketed paste off
    "\x1b[?1004l"  # focus events off
    "\x1b[?7h"  # line wrap on
    "\x1b[<u"  # the kitty keyboard protocol popped (before leaving the alternate screen)
    "\x1b[?1049l"  # the main screen
    "\x1b[?25h"  # the cursor shown
)


def _saved_attributes() -> tuple[int, list[Any]] | None:
    """The terminal settings as the user had them (the app has not taken the terminal yet)."""
    try:
        import termios

        fd = sys.__stdin__.fileno() if sys.__stdin__ is not None else 0
        return fd, termios.tcgetattr(fd)
    except Exception:  # no termios, no terminal on stdin: nothing to restore
        return None


def restore_terminal(saved: tuple[int, list[Any]] | None) -> None:
    """The terminal as it was before the app: modes off, main screen, the saved settings. Quiet on a
    terminal that is gone (SIGHUP)."""
    for stream in (sys.__stderr__, sys.__stdout__):
        try:
            if stream is not None and stream.isatty():
                os.write(stream.fileno(), RESTORE_TERMINAL.encode())
                break
        except (OSError, ValueError):
            continue
    if saved is not None:
        try:
            import termios

            termios.tcsetattr(saved[0], termios.TCSANOW, saved[1])
        except Exception:
            pass


class _Handler:
    def __init__(
        self, request_exit: Callable[[int], None], *, patience: float, via_loop: bool, restore: bool
    ) -> None:
        self.request_exit = request_exit
        self.patience = patience
        self.via_loop = via_loop
        self.saved = _saved_attributes() if restore else None
        self.restore = restore
        self.received: int | None = None
        self.done = threading.Event()  # the app ended: what follows is the ordinary, bounded way out

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        code = 128 + signum
        if self.received is not None:
            self.hard_exit(code)  # asked twice: do not wait
        self.received = signum
        threading.Thread(target=self._watchdog, args=(code,), name="exit-watchdog", daemon=True).start()
        if not self.via_loop:
            self.request_exit(code)
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.hard_exit(code)  # the app's loop is not running: nothing would do the orderly exit
            return
        loop.call_soon_threadsafe(self.request_exit, code)

    def linger(self, code: int) -> None:
        time.sleep(LINGER)
        self.hard_exit(code)

    def _watchdog(self, code: int) -> None:
        if not self.done.wait(self.patience):
            self.hard_exit(code)

    def hard_exit(self, code: int) -> None:
        if self.restore:
            restore_terminal(self.saved)
        from agent.api import SUPERVISOR

        SUPERVISOR.exit_now(code, record_as="when the app was stopped by a signal")


@contextlib.contextmanager
def handled(
    request_exit: Callable[[int], None],
    *,
    signals: tuple[signal.Signals, ...] = EXIT_SIGNALS,
    via_loop: bool = True,
    restore: bool = True,
    patience: float = SIGNAL_EXIT_PATIENCE,
) -> Iterator[Callable[[], int | None]]:
    """While inside: each of `signals` asks for an orderly exit with `request_exit(128 + signal)` (on the
    running asyncio loop when `via_loop`, else from the handler itself), and `patience` later, or at a
    second signal, the process ends directly (the terminal restored first when `restore`). Yields a
    function saying which signal came (None: none). Installs nothing off the main thread."""
    handler = _Handler(request_exit, patience=patience, via_loop=via_loop, restore=restore)
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for sig in signals:
            previous[sig] = signal.signal(sig, handler)
    try:
        yield lambda: handler.received
    finally:
        handler.done.set()
        for number, old in previous.items():
            signal.signal(number, old)
        if handler.received is not None and restore:  # the TUI's (what holds Textual's threads)
            # The app ended on a signal: the process must end too. After SIGHUP the terminal is gone and
            # Textual's input thread (not a daemon) spins on the dead tty, so the interpreter's wait for
            # it at exit never ended (found: apps at 19% CPU for half an hour after their tmux server was
            # killed). A daemon watchdog ends the process if it is still here a moment later.
            code = 128 + handler.received
            threading.Thread(target=handler.linger, args=(code,), name="exit-linger", daemon=True).start()

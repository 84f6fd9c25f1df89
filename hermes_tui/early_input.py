"""Keys typed while the TUI starts reach the app as typed.

Until Textual puts the terminal in raw mode (inside `App.run`, a second or so after launch), the terminal
is in cooked mode: what the user types is echoed onto the shell's screen, and Enter arrives as a newline
(ICRNL turns `\\r` into `\\n`, which Textual reads as Ctrl+J), so "hello⏎" typed ahead would become a
two-line draft instead of a message. `hold()` switches echo, line editing and that translation off at the
start of the command line; `release()` puts the user's settings back right before Textual takes the
terminal (Textual saves and restores them on exit, so they must be the originals). What was typed stays
in the terminal's input buffer, unchanged, for Textual's first read. Signals (Ctrl+C) are left alone.
"""

from __future__ import annotations

import sys

_saved: tuple[int, list[int | list[bytes | int]]] | None = None


def hold() -> None:
    """Raw-ish input until `release()`; nothing happens when stdin is not a terminal."""
    global _saved
    if _saved is not None:
        return
    try:
        import termios

        fd = sys.stdin.fileno()
        if not sys.stdin.isatty():
            return
        original = termios.tcgetattr(fd)
        quiet = termios.tcgetattr(fd)
        quiet[0] &= ~termios.ICRNL  # iflag: keep Enter as \r
        quiet[3] &= ~(termios.ICANON | termios.ECHO)  # lflag: no line editing, no echo
        termios.tcsetattr(fd, termios.TCSANOW, quiet)
    except Exception:  # no termios, no terminal, or one that refuses (termios.error): start as usual
        return
    _saved = (fd, original)


def release() -> None:
    """The user's terminal settings again (idempotent)."""
    global _saved
    if _saved is None:
        return
    fd, original = _saved
    _saved = None
    try:
        import termios

        termios.tcsetattr(fd, termios.TCSANOW, original)
    except Exception:
        pass

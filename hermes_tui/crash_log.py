"""An exception that escapes anyway: a non-zero exit, the traceback in a log file, one line on stderr.

Every handler's exception is a bug; when one escapes, Textual stops the app and prints a screenful of
traceback (with the frames' locals) on stderr, and `App.run()` still returned `None`: the process exited 0
as after a clean quit. Here the app's error console (`App.error_console`, where Textual prints it) writes
into a buffer instead, the traceback goes, secrets masked, to `$HERMES_HOME/tui/logs/crash-<time>.log`, and
the user reads one line saying so; the exit code is 1 (`App.return_code`, which Textual sets on a crash).
An exception raised by `App.run()` itself gets the same treatment.

The session is saved by the app's own way out (the chat screen's unmount finishes a running turn, the
store is closed after it), the same path as a quit.
"""

from __future__ import annotations

import io
import os
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

if TYPE_CHECKING:
    from textual.app import App

__all__ = ["DEBUG_RAISE", "CrashCapture", "DebugCrash", "raise_if_asked"]

DEBUG_RAISE = "HERMES_TUI_DEBUG_RAISE"
"""A hidden hook for the crash test: with it set, submitting exactly its value raises in the chat screen's
handler (a real escape through Textual, no patched framework)."""


class DebugCrash(RuntimeError):
    """What `DEBUG_RAISE` raises."""


def raise_if_asked(text: str) -> None:
    trigger = os.environ.get(DEBUG_RAISE)
    if trigger and text.strip() == trigger:
        raise DebugCrash(f"{DEBUG_RAISE} asked for a crash")


class CrashCapture:
    """Takes Textual's error console for the app's run; after it, says whether the app crashed, and if it
    did writes the log and gives the line for stderr."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.buffer = io.StringIO()
        app.error_console = Console(
            file=self.buffer,
            markup=False,
            highlight=False,
            color_system=None,
            force_terminal=False,
            width=120,
        )

    @property
    def crashed(self) -> bool:
        return bool(self.app.return_code)

    def other_output(self) -> str:
        """What Textual printed on the error console without a crash (an exit message): for stderr."""
        return "" if self.crashed else self.buffer.getvalue()

    def report(self, home: Path, escaped: BaseException | None = None) -> str:
        """Write the log (Textual's traceback, or the one `escaped` from `App.run()`), return the line."""
        text = self.buffer.getvalue()
        if escaped is not None:
            text += "".join(traceback.format_exception(escaped))
        return write_crash_log(home, text)


def write_crash_log(home: Path, text: str) -> str:
    """The traceback, secrets masked, in a new file under `home/tui/logs/`; the one line that says where
    (or that it could not be written, with the error's last line)."""
    from agent.api import redact_secrets

    text = redact_secrets(text)
    last = next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "")
    what = f" ({last[:120]})" if last else ""
    folder = home / "tui" / "logs"
    path = folder / f"crash-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{os.getpid()}.log"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        return f"hermes-tui: internal error{what}; the log could not be written ({exc.strerror or exc})"
    return f"hermes-tui: internal error{what}; the traceback is in {path}"

"""A stdio MCP server's stderr, written to its log file through the one redactor (issue 33 item 7).

The SDK hands `errlog` to the child as its stderr file descriptor, so whatever the server prints (its
environment at start-up, a library's debug line quoting the `Authorization` header, a traceback with the
token in a URL) would land in `$HERMES_HOME/tui/logs/mcp-<name>.log` byte for byte, and from there in the
server's "last error" (`_stderr_tail`) that `/mcp` and `hermes-tui mcp` show. Here the child writes into
a pipe instead and a thread copies each line, masked by `agent.core.secrets.SECRETS`, to the file.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TextIO

from agent.core.secrets import SECRETS

__all__ = ["RedactedStderrLog"]

DRAIN_SECONDS = 0.5
"""How long closing waits for the copy to catch up (the server is gone, its last lines are on their way);
a grandchild that keeps the pipe open is not waited for longer."""

_MAX_LINE = 64 * 1024  # a server printing megabytes without a newline is copied in pieces


class RedactedStderrLog:
    """Context manager: `writer` is the file object to give the SDK as `errlog` (the pipe's write end).

    On exit the write end is closed and the copy thread has `DRAIN_SECONDS` to write what is left, so the
    log is complete when the manager reads its tail for the error line."""

    def __init__(self, path: Path) -> None:
        read_fd, write_fd = os.pipe()
        self._log = path.open("a", encoding="utf-8")
        self.writer: TextIO = os.fdopen(write_fd, "w", encoding="utf-8")
        self._thread = threading.Thread(
            target=self._copy, args=(read_fd,), name=f"mcp-stderr-{path.stem}", daemon=True
        )
        self._thread.start()

    def _copy(self, read_fd: int) -> None:
        try:
            with os.fdopen(read_fd, "rb") as reader:
                while raw := reader.readline(_MAX_LINE):
                    self._log.write(SECRETS.redact(raw.decode("utf-8", "replace")))
                    self._log.flush()
        except (OSError, ValueError):
            pass  # the log file went away or was closed: nothing else to keep
        finally:
            self._log.close()

    def __enter__(self) -> TextIO:
        return self.writer

    def __exit__(self, *exc_info: object) -> None:
        try:
            self.writer.close()
        except OSError:
            pass
        self._thread.join(DRAIN_SECONDS)

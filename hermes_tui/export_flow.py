"""`/export [FILE]` in the chat: where to write (the argument, or asked with the session's title as the
default), then the write in a thread worker (a long session's Markdown takes a moment), then one line saying
where it went or why it failed.

The rendering itself is `hermes_tui.export`, shared with the session browser.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App

if TYPE_CHECKING:
    from agent.api import SessionStoreProtocol
    from hermes_tui.export import ExportFormat

Report = Callable[[str, str], object]
"""`report(kind, text)`: a notice in the chat (kind info | warn | error)."""


class ExportFlow:
    """Exports sessions of `store` for the chat screen, relative paths under `cwd`."""

    def __init__(self, app: App[object], store: SessionStoreProtocol, *, cwd: Path, report: Report) -> None:
        self.app = app
        self.store = store
        self.cwd = cwd
        self.report = report

    def start(self, session_id: str, arg: str = "") -> None:
        """Export `session_id` to `arg`, or ask for a path when `arg` is empty."""
        if not session_id:
            self.report("warn", "Nothing to export yet: send a message first.")
            return
        # The writers load on the first export, not with the chat screen (they are not on the first frame).
        from hermes_tui.export import default_export_path, format_for_path
        from hermes_tui.screens.sessions import ExportPathModal

        if arg.strip():
            path = Path(arg.strip()).expanduser()
            path = path if path.is_absolute() else self.cwd / path
            if not path.exists() and path.parent.is_dir():
                self._write_in_worker(session_id, path, format_for_path(path))
                return
            default = arg.strip()  # replacing a file or creating folders: asked first, in the dialog
        else:
            info = self.store.get_session(session_id)
            default = f"./{default_export_path(info).name}" if info is not None else ""

        def chosen(answer: tuple[Path, ExportFormat] | None) -> None:
            if answer:
                self._write_in_worker(session_id, *answer)

        self.app.push_screen(ExportPathModal(default, base_dir=self.cwd), chosen)

    def _write_in_worker(self, session_id: str, path: Path, fmt: ExportFormat) -> None:
        self.app.run_worker(
            lambda: self._write(session_id, path, fmt), thread=True, group="export", exit_on_error=False
        )

    def _write(self, session_id: str, path: Path, fmt: ExportFormat) -> None:
        """Worker thread: write, then report on the UI thread."""
        from hermes_tui.export import write_export

        try:
            written = write_export(self.store, session_id, path, fmt)
        except (OSError, ValueError, KeyError) as exc:
            self.app.call_from_thread(self.report, "error", f"Export failed: {exc}")
            return
        self.app.call_from_thread(self.report, "info", f"Exported this session to {written}")

"""`ExportPathModal`: where to write an exported session (the sessions screen's `e`, the chat's `/export`)."""

from __future__ import annotations

from pathlib import Path

from hermes_tui.export import ExportFormat, format_for_path
from hermes_tui.screens.modals import PromptIssue, PromptModal

__all__ = ["ExportPathModal"]


class ExportPathModal(PromptModal):
    """Asks for a path; dismisses with (path, "markdown" | "json") or None.

    A path ending in `.json` exports JSON, anything else Markdown; a relative path is taken from
    `base_dir`. A directory is refused; an existing file must be confirmed with a second Enter."""

    def __init__(self, default_path: str, base_dir: Path | None = None) -> None:
        super().__init__(
            "Export session",
            default_path,
            hint="enter export · esc cancel · .json exports JSON, anything else Markdown",
            cursor_at_end=True,
        )
        self.base_dir = base_dir

    def _resolve(self, value: str) -> Path:
        path = Path(value.strip()).expanduser()
        if not path.is_absolute() and self.base_dir is not None:
            path = self.base_dir / path
        return path

    def check(self, value: str) -> PromptIssue | None:
        shown = value.strip()
        if not shown:
            return PromptIssue("Type a file name.")
        path = self._resolve(value)
        try:
            if path.is_dir():
                return PromptIssue(f"{shown} is a directory: add a file name.")
            if path.exists():
                return PromptIssue(f"{shown} exists. Press enter again to replace it.", confirm=True)
        except OSError as exc:
            return PromptIssue(f"Cannot use {shown}: {exc.strerror or exc}")
        return None

    def result(self, value: str) -> tuple[Path, ExportFormat]:
        path = self._resolve(value)
        return path, format_for_path(path)

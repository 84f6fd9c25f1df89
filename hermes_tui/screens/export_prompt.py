"""`ExportPathModal`: where to write an exported session (the sessions screen's `e`, the chat's `/export`)."""

from __future__ import annotations

from pathlib import Path

from hermes_tui.export import ExportFormat, format_for_path
from hermes_tui.screens.modals import PromptIssue, PromptModal
from hermes_tui.typed_path import typed_path

__all__ = ["ExportPathModal"]


class ExportPathModal(PromptModal):
    """Asks for a path; dismisses with (path, "markdown" | "json") or None.

    A path ending in `.json` exports JSON, anything else Markdown; a relative path is taken from
    `base_dir`, and the field shows the absolute path it means as you type. The suggested name is selected,
    so typing replaces it (appending to it made `./go.md/tmp/x.md`). A directory is refused; replacing a
    file or creating a missing folder must be confirmed with a second Enter."""

    def __init__(self, default_path: str, base_dir: Path | None = None) -> None:
        super().__init__(
            "Export session",
            default_path,
            hint="enter export · esc cancel · .json exports JSON, anything else Markdown",
        )
        self.base_dir = base_dir

    def _resolve(self, value: str) -> Path:
        return typed_path(value, self.base_dir)

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
            if not path.parent.exists():
                return PromptIssue(
                    f"The folder {path.parent} does not exist. Press enter again to create it.", confirm=True
                )
        except OSError as exc:
            return PromptIssue(f"Cannot use {shown}: {exc.strerror or exc}")
        return None

    def preview(self, value: str) -> str:
        if not value.strip():
            return ""
        path = self._resolve(value)
        return f"→ {path.absolute()} ({format_for_path(path)})"

    def result(self, value: str) -> tuple[Path, ExportFormat]:
        path = self._resolve(value)
        return path, format_for_path(path)

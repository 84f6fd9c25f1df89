"""`@` completion in the prompt: the working tree's paths, best first for what was typed.

The tree is listed in a background thread and cached (`agent.workspace.file_tree.FileIndex`); a new
listing starts when the working directory changed. `on_listed` is called from the listing thread when one
is ready (the chat posts a message, so the prompt completes again on the UI thread).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agent.api import FileIndex, rank_paths

__all__ = ["FileCompletion"]


class FileCompletion:
    """The prompt's `file_source`: query -> the matching paths under the current working directory."""

    def __init__(self, cwd: Callable[[], Path], on_listed: Callable[[], None]) -> None:
        self._cwd = cwd
        self._on_listed = on_listed
        self._index: FileIndex | None = None

    def __call__(self, query: str) -> list[str]:
        root = self._cwd()
        if self._index is None or self._index.root != root:
            self._index = FileIndex(root, on_ready=self._on_listed)
        return rank_paths(query, self._index.paths())

"""The app's MCP servers: started after the first frame, reloaded by `/mcp reload` or when config.yaml
changes, stopped when the app exits. Their tools reach every session through the toolset catalog.

Everything slow happens off the UI thread: connecting runs on the manager's loop thread, reading the
configuration and the file watcher on their own threads. Changes come back as `McpChanged` messages posted
to the app (thread-safe, never blocking the sender), and a server that fails or exits is reported once per
distinct error, not on every retry.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

from themes.watcher import ThemeWatcher

if TYPE_CHECKING:
    from agent.api import McpManager, ServerStatus

__all__ = ["CONFIG_NAME", "McpChanged", "McpService"]

CONFIG_NAME = "config.yaml"
_TROUBLE = ("failed", "exited", "invalid")


@dataclass
class McpChanged(Message):
    """A server's state changed (posted from the manager's thread)."""

    status: ServerStatus


class _ConfigWatcher(ThemeWatcher):
    """The theme watcher's machinery, watching `$HERMES_HOME/config.yaml` instead of theme files."""

    def _filter(self, change: object, path: str) -> bool:
        return Path(path).name == CONFIG_NAME


class McpService:
    def __init__(self, hermes_home: Path, post: Callable[[ServerStatus], None]) -> None:
        self.hermes_home = Path(hermes_home)
        self._post = post
        self._manager: McpManager | None = None
        self._lock = threading.Lock()
        self._watcher: _ConfigWatcher | None = None
        self._reported: dict[str, str] = {}
        self._closed = False
        self._started = False

    @property
    def manager(self) -> McpManager:
        with self._lock:
            if self._manager is None:
                from agent.api import McpManager

                self._manager = McpManager(self.hermes_home, on_change=self._post)
            return self._manager

    def start(self, *, watch: bool = True) -> None:
        """Connect the configured servers in the background; with `watch`, reload when config.yaml changes."""
        if self._started:
            return  # the chat screen opens again after the setup screen: one start per app
        self._started = True
        threading.Thread(target=self._load, name="mcp-start", daemon=True).start()
        if watch:
            self._watcher = _ConfigWatcher([self.hermes_home], self._file_changed)
            self._watcher.start()

    def reload(self) -> None:
        """Read config.yaml again and reconnect every server (`/mcp reload`)."""
        threading.Thread(target=self._load, kwargs={"force": True}, name="mcp-reload", daemon=True).start()

    def statuses(self) -> list[ServerStatus]:
        with self._lock:
            manager = self._manager
        return manager.status() if manager is not None else []

    def report(self, status: ServerStatus) -> str | None:
        """The one line to tell the user about this change, or None (nothing new). UI thread."""
        if status.state not in _TROUBLE:
            if status.state == "connected":
                self._reported.pop(status.name, None)
            return None
        key = f"{status.state}:{status.error}"
        if self._reported.get(status.name) == key:
            return None
        self._reported[status.name] = key
        what = {"failed": "could not connect", "exited": "exited", "invalid": "is misconfigured"}
        return f"MCP server '{status.name}' {what[status.state]}: {status.error or 'no reason given'}"

    def close(self) -> None:
        self._closed = True
        if self._watcher is not None:
            self._watcher.stop(wait=False)  # quitting does not wait for its next step
        with self._lock:
            manager = self._manager
        if manager is not None:
            manager.close()

    # ------------------------------------------------------------------ threads

    def _load(self, force: bool = False) -> None:
        from agent.api import load_mcp_config

        if self._closed:
            return
        config = load_mcp_config(self.hermes_home)
        if not config.servers and self._manager is None:
            return  # nothing configured: no loop thread, no SDK import
        self.manager.reload(config, force=force)

    def _file_changed(self, path: Path) -> None:
        if path.name == CONFIG_NAME and path.parent == self.hermes_home:
            self._load(force=False)  # only servers whose settings changed reconnect

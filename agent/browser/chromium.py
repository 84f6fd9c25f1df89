"""Which Chromium the browser tools drive, and why they cannot run when there is none.

The system's Chromium (Debian's `chromium`), never Playwright's own download: `browser.executable_path` in
config.yaml, else the first of the usual names on PATH. Playwright for Python must be importable too.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.config.settings import Settings

__all__ = ["INSTALL_LINE", "chromium_path", "unavailable_reason"]

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
INSTALL_LINE = "sudo apt-get install -y chromium"


def chromium_path(configured: str | None) -> str | None:
    if configured:
        path = os.path.expanduser(configured)
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    return next((found for name in NAMES if (found := shutil.which(name))), None)


def unavailable_reason(settings: Settings) -> str | None:
    """None when the browser can start, else one line with the command that installs what is missing."""
    if importlib.util.find_spec("playwright") is None:
        return "Playwright for Python is not installed: pip install playwright"
    if chromium_path(settings.browser_executable_path) is None:
        if settings.browser_executable_path:
            return f"browser.executable_path {settings.browser_executable_path} is not an executable file"
        return f"no Chromium found on PATH: {INSTALL_LINE} (or set browser.executable_path)"
    return None

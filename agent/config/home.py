"""Where Hermes' home is (`$HERMES_HOME`, else `~/.hermes`), in a module light enough for the command line
to ask before anything heavy is imported (the startup snapshot lives under it, `hermes_tui.startup_snapshot`).
"""

from __future__ import annotations

import os
from pathlib import Path


def hermes_home() -> Path:
    return Path(os.environ.get("HERMES_HOME") or Path.home() / ".hermes").expanduser()

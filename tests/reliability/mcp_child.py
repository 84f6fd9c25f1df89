"""An app to kill while it starts its MCP servers: the real `McpManager` (under the real supervisor and
its reaper) connecting the stdio servers of HERMES_HOME's config.yaml. The SDK is imported first, so the
spawn follows `go` on stdout within milliseconds: the parent kills it at moments around the spawn.

Usage: mcp_child.py HERMES_HOME
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from agent.mcp import McpManager, load_mcp_config
from agent.mcp.manager import _import_sdk

if __name__ == "__main__":
    home = Path(sys.argv[1])
    _import_sdk()
    manager = McpManager(home)
    config = load_mcp_config(home)
    sys.stdout.write("go\n")
    sys.stdout.flush()
    manager.start(config)
    time.sleep(600)  # killed long before

"""MCP servers for a process without the TUI (`hermes-tui -z`, `hermes-tui mcp`): connect, wait, close.

The TUI never waits for a server (its tools join when ready); a one-shot run has no later moment, so it
waits for every server to connect or fail, bounded by the longest `connect_timeout`.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from agent.mcp.config import McpConfig, load_mcp_config, parse_mcp_servers
from agent.mcp.manager import McpManager
from agent.toolkit.toolsets import ToolsetCatalog

__all__ = ["connected_servers", "print_mcp_servers", "ready_within", "session_servers"]

GRACE = 5.0


def ready_within(config: McpConfig) -> float:
    """How long a run that needs every server waits for them: the longest `connect_timeout`, and a grace."""
    return max((s.connect_timeout for s in config.specs), default=0.0) + GRACE


@contextmanager
def connected_servers(hermes_home: Path) -> Iterator[McpManager | None]:
    """The configured servers, connected (or failed) on entry and stopped on exit; None when none."""
    config = load_mcp_config(hermes_home)
    if not config.servers:
        yield None
        return
    manager = McpManager(hermes_home)
    try:
        manager.start(config)
        manager.wait_ready(ready_within(config))
        yield manager
    finally:
        manager.close()


def session_servers(
    hermes_home: Path, servers: Mapping[str, Mapping[str, Any]], catalog: ToolsetCatalog
) -> McpManager:
    """Servers one session brings (an editor's `mcpServers`, in `mcp_servers`' shape: `command`/`args`/
    `env` or `url`/`headers`), connected into `catalog` (the session's `LayeredCatalog`, so no other
    session is offered their tools) and waited for, bounded like `connected_servers`. The caller closes
    the manager with the session. An entry that cannot be used is in `status()` as `invalid`."""
    from agent.core.secrets import SECRETS

    config = McpConfig(parse_mcp_servers(dict(servers), env={}))
    for spec in config.specs:  # masked wherever they would show, as the configured servers' are
        SECRETS.add_environment(spec.env)
        SECRETS.add(*spec.headers.values())
    manager = McpManager(hermes_home, catalog=catalog)
    manager.start(config)
    manager.wait_ready(ready_within(config))
    return manager


def print_mcp_servers(hermes_home: Path, out: TextIO | None = None) -> int:
    """`hermes-tui mcp`: 0 when every enabled server connected, 1 otherwise. `out` defaults to the
    stdout of the moment (a default bound at import time outlives a replaced sys.stdout)."""
    from agent.mcp.report import format_servers

    out = out if out is not None else sys.stdout
    with connected_servers(hermes_home) as manager:
        statuses = manager.status() if manager is not None else []
        print(format_servers(statuses), file=out)
    return 0 if all(s.state in ("connected", "disabled") for s in statuses) else 1

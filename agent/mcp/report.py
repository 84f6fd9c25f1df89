"""The MCP servers as text: what `/mcp` and `hermes-tui mcp` show (one formatter for both).

Per server: its state (connected, or the error in one line), where it is (command line or URL, never its
env or headers), its tools as offered to the model, those left out, its prompts and resources (as last
listed: a server's `list_changed` lists them again), its approval rule and its last call.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from agent.core.humanize import format_age, format_elapsed
from agent.core.secrets import redact
from agent.mcp.manager import ServerStatus

__all__ = ["format_servers", "server_lines"]

_STATE = {
    "connected": "connected",
    "connecting": "connecting…",
    "disabled": "disabled (enabled: false)",
    "invalid": "not usable",
    "failed": "failed",
    "exited": "exited (reconnects on the next call)",
    "stopped": "stopped",
}
NO_SERVERS = (
    "No MCP servers configured. Add them under `mcp_servers:` in $HERMES_HOME/config.yaml "
    "(command/args for stdio, url for streamable HTTP), then run /mcp reload."
)


def server_lines(status: ServerStatus, now: float | None = None) -> list[str]:
    now = time.time() if now is None else now
    head = f"{status.name}: {_STATE.get(status.state, status.state)}"
    if status.transport:
        head += f" · {status.transport}"
    lines = [head]
    if status.target:
        lines.append(f"  {status.target}")
    if status.error:
        lines.append(f"  error: {status.error}")
    elif status.last_error:
        lines.append(f"  last error: {status.last_error} ({format_age(status.last_error_at, now)})")
    if status.noise_lines:
        plural = "s" if status.noise_lines != 1 else ""
        lines.append(
            f"  skipped {status.noise_lines} line{plural} of output that is not JSON-RPC "
            f"(first: {status.noise_sample})"
        )
    if status.tools:
        lines.append(f"  tools ({len(status.tools)}): {', '.join(status.tools)}")
    if status.skipped:
        lines.append(f"  left out: {', '.join(status.skipped)}")
    if status.prompts:
        lines.append(f"  prompts ({len(status.prompts)}): {', '.join(status.prompts)}")
    if status.resources:
        lines.append(f"  resources ({len(status.resources)}): {', '.join(status.resources)}")
    if status.approval and status.state not in ("invalid",):
        lines.append(f"  approval: {status.approval}")
    if status.last_call is not None:
        last = status.last_call
        detail = f": {last.detail}" if last.detail else ""
        lines.append(
            f"  last call: {last.tool} {last.status} in {format_elapsed(last.duration)}, "
            f"{format_age(last.at, now)}{detail} ({status.calls} call{'s' if status.calls != 1 else ''})"
        )
    return lines


def masked_lines(status: ServerStatus, now: float | None = None) -> list[str]:
    """`server_lines` with every known secret masked: a command line's `--token X`, a URL's key, an error
    quoting a header (the env and headers themselves are never shown)."""
    return [redact(line) for line in server_lines(status, now)]


def format_servers(statuses: Sequence[ServerStatus], now: float | None = None) -> str:
    if not statuses:
        return NO_SERVERS
    connected = sum(1 for s in statuses if s.state == "connected")
    lines = [f"MCP servers: {connected} of {len(statuses)} connected"]
    for status in statuses:
        lines += masked_lines(status, now)
    return "\n".join(lines)

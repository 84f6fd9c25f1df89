"""MCP servers (Model Context Protocol), on the official `mcp` SDK.

- `config`: `mcp_servers:` in `$HERMES_HOME/config.yaml`, as Hermes reads it (`load_mcp_config`).
- `manager`: `McpManager`, the connections in one background asyncio loop thread: `start(config)`,
  `reload(config)`, `call(...)` (from any thread, with the interrupt flag and a timeout), `status()`,
  `close()`.
- `tools`: a server's tools as `Tool`s named `mcp_<server>_<tool>`, with the server's JSON schemas and the
  approval rule; they are registered as the dynamic toolset `mcp-<server>`.
- `results`: a call's result (text, images, resources, structured content, errors) as tool-result text.
- `processes`: the stdio servers' process groups, so none outlives the app.
- `sampling`, `elicitation`: what a server may ask during one of its tool calls (a completion of the
  session's model, input from the user), answered with that call's context (its model, approvals and UI).

Importing this package does not import the SDK (seconds of imports): the manager loads it on its own
thread when the first server connects.
"""

from agent.mcp.config import McpConfig, ServerProblem, ServerSpec, load_mcp_config
from agent.mcp.manager import CallReport, LastCall, McpManager, ServerStatus

__all__ = [
    "CallReport",
    "LastCall",
    "McpConfig",
    "McpManager",
    "ServerProblem",
    "ServerSpec",
    "ServerStatus",
    "load_mcp_config",
]

"""`hermes-tui acp`: the agent inside an editor, spoken to over the Agent Client Protocol on stdio.

The second front end of the engine (the TUI is the first): it reaches the engine only through `agent.api`,
never imports Textual (it draws nothing, and starts without the TUI's imports), and needs the optional SDK
(`pip install 'hermes-tui[acp]'`). One concept per module: `main` (the command: stdout kept for the
protocol, the log file, the process's store and MCP servers), `wire` (stdio as JSON-RPC messages, bad input
answered), `agent` (the ACP methods), `session` (one editor thread: an engine session, its turn, cancel),
`bridge` (the engine's events and questions, from its threads to the protocol's loop), `updates` (events as
session updates, a stored history replayed), `questions` (approval and clarify as permission requests),
`modes` (permission modes and the model picker), `commands` (the slash commands that work without our UI).
This package's `__init__` imports nothing.
"""

"""The tool framework: the `Tool` type and its registry (`registry`), toolsets (`toolsets`), the batch
executor and output truncation. Built-in tools (`agent.tools`), skills, delegation, plugins and MCP
register into it; it imports none of them (plugin hooks arrive as `executor.ToolHooks`)."""

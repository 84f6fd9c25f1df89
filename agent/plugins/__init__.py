"""Plugins: ours and Hermes Agent's, found and loaded by one loader, their hooks run by one manager.

Ours: a Python file (`name.py`) or package (`name/__init__.py`) in `$HERMES_HOME/plugins/`, or a
`hermes_tui.plugins` entry point, exposing `register(ctx)` where `ctx.register_hook(name, fn)` adds one of
`pre_llm_call(session_id, user_message, history, is_first_turn, model) -> str | None` (context for the
turn), `before_tool(call) -> ToolCall | Block | None`, `after_tool(call, result) -> ToolResult | None`,
`on_turn_end(result)`; a module without `register` may define functions of those names.

Hermes': a directory with `plugin.yaml` + `__init__.py` (`register(ctx)`), or a `hermes_agent.plugins`
entry point, with Hermes' context (`register_tool`, `register_hook` for Hermes' hook names with Hermes'
keyword arguments, `register_command`); opt-in through `plugins.enabled` as in Hermes.

By job: `base` (records and names), `discovery` (where plugins are and which may load), `hermes` (Hermes'
API), `manager` (loading and running hooks), `report` (one-line errors, the `/plugins` table).
"""

from __future__ import annotations

import importlib.metadata  # noqa: F401 - tests replace entry_points through this module's reference

from agent.plugins.base import (
    ENTRY_POINT_GROUP,
    HERMES_ENTRY_POINT_GROUP,
    HERMES_HOOKS,
    HOOK_NAMES,
    Block,
    PluginCommand,
    PluginInfo,
)
from agent.plugins.manager import PluginContext, PluginManager
from agent.plugins.report import describe_exception, fault_line, format_plugin_list

__all__ = [
    "ENTRY_POINT_GROUP",
    "HERMES_ENTRY_POINT_GROUP",
    "HERMES_HOOKS",
    "HOOK_NAMES",
    "Block",
    "PluginCommand",
    "PluginContext",
    "PluginInfo",
    "PluginManager",
    "describe_exception",
    "fault_line",
    "format_plugin_list",
]

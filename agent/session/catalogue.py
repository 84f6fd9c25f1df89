"""The built-in tool set: every tool module's tools, and a registry holding them."""

from __future__ import annotations

from agent.browser import tools as browser
from agent.code_execution import tool as code_execution
from agent.cron import tool as cron
from agent.delegation import tool as delegation
from agent.skills import tools as skills
from agent.toolkit.registry import Tool, ToolRegistry
from agent.tools import (
    clarify,
    files,
    memory,
    processes,
    search_files,
    session_search,
    terminal,
    todo,
    vision,
    web,
)


def builtin_tools() -> list[Tool]:
    return [
        *terminal.TOOLS,
        *processes.TOOLS,
        *files.TOOLS,
        *search_files.TOOLS,
        *todo.TOOLS,
        *memory.TOOLS,
        *session_search.TOOLS,
        *clarify.TOOLS,
        *skills.TOOLS,
        *web.TOOLS,
        *vision.TOOLS,
        *delegation.TOOLS,
        *code_execution.TOOLS,
        *cron.TOOLS,
        *browser.TOOLS,
    ]


def default_registry() -> ToolRegistry:
    return ToolRegistry(builtin_tools())

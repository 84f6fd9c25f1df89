"""What the plugin system hands around: the hook names of both APIs, a plugin's record (`PluginInfo`), a
registered hook, a slash command, and `Block`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from agent.toolkit.registry import ToolResult

__all__ = [
    "ENTRY_POINT_GROUP",
    "HERMES_ENTRY_POINT_GROUP",
    "HERMES_HOOKS",
    "HERMES_UNFIRED_HOOKS",
    "HOOK_NAMES",
    "Api",
    "Block",
    "Hook",
    "PluginCommand",
    "PluginInfo",
]

Api = Literal["hermes-tui", "hermes"]

HOOK_NAMES: tuple[str, ...] = ("pre_llm_call", "before_tool", "after_tool", "on_turn_end")
"""Our own API's hooks."""
HERMES_HOOKS: tuple[str, ...] = (
    "pre_tool_call",
    "post_tool_call",
    "transform_tool_result",
    "pre_llm_call",
    "post_llm_call",
    "transform_llm_output",
    "on_session_start",
    "on_session_end",
)
"""Hermes' hooks that hermes-tui fires, with Hermes' keyword arguments."""
HERMES_UNFIRED_HOOKS: frozenset[str] = frozenset(
    {
        "transform_terminal_output",
        "pre_verify",
        "pre_api_request",
        "post_api_request",
        "api_request_error",
        "on_session_finalize",
        "on_session_reset",
        "subagent_start",
        "subagent_stop",
        "pre_gateway_dispatch",
        "pre_approval_request",
        "post_approval_response",
        "kanban_task_claimed",
        "kanban_task_completed",
        "kanban_task_blocked",
    }
)
"""Hermes' hooks for things hermes-tui does not have (a gateway, subagents, kanban, ...): a plugin may
register them; they are listed as never called."""

ENTRY_POINT_GROUP = "hermes_tui.plugins"
HERMES_ENTRY_POINT_GROUP = "hermes_agent.plugins"


@dataclass(frozen=True)
class Block:
    """Returned by a `before_tool` hook to refuse a call (Hermes' `pre_tool_call` returning
    `{"action": "block", "message": ...}` becomes one); `plugin` is filled in by the manager."""

    reason: str
    plugin: str = ""

    def as_result(self) -> ToolResult:
        """The tool result the model sees for a blocked call."""
        who = f"plugin '{self.plugin}'" if self.plugin else "a plugin"
        reason = self.reason.strip() or "no reason given"
        return ToolResult(
            content=f"Tool call blocked by {who}: {reason}",
            status="denied",
            data={"blocked_by": self.plugin, "reason": reason},
        )


@dataclass
class PluginInfo:
    """One plugin found: where, which API, whether it loaded, and what it added or asked for in vain."""

    name: str
    source: str  # a file/package path, or "entry point <module:attr>"
    loaded: bool
    error: str | None = None
    hooks: list[str] = field(default_factory=list)
    api: Api = "hermes-tui"
    tools: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    """What the plugin asked for that hermes-tui does not do, each with the reason."""
    off: str | None = None
    """Why it was not loaded although nothing is wrong with it (not enabled, disabled in config.yaml)."""

    @property
    def status(self) -> str:
        if self.loaded:
            return "loaded"
        if self.error:
            return "failed"
        return "off" if self.off else "not loaded"

    @property
    def failed(self) -> bool:
        return bool(self.error) and not self.loaded

    def note_unsupported(self, what: str) -> None:
        if what not in self.unsupported:
            self.unsupported.append(what)


@dataclass
class Hook:
    """A registered callback. `accepts`: the keyword arguments it takes (None = all: it has **kwargs)."""

    plugin: str
    name: str
    fn: Callable[..., Any]
    api: Api = "hermes-tui"
    accepts: frozenset[str] | None = None


@dataclass(frozen=True)
class PluginCommand:
    """A slash command a Hermes plugin registered: `handler(raw_args) -> str | None` (maybe async)."""

    plugin: str
    name: str
    handler: Callable[[str], Any]
    description: str = ""
    args_hint: str = ""

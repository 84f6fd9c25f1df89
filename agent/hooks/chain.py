"""Several `ToolHooks` as one, in order: the plugins' first, then the shell hooks (a Python plugin's block
wins, as in Hermes). A block ends the chain; a rewritten call goes on to the next."""

from __future__ import annotations

from agent.core.messages import ToolCall
from agent.toolkit.executor import RefusedCall, ToolHooks
from agent.toolkit.registry import ToolResult

__all__ = ["ToolHookChain"]


class ToolHookChain:
    def __init__(self, *hooks: ToolHooks) -> None:
        self.hooks = hooks

    def has_hooks(self, point: str) -> bool:
        return any(h.has_hooks(point) for h in self.hooks)

    def before_tool(self, call: ToolCall) -> ToolCall | RefusedCall:
        for hooks in self.hooks:
            if hooks.has_hooks("before_tool"):
                changed = hooks.before_tool(call)
                if not isinstance(changed, ToolCall):
                    return changed
                call = changed
        return call

    def after_tool(self, call: ToolCall, result: ToolResult, duration: float = 0.0) -> ToolResult:
        for hooks in self.hooks:
            if hooks.has_hooks("after_tool"):
                result = hooks.after_tool(call, result, duration)
        return result

"""Shell hooks: commands the user configured for an event (Hermes' `hooks:`, a project's Claude Code hooks),
run with JSON on stdin; they may block a tool call with a reason the model reads, or add context.

`spec` reads the configuration, `consent` the approvals, `runner` runs one command, `shell_hooks` is what
the session's dispatcher and turn call, and `chain` puts them after the plugins' hooks.
"""

from agent.hooks.chain import ToolHookChain
from agent.hooks.shell_hooks import HookBlock, ShellHooks
from agent.hooks.spec import EVENTS, HookSpec, parse_hermes_hooks

__all__ = ["EVENTS", "HookBlock", "HookSpec", "ShellHooks", "ToolHookChain", "parse_hermes_hooks"]

"""Hermes Agent's plugin API, as a Hermes plugin's `register(ctx)` sees it.

`HermesPluginContext` offers what Hermes' `PluginContext` offers that hermes-tui can honour:

- `register_tool(name, toolset, schema, handler, check_fn=, requires_env=, is_async=, description=, emoji=,
  override=)`: the tool joins the toolset the plugin names (`agent.toolkit.toolsets.register_toolset`). Its
  handler is called Hermes' way, `handler(args: dict, task_id=..., session_id=..., user_task=...)` (only the
  keywords it accepts), and returns a JSON string (a dict is serialized; `{"error": ...}` is a failed call).
- `register_hook(name, callback)` for Hermes' hook names, called with Hermes' keyword arguments.
- `register_command(name, handler, description=, args_hint=)`: a slash command, `handler(raw_args) -> str`.
- `manifest`, `profile_name`.

Everything else (`register_platform`, `register_memory_provider`, `register_cli_command`, `ctx.llm`,
`inject_message`, ...) never raises: it is noted on the plugin with the reason, and `/plugins` lists it.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from pydantic import BaseModel, ConfigDict

from agent.plugins.base import HERMES_HOOKS, HERMES_UNFIRED_HOOKS, PluginCommand, PluginInfo
from agent.plugins.containment import Outcome
from agent.toolkit.registry import Tool, ToolContext, ToolResult

__all__ = ["HermesPluginContext", "HermesTool", "accepted_kwargs", "call_hermes", "result_text"]

_UNSUPPORTED = {
    "register_cli_command": "`hermes <subcommand>` commands: hermes-tui has its own command line",
    "register_context_engine": "context engines: hermes-tui compresses context itself",
    "register_platform": "gateway platforms (Telegram, Discord, ...): hermes-tui is a terminal app",
    "register_slack_action_handler": "Slack actions: hermes-tui has no gateway",
    "register_auxiliary_task": "auxiliary model tasks",
    "register_middleware": "request and tool middleware",
    "register_skill": "plugin-provided skills (put the skill in $HERMES_HOME/skills/)",
    "register_memory_provider": "memory providers: hermes-tui reads memories/MEMORY.md and USER.md",
    "register_provider": "model-provider plugins: providers come from agent/core/providers.py",
    "register_dashboard_auth_provider": "the web dashboard",
    "inject_message": "injecting messages into the conversation",
    "dispatch_tool": "calling tools from a plugin",
}


class _FreeArguments(BaseModel):
    """A Hermes tool's arguments: whatever JSON object the model sends (its schema is the plugin's)."""

    model_config = ConfigDict(extra="allow")


Contain = Callable[[str, str, Callable[[], Any]], Outcome]
"""`contain(plugin, what, call)`: the manager's way of running plugin code (`Containment.run`, logged)."""


def accepted_kwargs(fn: Callable[..., Any]) -> frozenset[str] | None:
    """The keyword arguments `fn` takes, or None when it takes any (`**kwargs`) or cannot be inspected."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    return frozenset(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def call_hermes(fn: Callable[..., Any], *args: Any, accepts: frozenset[str] | None, **kwargs: Any) -> Any:
    """Call `fn` with the keywords it accepts, waiting for it when it is a coroutine function."""
    if accepts is not None:
        kwargs = {key: value for key, value in kwargs.items() if key in accepts}
    out = fn(*args, **kwargs)
    if inspect.isawaitable(out):
        return asyncio.run(_await(out))
    return out


async def _await(awaitable: Any) -> Any:
    return await awaitable


def result_text(out: Any) -> str:
    """A handler's return as the JSON string Hermes sends the model."""
    if isinstance(out, str):
        return out
    if out is None:
        return json.dumps({"result": None})
    try:
        return json.dumps(out, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(out)


def _is_error(text: str) -> bool:
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return isinstance(data, dict) and bool(data.get("error")) and len(data) <= 2


@dataclass
class HermesTool:
    """One tool a Hermes plugin registered, before it becomes a `Tool` of its toolset."""

    plugin: str
    name: str
    toolset: str
    schema: dict[str, Any]
    handler: Callable[..., Any]
    check_fn: Callable[[], Any] | None = None
    requires_env: tuple[str, ...] = ()
    description: str = ""
    emoji: str = ""
    accepts: frozenset[str] | None = field(default=None)
    user_task: Callable[[], str] = lambda: ""
    contain: Contain | None = None
    """How the manager runs this plugin's code (`containment`); None: called directly (a bare context)."""
    disabled: str | None = None
    """Why the plugin is disabled (a fault in one of its hooks), or None."""

    def _guarded(self, what: str, call: Callable[[], Any]) -> Outcome:
        if self.contain is not None:
            return self.contain(self.plugin, what, call)
        try:
            return Outcome(value=call())
        except Exception as exc:
            return Outcome(error=exc)

    def as_tool(self) -> Tool:
        description = str(self.schema.get("description") or self.description or f"{self.name} (plugin)")
        parameters = self.schema.get("parameters")
        if not isinstance(parameters, dict):
            parameters = {"type": "object", "properties": {}}
        return Tool(
            name=self.name,
            description=description,
            args_model=_FreeArguments,
            handler=self._run,
            toolset=self.toolset,
            parameters=parameters,
        )

    def _run(self, args: BaseModel, ctx: ToolContext) -> ToolResult:
        if self.disabled:
            return ToolResult(content=json.dumps({"error": self.disabled}), status="error")
        arguments = dict(args.model_extra or {})
        outcome = self._guarded(
            f"tool {self.name}",
            lambda: call_hermes(
                self.handler,
                arguments,
                accepts=self.accepts,
                task_id=ctx.session_id,
                session_id=ctx.session_id,
                user_task=self.user_task(),
            ),
        )
        if outcome.error is not None:  # Hermes' registry turns a raising handler into an error result too
            exc = outcome.error
            return ToolResult(
                content=json.dumps({"error": f"Tool execution failed: {type(exc).__name__}: {exc}"}),
                status="error",
            )
        text = result_text(outcome.value)
        return ToolResult(content=text, status="error" if _is_error(text) else "ok")

    def unavailable(self, env: Mapping[str, str]) -> str | None:
        """Why the tool cannot be offered now (a missing variable, its check_fn says no), or None."""
        if self.disabled:
            return self.disabled
        missing = [var for var in self.requires_env if not env.get(var)]
        if missing:
            return f"plugin {self.plugin}: {self.name} needs {', '.join(missing)}"
        if self.check_fn is not None:
            check = self.check_fn
            outcome = self._guarded(f"tool {self.name} check", lambda: bool(check()))
            if outcome.error is not None:
                exc = outcome.error
                return f"plugin {self.plugin}: {self.name}'s check failed ({type(exc).__name__}: {exc})"
            if outcome.timed_out:
                return f"plugin {self.plugin}: {self.name}'s check did not return in time"
            if not outcome.value:
                return f"plugin {self.plugin}: {self.name} is not available (its check_fn said no)"
        return None


class HermesPluginContext:
    """What a Hermes plugin's `register(ctx)` receives (see the module doc)."""

    def __init__(
        self,
        info: PluginInfo,
        manifest: Mapping[str, Any],
        *,
        builtin_tools: frozenset[str],
        user_task: Callable[[], str],
    ) -> None:
        self._info = info
        self.manifest = SimpleNamespace(
            name=str(manifest.get("name") or info.name),
            key=info.name,
            version=str(manifest.get("version", "")),
            description=str(manifest.get("description", "")),
            author=str(manifest.get("author", "")),
            source="entrypoint" if info.source.startswith("entry point") else "user",
            path=info.source,
        )
        self._builtin_tools = builtin_tools
        self._user_task = user_task
        self.hooks: list[tuple[str, Callable[..., Any]]] = []
        self.tools: list[HermesTool] = []
        self.commands: list[PluginCommand] = []

    @property
    def profile_name(self) -> str:
        return "default"

    @property
    def llm(self) -> Any:
        self._info.note_unsupported("ctx.llm: model calls from a plugin")
        raise NotImplementedError("ctx.llm is not supported by hermes-tui")

    def register_tool(
        self,
        name: str,
        toolset: str,
        schema: dict[str, Any],
        handler: Callable[..., Any],
        check_fn: Callable[[], Any] | None = None,
        requires_env: list[Any] | None = None,
        is_async: bool = False,
        description: str = "",
        emoji: str = "",
        override: bool = False,
        **extra: Any,
    ) -> None:
        if name in self._builtin_tools:
            what = "override" if override else "register"
            self._info.note_unsupported(
                f"tool {name}: a plugin may not {what} a built-in tool (it keeps the built-in one)"
            )
            return
        if not callable(handler) or not isinstance(schema, dict):
            self._info.note_unsupported(f"tool {name}: needs a schema dict and a callable handler")
            return
        env_vars = tuple(
            str(item.get("name") if isinstance(item, dict) else item) for item in (requires_env or []) if item
        )
        self.tools.append(
            HermesTool(
                self._info.name,
                name,
                toolset or f"plugin-{self._info.name}",
                schema,
                handler,
                check_fn=check_fn,
                requires_env=env_vars,
                description=description,
                emoji=emoji,
                accepts=accepted_kwargs(handler),
                user_task=self._user_task,
            )
        )
        for key in sorted(extra):
            self._info.note_unsupported(f"register_tool({key}=...): not used by hermes-tui")

    def register_hook(self, hook_name: str, callback: Callable[..., Any]) -> None:
        if not callable(callback):
            raise TypeError(f"hook {hook_name!r} must be callable, got {type(callback).__name__}")
        if hook_name in HERMES_HOOKS:
            self.hooks.append((hook_name, callback))
        elif hook_name in HERMES_UNFIRED_HOOKS:
            self._info.note_unsupported(f"hook {hook_name}: hermes-tui never fires it (no such event here)")
        else:
            self._info.note_unsupported(f"hook {hook_name}: unknown to Hermes and to hermes-tui")

    def register_command(
        self, name: str, handler: Callable[[str], Any], description: str = "", args_hint: str = ""
    ) -> None:
        clean = name.lower().strip().lstrip("/").replace(" ", "-")
        if not clean or not callable(handler):
            self._info.note_unsupported(f"command {name!r}: needs a name and a callable handler")
            return
        self.commands.append(
            PluginCommand(self._info.name, clean, handler, description or "Plugin command", args_hint)
        )

    def __getattr__(self, name: str) -> Any:
        """Any other part of Hermes' API: noted as unsupported, and a no-op so `register()` goes on."""
        if name.startswith("_"):
            raise AttributeError(name)
        reason = _UNSUPPORTED.get(name)
        if reason is None and name.startswith("register_"):
            reason = f"{name.removeprefix('register_').replace('_', ' ')}s"
        if reason is None:
            raise AttributeError(f"hermes-tui's plugin context has no {name!r}")
        info = self._info

        def unsupported(*args: Any, **kwargs: Any) -> Any:
            info.note_unsupported(f"{name}: {reason}")
            return (
                False
                if name == "inject_message"
                else json.dumps({"error": f"{name} is not supported"})
                if name == "dispatch_tool"
                else None
            )

        return unsupported

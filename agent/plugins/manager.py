"""`PluginManager`: loads every plugin (ours and Hermes') once per agent and runs their hooks.

One loader, two APIs. A plugin of ours gets a `PluginContext` (`register_hook` for `pre_llm_call`,
`before_tool`, `after_tool`, `on_turn_end`, or bare functions of those names); a Hermes plugin gets a
`HermesPluginContext` (see `agent/plugins/hermes.py`). The loop calls the manager at a few points and the
manager calls both kinds of hook there, each with its own API's arguments:

- a new session: Hermes' `on_session_start`;
- the turn starts: `pre_llm_call` (both) -> context for this turn's user message, on the wire only;
- before a tool: `before_tool` (ours, may rewrite or `Block`), Hermes' `pre_tool_call` (may block with
  `{"action": "block", "message": ...}`);
- after a tool: `after_tool` (ours, may rewrite), Hermes' `post_tool_call` (observes) and
  `transform_tool_result` (the first string returned replaces the result);
- the turn ends: Hermes' `transform_llm_output` (the first string returned replaces the final answer),
  `post_llm_call` (a completed turn), `on_session_end` (every turn, as Hermes does), our `on_turn_end`.

Hooks run in load order (our files sorted by name, Hermes' directory plugins, entry points), within a
plugin in registration order. All plugin code (import, `register`, hooks, tools, commands) runs contained
(`containment`): whatever it raises, `BaseException`s included, never reaches the caller. A plugin that
fails to import or register, or a hook that raises or does not return within `hook_timeout` seconds,
disables its plugin (its hooks, tools and commands) with one line through `on_error(plugin, where,
message)` (`where`: "load", a hook's name, or "" for the start's own reports); a hook returning the wrong
type counts as "no change" and is reported once per plugin and hook. A plugin that ended the process
(`os._exit`) is kept out on the next starts until it changes (`in_flight`).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from agent.core.messages import Message, ToolCall
from agent.plugins.base import HOOK_NAMES, Block, Hook, PluginCommand, PluginInfo
from agent.plugins.containment import Containment, Outcome
from agent.plugins.discovery import Found, discover, why_off
from agent.plugins.hermes import HermesPluginContext, HermesTool, accepted_kwargs, call_hermes, result_text
from agent.plugins.in_flight import Quarantine
from agent.plugins.report import describe_exception
from agent.toolkit.registry import ToolResult

__all__ = ["PluginContext", "PluginManager"]

log = logging.getLogger("agent.plugins")

ErrorCallback = Callable[[str, str, str], None]
PLATFORM = "cli"  # what Hermes' hooks are told the platform is
HOOK_TIMEOUT = 5.0
"""Seconds a hook may take before it is abandoned and its plugin disabled (`plugins.hook_timeout`)."""
LOAD_TIMEOUT = 10.0
"""Seconds a plugin's import or `register` may take (`plugins.load_timeout`): the first frame is shown
already, but the prompt waits for the engine."""


class PluginContext:
    """What a plugin of ours receives in `register(ctx)`."""

    def __init__(self, name: str, hermes_home: Path) -> None:
        self.name = name
        self.hermes_home = hermes_home
        self._hooks: list[tuple[str, Callable[..., Any]]] = []

    def register_hook(self, name: str, fn: Callable[..., Any]) -> None:
        if name not in HOOK_NAMES:
            raise ValueError(f"unknown hook {name!r} (known: {', '.join(HOOK_NAMES)})")
        if not callable(fn):
            raise TypeError(f"hook {name!r} must be callable, got {type(fn).__name__}")
        self._hooks.append((name, fn))


@dataclass(frozen=True)
class _Turn:
    """The turn in progress, for the arguments Hermes' hooks get."""

    session_id: str = ""
    turn_id: str = ""
    user_message: str = ""
    model: str = ""


# Hermes' hook points, as our four points group them (`has_hooks` answers for a point).
_POINTS = {
    "pre_llm_call": ("pre_llm_call", "hermes.pre_llm_call"),
    "before_tool": ("before_tool", "hermes.pre_tool_call"),
    "after_tool": ("after_tool", "hermes.post_tool_call", "hermes.transform_tool_result"),
    "on_turn_end": (
        "on_turn_end",
        "hermes.post_llm_call",
        "hermes.on_session_end",
        "hermes.transform_llm_output",
    ),
    "on_session_start": ("hermes.on_session_start",),
}


class PluginManager:
    """Every plugin of one agent (see the module doc). `load()` (again) discovers and imports them."""

    def __init__(
        self,
        hermes_home: Path,
        *,
        entry_points: bool = True,
        on_error: ErrorCallback | None = None,
        enabled: Iterable[str] | None = None,
        disabled: Iterable[str] = (),
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        builtin_tools: Iterable[str] = (),
        hook_timeout: float = HOOK_TIMEOUT,
        load_timeout: float = LOAD_TIMEOUT,
    ) -> None:
        self.hermes_home = Path(hermes_home)
        self.hook_timeout = hook_timeout
        self.load_timeout = load_timeout
        self.containment = Containment(self.hermes_home)
        self.quarantine = Quarantine(self.hermes_home / "tui" / "plugin_quarantine.json")
        self._disabled: dict[str, str] = {}  # plugin -> why, for plugins disabled after a fault
        self.plugin_dir = self.hermes_home / "plugins"
        self.use_entry_points = entry_points
        self.on_error = on_error
        self.enabled = None if enabled is None else list(enabled)
        self.disabled = list(disabled)
        self.cwd = cwd
        self.env = os.environ if env is None else env
        self.builtin_tools = frozenset(builtin_tools)
        self._plugins: list[PluginInfo] = []
        self._hooks: dict[str, list[Hook]] = {}
        self._commands: dict[str, PluginCommand] = {}
        self._tools: dict[str, HermesTool] = {}
        self._toolsets: list[str] = []
        self._reported: set[tuple[str, str]] = set()
        self._lock = threading.Lock()
        self._turn = _Turn()

    # ------------------------------------------------------------------ what is loaded

    @property
    def plugins(self) -> list[PluginInfo]:
        return list(self._plugins)

    @property
    def commands(self) -> dict[str, PluginCommand]:
        """Slash commands Hermes plugins registered, by name."""
        return dict(self._commands)

    @property
    def tool_icons(self) -> dict[str, str]:
        """The emoji Hermes plugins gave their tools, by tool name."""
        return {name: tool.emoji for name, tool in self._tools.items() if tool.emoji}

    @property
    def failed(self) -> list[PluginInfo]:
        return [p for p in self._plugins if p.failed]

    def has_hooks(self, point: str) -> bool:
        """Whether any plugin (of either API) hooks this point: pre_llm_call, before_tool, after_tool,
        on_turn_end, on_session_start."""
        return any(self._hooks.get(name) for name in _POINTS.get(point, (point,)))

    def refuse_command(self, name: str, reason: str) -> None:
        """The UI could not add a plugin's command (its name is a built-in one): list why on the plugin."""
        command = self._commands.pop(name, None)
        if command is None:
            return
        for info in self._plugins:
            if info.name == command.plugin:
                info.note_unsupported(f"command /{name}: {reason}")
                if name in info.commands:
                    info.commands.remove(name)

    # ------------------------------------------------------------------ loading

    def load(self) -> None:
        """(Re)discover and load every plugin. Never raises."""
        self.close()
        self._plugins = []
        self._hooks = {}
        self._commands = {}
        self._tools = {}
        self._disabled = {}
        with self._lock:
            self._reported.clear()
        self.quarantine.add(self.containment.in_flight.take_ended())
        seen: dict[str, str] = {}
        for found in discover(
            self.hermes_home, cwd=self.cwd, env=self.env, entry_points=self.use_entry_points
        ):
            self._load_one(found, seen)
        self._register_toolsets()

    def close(self) -> None:
        """Withdraw the toolsets this manager's plugins added (their tools stop being offered)."""
        from agent.toolkit.toolsets import unregister_toolset

        for name in self._toolsets:
            unregister_toolset(name)
        self._toolsets = []

    def _load_one(self, found: Found, seen: dict[str, str]) -> None:
        info = PluginInfo(found.name, found.source, False, api=found.api)
        self._plugins.append(info)
        if found.name in seen:
            info.error = f"duplicate plugin name: '{found.name}' is already loaded from {seen[found.name]}"
            return
        off = why_off(found, self.enabled, self.disabled)
        if off is None and found.kind in ("exclusive", "platform", "model-provider"):
            what = {
                "exclusive": "memory provider",
                "platform": "gateway platform",
                "model-provider": "model provider",
            }
            off = f"a {what[found.kind]} plugin (kind {found.kind}): not supported by hermes-tui"
        if off is not None:
            info.off = off
            return
        seen[found.name] = found.source
        quarantined = self.quarantine.reason(found.name, found.source)
        if quarantined is not None:
            info.off = quarantined
            self._tell(found.name, "", quarantined)
            return
        self.containment.in_flight.know(found.name, found.source)
        near = found.source.split(" (")[0]
        outcome = self.containment.run(found.name, "import", found.load, timeout=self.load_timeout)
        if outcome.ok:
            obj = outcome.value
            if found.api == "hermes":
                register = (
                    getattr(obj, "register", None) if isinstance(obj, ModuleType) else _find_register(obj)
                )
                if not callable(register):
                    info.error = "LookupError: no register() function"
            else:
                register = _find_register(obj)
            if info.error is None:
                ctx: PluginContext | HermesPluginContext = (
                    HermesPluginContext(
                        info,
                        found.manifest,
                        builtin_tools=self.builtin_tools,
                        user_task=lambda: self._turn.user_message,
                    )
                    if found.api == "hermes"
                    else PluginContext(info.name, self.hermes_home)
                )
                if register is not None:
                    outcome = self.containment.run(
                        found.name, "register", lambda: register(ctx), timeout=self.load_timeout
                    )
                if outcome.ok:
                    try:
                        if isinstance(ctx, HermesPluginContext):
                            self._register_hermes(info, ctx)
                        else:
                            self._register_native(info, obj, ctx, called=register is not None)
                    except (LookupError, TypeError, ValueError) as exc:
                        info.error = describe_exception(exc, near=near)
        if not outcome.ok:
            self.containment.log(found.name, "load", outcome, timeout=self.load_timeout)
            info.error = (
                describe_exception(outcome.error, near=near)
                if outcome.error is not None
                else f"did not finish loading within {self.load_timeout:g} s (abandoned)"
            )
        if info.error is not None:
            log.debug("plugin %s failed to load: %s", found.name, info.error)
            self._tell(found.name, "load", info.error)
            return
        info.loaded = True

    def _register_native(self, info: PluginInfo, obj: Any, ctx: PluginContext, *, called: bool) -> None:
        """What `register(ctx)` added (`called`), or the module's bare hook functions."""
        if not called:
            if not isinstance(obj, ModuleType):
                raise TypeError(
                    f"entry point must be a module or a register(ctx) callable, got {type(obj).__name__}"
                )
            for hook in HOOK_NAMES:
                fn = getattr(obj, hook, None)
                if callable(fn):
                    ctx.register_hook(hook, fn)
            if not ctx._hooks:
                raise LookupError(
                    "the plugin defines neither register(ctx) nor a hook function ("
                    + ", ".join(HOOK_NAMES)
                    + ")"
                )
        for name, fn in ctx._hooks:
            self._add_hook(info, Hook(info.name, name, fn, "hermes-tui", accepted_kwargs(fn)), name)

    def _register_hermes(self, info: PluginInfo, ctx: HermesPluginContext) -> None:
        """What a Hermes plugin's `register(ctx)` added."""
        for name, fn in ctx.hooks:
            self._add_hook(info, Hook(info.name, name, fn, "hermes", accepted_kwargs(fn)), f"hermes.{name}")
        for tool in ctx.tools:
            if tool.name in self._tools:
                info.note_unsupported(
                    f"tool {tool.name}: plugin {self._tools[tool.name].plugin} registered it first"
                )
                continue
            tool.contain = self._contain_tool
            self._tools[tool.name] = tool
            info.tools.append(tool.name)
        for command in ctx.commands:
            if command.name in self._commands:
                first = self._commands[command.name].plugin
                info.note_unsupported(f"command /{command.name}: plugin {first} registered it first")
                continue
            self._commands[command.name] = command
            info.commands.append(command.name)

    def _add_hook(self, info: PluginInfo, hook: Hook, key: str) -> None:
        self._hooks.setdefault(key, []).append(hook)
        if hook.name not in info.hooks:
            info.hooks.append(hook.name)

    def _register_toolsets(self) -> None:
        """Each toolset the Hermes plugins named becomes a dynamic toolset, on by default (like Hermes')."""
        from agent.toolkit.toolsets import CATALOG, Toolset, register_toolset

        groups: dict[str, list[HermesTool]] = {}
        for tool in self._tools.values():
            name = tool.toolset
            existing = CATALOG.get(name)
            if existing is not None and name not in CATALOG.dynamic():
                name = f"plugin-{tool.plugin}"  # never replace a built-in toolset's definition
            groups.setdefault(name, []).append(tool)
        env = self.env
        for name, tools in groups.items():
            plugins = sorted({tool.plugin for tool in tools})

            def requires(_settings: Any, tools: list[HermesTool] = tools) -> str | None:
                return next((why for tool in tools if (why := tool.unavailable(env))), None)

            description = f"Tools of plugin{'s' if len(plugins) > 1 else ''} {', '.join(plugins)}"
            register_toolset(
                Toolset(name, description, requires=requires, on_by_default=True),
                [dataclasses.replace(tool.as_tool(), toolset=name) for tool in tools],
            )
            self._toolsets.append(name)

    # ------------------------------------------------------------------ the turn

    def begin_turn(self, session_id: str, user_message: str, model: str) -> None:
        """A turn starts: what Hermes' hooks will be told about it."""
        self._turn = _Turn(session_id, uuid.uuid4().hex[:12], user_message, model)

    def session_started(self, session_id: str, model: str) -> None:
        """A new session was created (not a resumed one): Hermes' `on_session_start`."""
        for hook in self._hooks.get("hermes.on_session_start", []):
            self._call(hook, session_id=session_id, model=model, platform=PLATFORM)

    def pre_llm_call(
        self,
        session_id: str,
        user_message: str,
        history: list[Message],
        is_first_turn: bool,
        model: str,
    ) -> str:
        """Context from every plugin for this turn: the non-empty returns joined with blank lines."""
        ours = {
            "session_id": session_id,
            "user_message": user_message,
            "history": history,
            "is_first_turn": is_first_turn,
            "model": model,
        }
        hermes: dict[str, Any] | None = None
        parts: list[str] = []
        for hook in self._hooks.get("pre_llm_call", []) + self._hooks.get("hermes.pre_llm_call", []):
            if hook.api == "hermes":
                if hermes is None:
                    hermes = {
                        "session_id": session_id,
                        "task_id": session_id,
                        "turn_id": self._turn.turn_id,
                        "user_message": user_message,
                        "conversation_history": _wire(history),
                        "is_first_turn": is_first_turn,
                        "model": model,
                        "platform": PLATFORM,
                        "sender_id": "",
                    }
                ok, out = self._call(hook, **hermes)
            else:
                ok, out = self._call(hook, **ours)
            if not ok or out is None:
                continue
            if isinstance(out, dict) and isinstance(out.get("context"), str):
                out = out["context"]
            if not isinstance(out, str):
                self._report(hook, f"returned {type(out).__name__}, expected str or None (ignored)")
                continue
            if out.strip():
                parts.append(out.strip())
        return "\n\n".join(parts)

    def before_tool(self, call: ToolCall) -> ToolCall | Block:
        """The call as the plugins leave it, or the first Block. The call id never changes."""
        current = call
        for hook in self._hooks.get("before_tool", []):
            ok, out = self._call(hook, dataclasses.replace(current))
            if not ok or out is None:
                continue
            if isinstance(out, Block):
                return dataclasses.replace(out, plugin=out.plugin or hook.plugin)
            if isinstance(out, ToolCall) and isinstance(out.name, str) and isinstance(out.arguments, str):
                current = dataclasses.replace(out, id=call.id)
                continue
            self._report(hook, f"returned {type(out).__name__}, expected ToolCall, Block or None (ignored)")
        hermes_hooks = self._hooks.get("hermes.pre_tool_call", [])
        if not hermes_hooks:
            return current
        kwargs = {**self._tool_kwargs(current), "middleware_trace": []}
        for hook in hermes_hooks:
            ok, out = self._call(hook, **kwargs)
            if not ok or not isinstance(out, dict):
                continue
            action, message = out.get("action"), out.get("message")
            message = message if isinstance(message, str) and message else ""
            if action == "block" and message:
                block = Block(message, hook.plugin)
                self._observe_block(current, block)
                return block
            if action == "approve":
                self._note(
                    hook.plugin, "pre_tool_call 'approve': asking the user is not supported yet, so it blocks"
                )
                block = Block(
                    f"{message or 'the plugin asked for approval'} (hermes-tui cannot ask for a plugin's "
                    "approval yet, so the call is blocked)",
                    hook.plugin,
                )
                self._observe_block(current, block)
                return block
        return current

    def after_tool(self, call: ToolCall, result: ToolResult, duration: float = 0.0) -> ToolResult:
        """The result as the plugins leave it."""
        current = result
        for hook in self._hooks.get("after_tool", []):
            ok, out = self._call(hook, dataclasses.replace(call), _copy_result(current))
            if not ok or out is None:
                continue
            if isinstance(out, ToolResult) and isinstance(out.content, str):
                current = out
                continue
            self._report(hook, f"returned {type(out).__name__}, expected ToolResult or None (ignored)")
        observers = self._hooks.get("hermes.post_tool_call", [])
        transforms = self._hooks.get("hermes.transform_tool_result", [])
        if not observers and not transforms:
            return current
        failed = current.status != "ok"
        kwargs = {
            **self._tool_kwargs(call),
            "result": current.content,
            "duration_ms": int(duration * 1000),
            "status": "error" if failed else "ok",
            "error_type": current.status if failed else None,
            "error_message": current.content[:500] if failed else None,
        }
        for hook in observers:
            self._call(hook, **kwargs, middleware_trace=[])
        for hook in transforms:
            ok, out = self._call(hook, **kwargs)
            if ok and isinstance(out, str):
                return dataclasses.replace(current, content=out, data=dict(current.data))
        return current

    def transform_output(self, text: str, *, session_id: str, model: str) -> str:
        """Hermes' `transform_llm_output`: the first non-empty string returned replaces the final answer."""
        for hook in self._hooks.get("hermes.transform_llm_output", []):
            ok, out = self._call(
                hook, response_text=text, session_id=session_id, model=model, platform=PLATFORM
            )
            if ok and isinstance(out, str) and out:
                return out
        return text

    def turn_finished(
        self, result: Any, *, completed: bool, interrupted: bool, history: list[Message]
    ) -> None:
        """The turn is over: Hermes' `post_llm_call` (a completed turn with an answer) and
        `on_session_end` (every turn), then our `on_turn_end`."""
        turn = self._turn
        final = str(getattr(result, "final_text", "") or "")
        if completed and final and not interrupted:
            for hook in self._hooks.get("hermes.post_llm_call", []):
                self._call(
                    hook,
                    session_id=turn.session_id,
                    task_id=turn.session_id,
                    turn_id=turn.turn_id,
                    user_message=turn.user_message,
                    assistant_response=final,
                    conversation_history=_wire(history),
                    model=turn.model,
                    platform=PLATFORM,
                )
        for hook in self._hooks.get("hermes.on_session_end", []):
            self._call(
                hook,
                session_id=turn.session_id,
                task_id=turn.session_id,
                turn_id=turn.turn_id,
                completed=completed,
                interrupted=interrupted,
                model=turn.model,
                platform=PLATFORM,
            )
        self.on_turn_end(result)

    def on_turn_end(self, result: Any) -> None:
        for hook in self._hooks.get("on_turn_end", []):
            self._call(hook, result)

    def run_command(self, name: str, raw_args: str) -> str | None:
        """Run a plugin's slash command (blocking: call it off the UI thread); an error is one line."""
        command = self._commands.get(name)
        if command is None:
            return f"No plugin command /{name}."
        if command.plugin in self._disabled:
            why = self._disabled[command.plugin]
            return f"/{name} failed ({command.plugin}): the plugin is disabled ({why})"
        outcome = self._contain_tool(
            command.plugin, f"command /{name}", lambda: call_hermes(command.handler, raw_args, accepts=None)
        )
        if outcome.error is not None:
            return f"/{name} failed ({command.plugin}): {describe_exception(outcome.error)}"
        out = outcome.value
        if out is None:
            return None
        return out if isinstance(out, str) else result_text(out)

    # ------------------------------------------------------------------ helpers

    def _tool_kwargs(self, call: ToolCall) -> dict[str, Any]:
        try:
            args = json.loads(call.arguments or "{}")
        except ValueError:
            args = {}
        turn = self._turn
        return {
            "tool_name": call.name,
            "args": args if isinstance(args, dict) else {},
            "task_id": turn.session_id,
            "session_id": turn.session_id,
            "tool_call_id": call.id,
            "turn_id": turn.turn_id,
            "api_request_id": "",
        }

    def _observe_block(self, call: ToolCall, block: Block) -> None:
        """Hermes tells its post_tool_call observers about a blocked call too."""
        kwargs = {
            **self._tool_kwargs(call),
            "result": json.dumps({"error": block.reason}),
            "duration_ms": 0,
            "status": "blocked",
            "error_type": "plugin_block",
            "error_message": block.reason,
            "middleware_trace": [],
        }
        for hook in self._hooks.get("hermes.post_tool_call", []):
            self._call(hook, **kwargs)

    def _note(self, plugin: str, what: str) -> None:
        for info in self._plugins:
            if info.name == plugin:
                info.note_unsupported(what)

    def _call(self, hook: Hook, *args: Any, **kwargs: Any) -> tuple[bool, Any]:
        """Run one hook contained: a fault (anything raised, or no return within `hook_timeout`) disables
        its plugin with one line."""
        if hook.plugin in self._disabled:
            return False, None  # disabled by an earlier hook of this very round

        def call() -> Any:
            return call_hermes(hook.fn, *args, accepts=hook.accepts, **kwargs)

        outcome = self.containment.run(hook.plugin, hook.name, call, timeout=self.hook_timeout)
        if outcome.ok:
            return True, outcome.value
        self.containment.log(hook.plugin, hook.name, outcome, timeout=self.hook_timeout)
        if outcome.error is not None:
            message = describe_exception(outcome.error)
        else:
            message = f"did not return within {self.hook_timeout:g} s (abandoned)"
        self.disable(hook.plugin, hook.name, message)
        return False, None

    def disable(self, plugin: str, where: str, message: str) -> None:
        """Take `plugin` out for the rest of this agent's life: its hooks are no longer called, its tools and
        commands answer that it is disabled. Said once, in one line."""
        with self._lock:
            if plugin in self._disabled:
                return
            self._disabled[plugin] = f"{message}; disabled"
            self._hooks = {
                key: [hook for hook in hooks if hook.plugin != plugin] for key, hooks in self._hooks.items()
            }
        for tool in self._tools.values():
            if tool.plugin == plugin:
                tool.disabled = f"plugin {plugin} is disabled ({message})"
        for info in self._plugins:
            if info.name == plugin:
                info.loaded = False
                info.error = f"{where}: {message}" if where else message
        log.info("plugin %s disabled after a fault in %s: %s", plugin, where, message)
        self._tell(plugin, where, f"{message}; plugin disabled")

    def _contain_tool(self, plugin: str, what: str, call: Callable[[], Any]) -> Outcome:
        """A plugin tool's handler (or its check), contained; its traceback logged. A tool that fails is the
        model's to handle (an error result), not a reason to disable the plugin."""
        timeout = self.hook_timeout if what.endswith("check") else None
        outcome = self.containment.run(plugin, what, call, timeout=timeout)
        if not outcome.ok:
            self.containment.log(plugin, what, outcome, timeout=timeout)
        return outcome

    def _report(self, hook: Hook, message: str) -> None:
        """A hook's wrong return, once per plugin and hook (the plugin stays: nothing failed)."""
        key = (hook.plugin, hook.name)
        with self._lock:
            first = key not in self._reported
            self._reported.add(key)
        if not first:
            log.debug("plugin %s hook %s: %s", hook.plugin, hook.name, message)
            return
        log.info("plugin %s hook %s: %s", hook.plugin, hook.name, message)
        self._tell(hook.plugin, hook.name, message)

    def _tell(self, plugin: str, where: str, message: str) -> None:
        if self.on_error is not None:
            try:
                self.on_error(plugin, where, message)
            except Exception:
                log.exception("plugin on_error callback failed")


def _find_register(obj: object) -> Callable[..., Any] | None:
    register: object = getattr(obj, "register", None)
    if isinstance(obj, ModuleType):
        return register if callable(register) else None
    if callable(register):
        return register
    if callable(obj):
        return obj
    return None


def _copy_result(result: ToolResult) -> ToolResult:
    return dataclasses.replace(result, data=dict(result.data))


def _wire(history: list[Message]) -> list[dict[str, Any]]:
    """The conversation as Hermes' hooks get it: OpenAI-shaped message dicts."""
    from agent.core.sanitize import sanitize_for_wire

    return sanitize_for_wire(list(history))

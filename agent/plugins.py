"""Plugins: discovery in `$HERMES_HOME/plugins/` and the `hermes_tui.plugins` entry-point group, and hooks.

A plugin is a Python file (`name.py`) or package (`name/__init__.py`) that exposes `register(ctx)`, where
`ctx.register_hook(hook_name, fn)` adds a hook; a module without `register` may simply define top-level
functions named after the hooks. The hooks:

- `pre_llm_call(session_id, user_message, history, is_first_turn, model) -> str | None`: extra context for
  this turn (called with keyword arguments; a hook may accept only the ones it needs, or `**kwargs`).
  Hermes' `{"context": "..."}` return shape is accepted too.
- `before_tool(call) -> ToolCall | Block | None`: a (modified) copy of the call, `Block(reason)` to refuse
  it, or None for "no change".
- `after_tool(call, result) -> ToolResult | None`: a (modified) result, or None for "no change".
- `on_turn_end(result) -> None`.

Hooks run in registration order (plugin directory files sorted by name, then entry points sorted by name;
within a plugin, in the order it registered them). A plugin that fails to import is listed with its error and
skipped. A hook that raises, or returns the wrong type, never breaks the caller: it counts as "no change",
is logged, and is reported once per plugin and hook through `on_error(plugin, hook, message)`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import importlib.util
import inspect
import logging
import sys
import threading
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from agent.messages import Message, ToolCall
from agent.tools.registry import ToolResult

log = logging.getLogger(__name__)

HOOK_NAMES: tuple[str, ...] = ("pre_llm_call", "before_tool", "after_tool", "on_turn_end")
ENTRY_POINT_GROUP = "hermes_tui.plugins"
MODULE_PREFIX = "hermes_tui_plugin_"

ErrorCallback = Callable[[str, str, str], None]


@dataclass(frozen=True)
class Block:
    """Returned by a `before_tool` hook to refuse a call; `plugin` is filled in by the manager."""

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
    name: str
    source: str  # a file/package path, or "entry point <module:attr>"
    loaded: bool
    error: str | None = None
    hooks: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        if self.loaded:
            return "loaded"
        return "failed" if self.error else "not loaded"


@dataclass
class _Hook:
    plugin: str
    name: str
    fn: Callable[..., Any]
    # For pre_llm_call: the keyword arguments the function accepts (None = all, it takes **kwargs).
    accepts: frozenset[str] | None = None


class PluginContext:
    """What `register(ctx)` receives."""

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


class PluginManager:
    def __init__(
        self,
        hermes_home: Path,
        *,
        entry_points: bool = True,
        on_error: ErrorCallback | None = None,
    ) -> None:
        self.hermes_home = Path(hermes_home)
        self.plugin_dir = self.hermes_home / "plugins"
        self.use_entry_points = entry_points
        self.on_error = on_error
        self._plugins: list[PluginInfo] = []
        self._hooks: dict[str, list[_Hook]] = {name: [] for name in HOOK_NAMES}
        self._reported: set[tuple[str, str]] = set()
        self._lock = threading.Lock()

    # ----------------------------------------------------------------- discovery

    @property
    def plugins(self) -> list[PluginInfo]:
        return list(self._plugins)

    def has_hooks(self, hook: str) -> bool:
        return bool(self._hooks.get(hook))

    def load(self) -> None:
        """(Re)discover and load every plugin. Never raises."""
        self._plugins = []
        self._hooks = {name: [] for name in HOOK_NAMES}
        with self._lock:
            self._reported.clear()
        seen: dict[str, str] = {}
        for name, path in self._discover_files():
            self._load_one(name, str(path), lambda n=name, p=path: self._import_file(n, p), seen)
        if self.use_entry_points:
            for ep in self._discover_entry_points():
                self._load_one(ep.name, f"entry point {ep.value}", ep.load, seen)

    def _discover_files(self) -> list[tuple[str, Path]]:
        try:
            entries = sorted(self.plugin_dir.iterdir(), key=lambda p: p.name)
        except OSError:
            return []
        found: list[tuple[str, Path]] = []
        for entry in entries:
            if entry.name.startswith((".", "_")):
                continue
            if entry.is_dir() and (entry / "__init__.py").is_file():
                found.append((entry.name, entry))
            elif entry.is_file() and entry.suffix == ".py":
                found.append((entry.stem, entry))
        return found

    def _discover_entry_points(self) -> list[importlib.metadata.EntryPoint]:
        try:
            eps = list(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))
        except Exception as exc:
            log.warning("could not read %s entry points: %s", ENTRY_POINT_GROUP, exc)
            return []
        return sorted(eps, key=lambda ep: ep.name)

    def _load_one(self, name: str, source: str, importer: Callable[[], Any], seen: dict[str, str]) -> None:
        if name in seen:
            self._plugins.append(
                PluginInfo(
                    name,
                    source,
                    False,
                    f"duplicate plugin name: '{name}' is already loaded from {seen[name]}",
                )
            )
            return
        seen[name] = source
        info = PluginInfo(name, source, False)
        self._plugins.append(info)
        try:
            obj = importer()
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            info.error = describe_exception(exc, near=source)
            log.warning("plugin %s failed to load: %s", name, info.error)
            return
        ctx = PluginContext(name, self.hermes_home)
        try:
            register = _find_register(obj)
            if register is not None:
                register(ctx)
            elif isinstance(obj, ModuleType):
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
            else:
                raise TypeError(
                    f"entry point must be a module or a register(ctx) callable, got {type(obj).__name__}"
                )
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            info.error = describe_exception(exc, near=source)
            log.warning("plugin %s failed to register: %s", name, info.error)
            return
        for hook, fn in ctx._hooks:
            self._hooks[hook].append(
                _Hook(name, hook, fn, _accepted_kwargs(fn) if hook == "pre_llm_call" else None)
            )
            if hook not in info.hooks:
                info.hooks.append(hook)
        info.loaded = True

    def _import_file(self, name: str, path: Path) -> ModuleType:
        """Import a plugin file/package under a unique module name: two `x.py` in two dirs never collide."""
        digest = hashlib.sha1(str(path.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:8]
        module_name = f"{MODULE_PREFIX}{_identifier(name)}_{digest}"
        if path.is_dir():
            spec = importlib.util.spec_from_file_location(
                module_name, path / "__init__.py", submodule_search_locations=[str(path)]
            )
        else:
            spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {path}")
        _forget_module(module_name)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module  # packages need it for their relative imports
        try:
            spec.loader.exec_module(module)
        except BaseException:
            _forget_module(module_name)
            raise
        return module

    # ----------------------------------------------------------------- hook runners

    def pre_llm_call(
        self,
        session_id: str,
        user_message: str,
        history: list[Message],
        is_first_turn: bool,
        model: str,
    ) -> str:
        """Context from every plugin for this turn: the non-empty returns joined with blank lines."""
        kwargs = {
            "session_id": session_id,
            "user_message": user_message,
            "history": history,
            "is_first_turn": is_first_turn,
            "model": model,
        }
        parts: list[str] = []
        for hook in self._hooks["pre_llm_call"]:
            args = kwargs if hook.accepts is None else {k: v for k, v in kwargs.items() if k in hook.accepts}
            ok, out = self._call(hook, **args)
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
        for hook in self._hooks["before_tool"]:
            ok, out = self._call(hook, dataclasses.replace(current))
            if not ok or out is None:
                continue
            if isinstance(out, Block):
                return dataclasses.replace(out, plugin=out.plugin or hook.plugin)
            if isinstance(out, ToolCall) and isinstance(out.name, str) and isinstance(out.arguments, str):
                current = dataclasses.replace(out, id=call.id)
                continue
            self._report(hook, f"returned {type(out).__name__}, expected ToolCall, Block or None (ignored)")
        return current

    def after_tool(self, call: ToolCall, result: ToolResult) -> ToolResult:
        """The result as the plugins leave it."""
        current = result
        for hook in self._hooks["after_tool"]:
            ok, out = self._call(hook, dataclasses.replace(call), _copy_result(current))
            if not ok or out is None:
                continue
            if isinstance(out, ToolResult) and isinstance(out.content, str):
                current = out
                continue
            self._report(hook, f"returned {type(out).__name__}, expected ToolResult or None (ignored)")
        return current

    def on_turn_end(self, result: Any) -> None:
        for hook in self._hooks["on_turn_end"]:
            self._call(hook, result)

    def _call(self, hook: _Hook, *args: Any, **kwargs: Any) -> tuple[bool, Any]:
        try:
            return True, hook.fn(*args, **kwargs)
        except Exception as exc:
            self._report(hook, describe_exception(exc), exc_info=True)
            return False, None

    def _report(self, hook: _Hook, message: str, *, exc_info: bool = False) -> None:
        key = (hook.plugin, hook.name)
        with self._lock:
            first = key not in self._reported
            self._reported.add(key)
        if not first:
            log.debug("plugin %s hook %s: %s", hook.plugin, hook.name, message)
            return
        log.warning("plugin %s hook %s: %s", hook.plugin, hook.name, message, exc_info=exc_info)
        if self.on_error is not None:
            try:
                self.on_error(hook.plugin, hook.name, message)
            except Exception:
                log.exception("plugin on_error callback failed")


# --------------------------------------------------------------------- helpers


def describe_exception(exc: BaseException, *, near: str | None = None) -> str:
    """One line: `ExceptionType: message (file:line)`, the location being the failing line in the plugin."""
    message = " ".join(str(exc).split())
    if isinstance(exc, SyntaxError):
        message = " ".join((exc.msg or "").split())
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    where = _location(exc, near)
    return f"{text} ({where})" if where else text


def _location(exc: BaseException, near: str | None) -> str | None:
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{exc.filename}:{exc.lineno}" if exc.lineno else exc.filename
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
    frames = [f for f in frames if not f.filename.startswith("<frozen")]
    if not frames:
        return None
    if near and not near.startswith("entry point"):
        root = str(Path(near).resolve())
        inside = [f for f in frames if str(Path(f.filename).resolve()).startswith(root)]
        if inside:
            frames = inside
    else:
        own = str(Path(__file__).resolve())
        outside = [f for f in frames if str(Path(f.filename).resolve()) != own]
        if outside:
            frames = outside
    last = frames[-1]
    return f"{last.filename}:{last.lineno}"


def _find_register(obj: Any) -> Callable[[PluginContext], Any] | None:
    if isinstance(obj, ModuleType):
        fn = getattr(obj, "register", None)
        return fn if callable(fn) else None
    if callable(getattr(obj, "register", None)):
        return obj.register
    if callable(obj):
        return obj
    return None


def _accepted_kwargs(fn: Callable[..., Any]) -> frozenset[str] | None:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    return frozenset(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def _copy_result(result: ToolResult) -> ToolResult:
    return dataclasses.replace(result, data=dict(result.data))


def _identifier(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name) or "plugin"


def _forget_module(module_name: str) -> None:
    for key in [k for k in sys.modules if k == module_name or k.startswith(module_name + ".")]:
        sys.modules.pop(key, None)


def format_plugin_list(plugins: Iterable[PluginInfo], *, plugin_dir: Path | None = None) -> str:
    """A plain-text table for `hermes-tui plugins` and `/plugins`."""
    plugins = list(plugins)
    if not plugins:
        where = f" Put a Python file with register(ctx) in {plugin_dir}." if plugin_dir else ""
        return "No plugins." + where
    loaded = sum(1 for p in plugins if p.loaded)
    failed = sum(1 for p in plugins if p.error)
    head = f"{len(plugins)} plugin{'s' if len(plugins) != 1 else ''}: {loaded} loaded"
    if failed:
        head += f", {failed} failed"
    lines = [head]
    width = max(len(p.name) for p in plugins)
    for p in plugins:
        mark = "✓" if p.loaded else "✗"
        lines.append(f"{mark} {p.name.ljust(width)}  {p.status}  {p.source}")
        if p.loaded:
            lines.append(f"  {' ' * width}  hooks: {', '.join(p.hooks) or '(none)'}")
        if p.error:
            lines.append(f"  {' ' * width}  error: {p.error}")
    return "\n".join(lines)


__all__ = [
    "ENTRY_POINT_GROUP",
    "HOOK_NAMES",
    "Block",
    "PluginContext",
    "PluginInfo",
    "PluginManager",
    "describe_exception",
    "format_plugin_list",
]

"""Toolsets: which tools the model is offered, by Hermes' toolset names, and why one is off.

Every `Tool` declares its toolset (`terminal`, `file`, `memory`, ...). This module is the one place that turns
that into the tool list of a request:

- `ToolsetCatalog` (one per process, `CATALOG`) holds the toolset definitions (description, bundle members,
  a requirement check that says why a toolset cannot be used) and the tools of *dynamic* toolsets, those
  registered at runtime (an MCP server that connects becomes `mcp-<server>`). Registering or unregistering
  changes the next request of every session.
- `SessionToolsets` (one per session) resolves the configuration with Hermes' semantics (`toolsets:` picks
  toolsets or bundles such as `hermes-cli`, `all`/`*` picks everything, `agent.disabled_toolsets` subtracts;
  dynamic toolsets are on unless disabled, like Hermes' MCP servers), applies the session's `/tools`
  switches, and answers the request's schemas and the statuses `/tools` shows.

The system prompt lists the tools of the session's first request only: it is built once per session so
provider prompt caches keep hitting. A change later reaches the tool list of the next request at once.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from agent.config.settings import Settings
from agent.toolkit.registry import Tool, ToolRegistry

UNGROUPED = "other"  # tools that declare no toolset (tests, plugins): offered unless switched off
ALL_NAMES = frozenset({"all", "*"})

Requirement = Callable[[Settings], "str | None"]


@dataclass(frozen=True)
class Toolset:
    """A named group of tools. `includes` makes it a bundle of other toolsets (Hermes' `hermes-cli`).

    `requires(settings)` returns None when the toolset can be used, else the reason it cannot ("no search
    backend configured"): `/tools` shows it and the toolset stays off whatever the configuration says.
    `on_by_default` offers it even when `toolsets:` does not name it (dynamic toolsets such as MCP servers).
    `instructions` is what its provider tells the model about using it (an MCP server's `instructions`): a
    session whose prompt is built while the toolset is on includes them.
    """

    name: str
    description: str
    includes: tuple[str, ...] = ()
    requires: Requirement | None = None
    on_by_default: bool = False
    instructions: str = ""

    @property
    def is_bundle(self) -> bool:
        return bool(self.includes)


@dataclass(frozen=True)
class ToolsetStatus:
    """One row of `/tools`: whether the next request offers this toolset, and why (not)."""

    name: str
    description: str
    enabled: bool
    available: bool
    reason: str  # why it is off, unavailable, or on by a session switch; "" when on by configuration
    tools: tuple[str, ...]
    dynamic: bool = False
    session: bool | None = None  # the /tools switch for this session, None when the configuration decides


def _memory_requirement(settings: Settings) -> str | None:
    if settings.memory_enabled or settings.user_profile_enabled:
        return None
    return "memory.memory_enabled and memory.user_profile_enabled are off in config.yaml"


BROWSER_DESCRIPTION = "Drive a headless Chromium: navigate, read, click, type"

# Hermes' core toolsets (toolsets.py). Those without tools here yet are listed so the configuration's
# names resolve and a module adding the tools later (web, vision, delegation) only declares `toolset=`.
BUILTIN_TOOLSETS: tuple[Toolset, ...] = (
    Toolset("terminal", "Run shell commands in the working directory"),
    Toolset("file", "Read, write, patch and search files"),
    Toolset("web", "Search the web and extract pages"),
    Toolset("vision", "Analyse images"),
    Toolset("skills", "List, read, create and edit skills (procedural memory)"),
    Toolset("memory", "Notes and a user profile that persist across sessions", requires=_memory_requirement),
    Toolset("todo", "A task list for multi-step work"),
    Toolset("clarify", "Ask the user a question"),
    Toolset("session_search", "Search and recall past sessions"),
    Toolset("code_execution", "Run scripts that call tools"),
    Toolset("delegation", "Hand subtasks to sub-agents"),
    Toolset("cronjob", "Schedule prompts to run later as their own sessions"),
    Toolset("browser", BROWSER_DESCRIPTION),  # its requirement: agent.browser.tools defines it
)
CORE_BUNDLE = Toolset(
    "hermes-cli",
    "Every built-in toolset (Hermes' default)",
    includes=tuple(t.name for t in BUILTIN_TOOLSETS),
)


class ToolsetCatalog:
    """The toolsets that exist and the tools of dynamic ones. Thread-safe; `generation` counts changes."""

    def __init__(self, definitions: Iterable[Toolset] = ()) -> None:
        self._lock = threading.Lock()
        self._definitions: dict[str, Toolset] = {}
        self._dynamic: dict[str, tuple[Tool, ...]] = {}
        self._changes = 0
        for toolset in definitions:
            self._definitions[toolset.name] = toolset

    @property
    def generation(self) -> int:
        """Changes so far: a session re-reads the dynamic tools when it moved."""
        return self._changes

    def define(self, toolset: Toolset) -> None:
        """Add or replace a definition (a module giving a built-in toolset its requirement check)."""
        with self._lock:
            self._definitions[toolset.name] = toolset
            self._changes += 1

    def register(self, toolset: Toolset, tools: Iterable[Tool] = ()) -> None:
        """A dynamic toolset and its tools: the next request of every session can offer them."""
        members = tuple(
            t if t.toolset == toolset.name else dataclasses.replace(t, toolset=toolset.name) for t in tools
        )
        with self._lock:
            self._definitions[toolset.name] = toolset
            self._dynamic[toolset.name] = members
            self._changes += 1

    def unregister(self, name: str) -> None:
        """Withdraw a dynamic toolset (the MCP server disconnected); its tools stop being offered."""
        with self._lock:
            if self._dynamic.pop(name, None) is not None:
                self._definitions.pop(name, None)
                self._changes += 1

    def get(self, name: str) -> Toolset | None:
        with self._lock:
            return self._definitions.get(name)

    def definitions(self) -> dict[str, Toolset]:
        with self._lock:
            return dict(self._definitions)

    def dynamic(self) -> dict[str, tuple[Tool, ...]]:
        with self._lock:
            return dict(self._dynamic)


CATALOG = ToolsetCatalog([*BUILTIN_TOOLSETS, CORE_BUNDLE])


class LayeredCatalog(ToolsetCatalog):
    """One session's own dynamic toolsets over the process's catalog: an editor's MCP servers
    (`hermes-tui acp`, `session/new` with `mcpServers`) are offered to that session only, while the
    process's (the user's configured servers) stay every session's. Registering here changes nothing
    for another session; a change in `parent` reaches this one too (`generation` adds both)."""

    def __init__(self, parent: ToolsetCatalog = CATALOG) -> None:
        super().__init__()
        self.parent = parent

    @property
    def generation(self) -> int:
        return self._changes + self.parent.generation

    def get(self, name: str) -> Toolset | None:
        return super().get(name) or self.parent.get(name)

    def definitions(self) -> dict[str, Toolset]:
        return {**self.parent.definitions(), **super().definitions()}

    def dynamic(self) -> dict[str, tuple[Tool, ...]]:
        return {**self.parent.dynamic(), **super().dynamic()}


def register_toolset(toolset: Toolset, tools: Iterable[Tool] = ()) -> None:
    """Register a dynamic toolset in the process catalog (see `ToolsetCatalog.register`)."""
    CATALOG.register(toolset, tools)


def unregister_toolset(name: str) -> None:
    CATALOG.unregister(name)


class SessionToolsets:
    """One session's view: configuration + `/tools` switches -> the tools of the next request."""

    def __init__(
        self,
        registry: ToolRegistry,
        settings: Settings,
        *,
        catalog: ToolsetCatalog = CATALOG,
        on_change: Callable[[str], None] | None = None,
    ) -> None:
        self.registry = registry
        self.settings = settings
        self.catalog = catalog
        self.on_change = on_change
        self._lock = threading.Lock()
        self._session: dict[str, bool] = {}
        self._synced: set[str] = set()  # dynamic tool names put into the registry
        self._synced_generation = -1
        self._sync_lock = threading.Lock()
        self._seen_generation = -1
        self._last_offered: tuple[str, ...] | None = None
        registry.refusal = self.refusal
        registry.offered = self.active_names

    # ------------------------------------------------------------------ resolution

    def _sync_dynamic(self) -> None:
        """Dynamic tools enter the registry (so the executor can run them); withdrawn ones leave it."""
        generation = self.catalog.generation
        if generation == self._synced_generation:
            return
        with self._sync_lock:
            if generation != self._synced_generation:
                self._sync_tools()
                self._synced_generation = generation

    def _sync_tools(self) -> None:
        wanted: dict[str, Tool] = {}
        for tools in self.catalog.dynamic().values():
            for tool in tools:
                existing = self.registry.get(tool.name)
                if existing is None or tool.name in self._synced:
                    wanted[tool.name] = tool
        for name in self._synced - set(wanted):
            self.registry.unregister(name)
        for tool in wanted.values():
            self.registry.register(tool)
        self._synced = set(wanted)

    def _groups(self) -> dict[str, list[Tool]]:
        groups: dict[str, list[Tool]] = {}
        for tool in self.registry.tools():
            groups.setdefault(tool.toolset or UNGROUPED, []).append(tool)
        return groups

    def _expand(self, names: Sequence[str], definitions: dict[str, Toolset], leaves: set[str]) -> set[str]:
        out: set[str] = set()
        stack = list(names)
        seen: set[str] = set()
        while stack:
            name = str(stack.pop())
            if name in seen:
                continue
            seen.add(name)
            if name in ALL_NAMES:
                out |= leaves
                continue
            definition = definitions.get(name)
            if definition is not None and definition.is_bundle:
                stack.extend(definition.includes)
            else:
                out.add(name)
        return out

    def _resolve(self) -> tuple[list[ToolsetStatus], dict[str, list[Tool]]]:
        self._sync_dynamic()
        definitions = self.catalog.definitions()
        dynamic = set(self.catalog.dynamic())
        groups = self._groups()
        leaves = set(groups)
        selected = self._expand(self.settings.toolsets, definitions, leaves)
        # A bundle in disabled_toolsets takes nothing away (Hermes keeps the core toolsets in that case).
        disabled_names = [
            n
            for n in self.settings.disabled_toolsets
            if not (definitions.get(n) and definitions[n].is_bundle)
        ]
        disabled = self._expand(disabled_names, definitions, leaves)
        with self._lock:
            session = dict(self._session)
        # Each requirement asked once per resolve: a toolset's tools share its check (the browser's ten
        # each looked for Playwright and Chromium on every model request).
        answers: dict[Requirement, str | None] = {}

        def checked(requirement: Requirement) -> str | None:
            if requirement not in answers:
                answers[requirement] = requirement(self.settings)
            return answers[requirement]

        statuses: list[ToolsetStatus] = []
        for name in sorted(groups, key=lambda n: (n in dynamic, n == UNGROUPED, n)):
            definition = definitions.get(name) or Toolset(
                name, f"{name} tools", on_by_default=name == UNGROUPED
            )
            unavailable = checked(definition.requires) if definition.requires else None
            names = tuple(t.name for t in groups[name])
            blocked = {t.name: why for t in groups[name] if t.requires and (why := checked(t.requires))}
            if blocked:
                groups[name] = [t for t in groups[name] if t.name not in blocked]
                unavailable = unavailable or (next(iter(blocked.values())) if not groups[name] else None)
            switch = session.get(name)
            if unavailable:
                enabled, reason = False, f"unavailable: {unavailable}"
            elif switch is not None:
                enabled = switch
                reason = f"{'on' if switch else 'off'} for this session (/tools)"
            elif name in disabled:
                enabled, reason = False, "off: agent.disabled_toolsets in config.yaml"
            elif name in selected or definition.on_by_default or name in dynamic:
                enabled, reason = True, ""
            else:
                enabled, reason = False, "off: not in toolsets in config.yaml"
            if blocked and not unavailable:
                notes = [f"{tool} unavailable: {why}" for tool, why in blocked.items()]
                reason = "; ".join([reason, *notes] if reason else notes)
            statuses.append(
                ToolsetStatus(
                    name=name,
                    description=definition.description,
                    enabled=enabled,
                    available=not unavailable,
                    reason=reason,
                    tools=names,
                    dynamic=name in dynamic,
                    session=switch,
                )
            )
        return statuses, groups

    # ------------------------------------------------------------------ queries

    def statuses(self) -> list[ToolsetStatus]:
        return self._resolve()[0]

    def status(self, name: str) -> ToolsetStatus | None:
        return next((s for s in self.statuses() if s.name == name), None)

    def active_tools(self) -> list[Tool]:
        statuses, groups = self._resolve()
        return [tool for s in statuses if s.enabled for tool in groups[s.name]]

    def active_names(self) -> set[str]:
        return {t.name for t in self.active_tools()}

    def active_instructions(self) -> list[tuple[str, str]]:
        """(toolset, instructions) of every enabled toolset whose provider gave some, in status order."""
        definitions = self.catalog.definitions()
        out = []
        for status in self.statuses():
            definition = definitions.get(status.name)
            if status.enabled and definition is not None and definition.instructions.strip():
                out.append((status.name, definition.instructions))
        return out

    def schemas(self) -> list[dict[str, Any]]:
        """The tool list of the next request. A dynamic change since the last one is announced once."""
        generation = self.catalog.generation
        tools = sorted(self.active_tools(), key=lambda t: t.name)
        offered = tuple(t.name for t in tools)
        if (
            self.on_change is not None
            and self._last_offered is not None
            and generation != self._seen_generation
            and offered != self._last_offered
        ):
            added = sorted(set(offered) - set(self._last_offered))
            removed = sorted(set(self._last_offered) - set(offered))
            change = ", ".join([*(f"+{n}" for n in added), *(f"-{n}" for n in removed)])
            self.on_change(
                f"Tools changed from this request on ({change}). The system prompt keeps the tool list this "
                "session started with (prompt caching); a new session lists the current tools."
            )
        self._seen_generation = generation
        self._last_offered = offered
        return [t.schema() for t in tools]

    def refusal(self, tool_name: str) -> str | None:
        """Why a known tool must not run now (the model called a tool whose toolset is off), or None."""
        tool = self.registry.get(tool_name)
        if tool is None:
            return None
        name = tool.toolset or UNGROUPED
        why = tool.requires(self.settings) if tool.requires else None
        if why:
            return f"the {tool_name} tool is not available: {why}."
        status = self.status(name)
        if status is None or status.enabled:
            return None
        return f"the {tool_name} tool is not available in this session ({name} toolset {status.reason})."

    def problems(self) -> list[str]:
        """Configured names that match no toolset (a typo, or a dynamic toolset not registered yet)."""
        known = set(self.catalog.definitions()) | set(self._groups()) | ALL_NAMES
        out = []
        for key, names in (
            ("toolsets", self.settings.toolsets),
            ("agent.disabled_toolsets", self.settings.disabled_toolsets),
        ):
            out += [f"{key}: unknown toolset {n!r}" for n in names if n not in known]
        return out

    # ------------------------------------------------------------------ session switches

    def set_enabled(self, name: str, on: bool) -> ToolsetStatus:
        """Switch a toolset for this session; the next request's tool list follows. KeyError if unknown."""
        if name not in self._groups():
            raise KeyError(name)
        with self._lock:
            self._session[name] = on
        status = self.status(name)
        assert status is not None
        return status

    def toggle(self, name: str) -> ToolsetStatus:
        current = self.status(name)
        if current is None:
            raise KeyError(name)
        return self.set_enabled(name, not current.enabled)

    def reset(self, name: str) -> None:
        with self._lock:
            self._session.pop(name, None)


__all__ = [
    "BUILTIN_TOOLSETS",
    "CATALOG",
    "CORE_BUNDLE",
    "LayeredCatalog",
    "SessionToolsets",
    "Toolset",
    "ToolsetCatalog",
    "ToolsetStatus",
    "register_toolset",
    "unregister_toolset",
]

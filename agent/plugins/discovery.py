"""Where plugins come from, and which of them may load.

- Our own: `$HERMES_HOME/plugins/<name>.py` or `<name>/__init__.py` (no `plugin.yaml`), and the
  `hermes_tui.plugins` entry points. They load unless `plugins.disabled` names them.
- Hermes Agent's: a directory with `plugin.yaml` and `__init__.py` in `$HERMES_HOME/plugins/` (flat, or one
  category level deeper: `plugins/<category>/<name>/`, key `<category>/<name>`), in `./.hermes/plugins/`
  when `HERMES_ENABLE_PROJECT_PLUGINS` is set, and the `hermes_agent.plugins` entry points. As in Hermes
  they are opt-in: only those `plugins.enabled` names load, `plugins.disabled` always wins, and a later
  source replaces an earlier one of the same key (user < project < entry point).

Nothing is imported here: each `Found` carries a loader the manager calls.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.metadata
import importlib.util
import logging
import os
import sys
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.config.yaml_files import YAML_ERRORS, load_yaml
from agent.core.bounded_files import MAX_CONFIG_BYTES, read_head, read_text
from agent.plugins.base import ENTRY_POINT_GROUP, HERMES_ENTRY_POINT_GROUP, Api

__all__ = ["Found", "discover", "project_plugins_enabled", "why_off"]

log = logging.getLogger(__name__)

MODULE_PREFIX = "hermes_tui_plugin_"
HERMES_NAMESPACE = "hermes_plugins"  # Hermes imports a directory plugin as hermes_plugins.<slug>
_TRUE = frozenset({"1", "true", "yes", "on"})


@dataclass
class Found:
    """A plugin found on disk or as an entry point, not imported yet."""

    name: str  # the key plugins.enabled / plugins.disabled match (Hermes: path-derived)
    source: str
    api: Api
    load: Callable[[], Any]
    manifest: dict[str, Any] = field(default_factory=dict)
    kind: str = "standalone"  # Hermes' plugin kinds: standalone, backend, exclusive, platform, model-provider
    bare_name: str = ""  # the manifest's `name` (Hermes matches the config on it too)


def project_plugins_enabled(env: Mapping[str, str]) -> bool:
    return env.get("HERMES_ENABLE_PROJECT_PLUGINS", "").strip().lower() in _TRUE


def discover(
    hermes_home: Path, *, cwd: Path | None, env: Mapping[str, str], entry_points: bool
) -> list[Found]:
    """Every plugin, in load order: ours from the plugin directory, Hermes' directory plugins (user, then
    project), then entry points (ours, then Hermes')."""
    plugin_dir = hermes_home / "plugins"
    found = list(_native_files(plugin_dir))
    hermes: dict[str, Found] = {}
    for entry in _hermes_dirs(plugin_dir, "user"):
        hermes[entry.name] = entry
    if cwd is not None and project_plugins_enabled(env):
        for entry in _hermes_dirs(cwd / ".hermes" / "plugins", "project"):
            hermes[entry.name] = entry  # a project plugin replaces a user one of the same key
    if entry_points:
        found += _entry_points(ENTRY_POINT_GROUP, "hermes-tui")
        for entry in _entry_points(HERMES_ENTRY_POINT_GROUP, "hermes"):
            hermes[entry.name] = entry
    return found + list(hermes.values())


def why_off(found: Found, enabled: Iterable[str] | None, disabled: Iterable[str]) -> str | None:
    """Why `found` must not load (one line), or None: Hermes' rules for its plugins, `disabled` for all."""
    names = {found.name, found.bare_name} - {""}
    if names & set(disabled):
        return "disabled in config.yaml (plugins.disabled)"
    if found.api != "hermes":
        return None
    if enabled is None or not names & set(enabled):
        return (
            f"not enabled: add '{found.name}' to plugins.enabled in config.yaml (Hermes plugins are opt-in)"
        )
    return None


# --------------------------------------------------------------------------------------------- our own


def _native_files(plugin_dir: Path) -> Iterable[Found]:
    try:
        entries = sorted(plugin_dir.iterdir(), key=lambda p: p.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith((".", "_")):
            continue
        if entry.is_dir() and (entry / "__init__.py").is_file() and not _manifest_file(entry):
            yield Found(entry.name, str(entry), "hermes-tui", _file_loader(entry.name, entry))
        elif entry.is_file() and entry.suffix == ".py":
            yield Found(entry.stem, str(entry), "hermes-tui", _file_loader(entry.stem, entry))


def _file_loader(name: str, path: Path) -> Callable[[], types.ModuleType]:
    def load() -> types.ModuleType:
        """Import under a unique module name: two `x.py` in two directories never collide."""
        digest = hashlib.sha1(str(path.resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:8]
        module_name = f"{MODULE_PREFIX}{_identifier(name)}_{digest}"
        init = path / "__init__.py" if path.is_dir() else path
        return _exec_module(module_name, init, [str(path)] if path.is_dir() else None)

    return load


# --------------------------------------------------------------------------------------------- Hermes'


def _manifest_file(directory: Path) -> Path | None:
    for name in ("plugin.yaml", "plugin.yml"):
        if (directory / name).is_file():
            return directory / name
    return None


def _hermes_dirs(root: Path, source: str, prefix: str = "", depth: int = 0) -> Iterable[Found]:
    try:
        children = sorted(child for child in root.iterdir() if child.is_dir())
    except OSError:
        return
    for child in children:
        if child.name.startswith((".", "_")):
            continue
        manifest_file = _manifest_file(child)
        if manifest_file is None:
            if depth == 0 and not (child / "__init__.py").is_file():  # a category folder
                yield from _hermes_dirs(child, source, child.name, 1)
            continue
        yield _hermes_found(child, manifest_file, source, prefix)


_UNREADABLE: tuple[type[BaseException], ...] = (OSError, *YAML_ERRORS)


def _hermes_found(directory: Path, manifest_file: Path, source: str, prefix: str) -> Found:
    try:
        data = load_yaml(read_text(manifest_file, limit=MAX_CONFIG_BYTES, errors="strict")) or {}
        problem = None if isinstance(data, dict) else "plugin.yaml is not a mapping"
    except _UNREADABLE as exc:
        data, problem = {}, f"plugin.yaml cannot be read: {' '.join(str(exc).split())}"
    manifest: dict[str, Any] = data if isinstance(data, dict) else {}
    bare = str(manifest.get("name") or directory.name)
    key = f"{prefix}/{directory.name}" if prefix else bare
    kind = str(manifest.get("kind") or "standalone").strip().lower()
    init = directory / "__init__.py"
    if kind == "standalone" and "kind" not in manifest and init.is_file():
        try:
            head = read_head(init, limit=8192)[0].decode("utf-8", "replace")
        except OSError:
            head = ""
        if "register_memory_provider" in head or "MemoryProvider" in head:
            kind = "exclusive"  # Hermes routes these to its memory-provider discovery
        elif "register_provider" in head and "ProviderProfile" in head:
            kind = "model-provider"

    def load() -> types.ModuleType:
        if problem:
            raise ValueError(problem)
        if not init.is_file():
            raise FileNotFoundError(f"No __init__.py in {directory}")
        if HERMES_NAMESPACE not in sys.modules:
            namespace = types.ModuleType(HERMES_NAMESPACE)
            namespace.__path__ = []
            sys.modules[HERMES_NAMESPACE] = namespace
        slug = key.replace("/", "__").replace("-", "_")
        return _exec_module(f"{HERMES_NAMESPACE}.{slug}", init, [str(directory)])

    return Found(key, f"{directory} ({source})", "hermes", load, manifest, kind, bare)


# --------------------------------------------------------------------------------------------- entry points


def _entry_points(group: str, api: Api) -> list[Found]:
    try:
        eps = _installed_entry_points(group)
    except Exception as exc:
        log.debug("could not read %s entry points: %s", group, exc)
        return []
    return [
        Found(ep.name, f"entry point {ep.value}", api, ep.load, bare_name=ep.name)
        for ep in sorted(eps, key=lambda ep: ep.name)
    ]


@dataclass(frozen=True)
class _Scan:
    paths: tuple[tuple[str, int], ...]
    groups: dict[str, tuple[importlib.metadata.EntryPoint, ...]]


_last_scan: _Scan | None = None


def _installed_entry_points(group: str) -> tuple[importlib.metadata.EntryPoint, ...]:
    """Both plugin groups from one read of every installed distribution's metadata, kept while `sys.path`
    and its directories' mtimes stay as they were. The read is ~150 files in a typical environment, and
    every session (each `/new`, each ACP session) discovers plugins; installing or removing a distribution
    adds or removes its `.dist-info` directory, which changes the mtime of the path entry holding it."""
    global _last_scan
    paths = _path_state()
    scan = _last_scan
    if scan is None or scan.paths != paths:
        everything = importlib.metadata.entry_points()
        groups = {
            name: tuple(everything.select(group=name))
            for name in (ENTRY_POINT_GROUP, HERMES_ENTRY_POINT_GROUP)
        }
        scan = _last_scan = _Scan(paths, groups)
    return scan.groups.get(group, ())


def _path_state() -> tuple[tuple[str, int], ...]:
    state = []
    for entry in sys.path:
        try:
            state.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            state.append((entry, -1))
    return tuple(state)


# --------------------------------------------------------------------------------------------- importing


class _SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """A plugin's entry file compiled from its source on every load, never from cached bytecode: a plugin is
    edited while the app runs, and a `.pyc` is checked by the file's size and whole-second mtime, so an edit
    of the same size within the second of the last load reloaded the old code."""

    def get_code(self, fullname: str) -> types.CodeType:
        return compile(self.get_data(self.path), self.path, "exec", dont_inherit=True)


def _exec_module(module_name: str, init: Path, search: list[str] | None) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(
        module_name, init, loader=_SourceOnlyLoader(module_name, str(init)), submodule_search_locations=search
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {init}")
    forget_module(module_name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # packages need it for their relative imports
    try:
        spec.loader.exec_module(module)
    except BaseException:
        forget_module(module_name)
        raise
    return module


def forget_module(module_name: str) -> None:
    # A copy of the names first: other threads import while a plugin loads (the app's SDK prewarm), and
    # iterating `sys.modules` itself then raised "dictionary changed size during iteration".
    for key in [k for k in list(sys.modules) if k == module_name or k.startswith(module_name + ".")]:
        sys.modules.pop(key, None)


def _identifier(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name) or "plugin"

"""How plugins and their failures are told to the user: one line per error, one table for `/plugins` and
`hermes-tui plugins`."""

from __future__ import annotations

import traceback
from collections.abc import Iterable
from pathlib import Path

from agent.plugins.base import PluginInfo

__all__ = ["describe_exception", "fault_line", "format_plugin_list"]

_PACKAGE = str(Path(__file__).resolve().parent)


def describe_exception(exc: BaseException, *, near: str | None = None) -> str:
    """One line: `ExceptionType: message (file:line)`, the location being the failing line in the plugin."""
    message = " ".join(str(exc).split())
    if isinstance(exc, SyntaxError):
        message = " ".join((exc.msg or "").split())
    text = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    where = _location(exc, near)
    return f"{text} ({where})" if where else text


def fault_line(plugin: str, where: str, message: str) -> str:
    """The one line a plugin's fault is told with: `where` is "load", a hook's name, or "" (the start's
    own report, such as a plugin that ended the app last time)."""
    if where == "load":
        return f"Plugin {plugin} failed to load: {message}"
    if where:
        return f"Plugin {plugin} failed in {where}: {message}"
    return f"Plugin {plugin}: {message}"


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
        outside = [f for f in frames if not str(Path(f.filename).resolve()).startswith(_PACKAGE)]
        if outside:
            frames = outside
    last = frames[-1]
    return f"{last.filename}:{last.lineno}"


def format_plugin_list(plugins: Iterable[PluginInfo], *, plugin_dir: Path | None = None) -> str:
    """A plain-text table for `hermes-tui plugins` and `/plugins`: each plugin once, with its error, what
    it added, and what it asked for that is not supported (with the reason)."""
    plugins = list(plugins)
    if not plugins:
        where = (
            f" Put a Python file with register(ctx), or a Hermes plugin folder (plugin.yaml and __init__.py),"
            f" in {plugin_dir}."
            if plugin_dir
            else ""
        )
        return "No plugins." + where
    loaded = sum(1 for p in plugins if p.loaded)
    failed = sum(1 for p in plugins if p.failed)
    off = sum(1 for p in plugins if p.status == "off")
    head = f"{len(plugins)} plugin{'s' if len(plugins) != 1 else ''}: {loaded} loaded"
    if failed:
        head += f", {failed} failed"
    if off:
        head += f", {off} off"
    lines = [head]
    width = max(len(p.name) for p in plugins)
    pad = "  " + " " * width + "  "
    for p in plugins:
        mark = "✓" if p.loaded else "✗" if p.failed else "○"
        api = " (Hermes plugin)" if p.api == "hermes" else ""
        lines.append(f"{mark} {p.name.ljust(width)}  {p.status}  {p.source}{api}")
        if p.loaded:
            lines.append(f"{pad}hooks: {', '.join(p.hooks) or '(none)'}")
            if p.tools:
                lines.append(f"{pad}tools: {', '.join(p.tools)}")
            if p.commands:
                lines.append(f"{pad}commands: {', '.join('/' + c for c in p.commands)}")
        if p.off:
            lines.append(f"{pad}{p.off}")
        if p.error:
            lines.append(f"{pad}error: {p.error}")
        for what in p.unsupported:
            lines.append(f"{pad}not supported: {what}")
    return "\n".join(lines)

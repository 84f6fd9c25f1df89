"""The chat's tool icons: a frozen value made from the defaults, the session's plugins and the theme.

Panels get the table when they are made (the transcript hands it to them), so a theme or a plugin changes
one chat's icons, never a class attribute shared by the whole process. Precedence, as before: a theme's
icon wins over a default, and a default over a plugin's (a plugin names its own new tools). A theme
change keeps the plugins' icons (before, it dropped them until the next session).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from widgets.transcript.entries.tool_call import DEFAULT_TOOL_ICONS

__all__ = ["ToolIcons"]

_NONE: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True)
class ToolIcons:
    """Where the icons come from; `table` is what panels draw with."""

    theme: Mapping[str, str] = field(default_factory=lambda: _NONE)
    plugins: Mapping[str, str] = field(default_factory=lambda: _NONE)

    def table(self) -> Mapping[str, str]:
        """Plugins' icons under the defaults under the theme's (read-only)."""
        return MappingProxyType({**self.plugins, **DEFAULT_TOOL_ICONS, **self.theme})

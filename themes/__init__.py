"""Themes: Hermes-style skins as YAML files (built in and the user's), loaded, validated and hot-reloaded.

- `themes.model`: `ThemeSpec`, one theme file validated; `to_textual_theme()`.
- `themes.loader`: `load_theme_file`, `builtin_themes`, `load_all`, `ThemeError` (file, line, key, message).
- `themes.watcher`: `ThemeWatcher`, a file watcher thread for the theme directories.
- `themes.apply`: `ThemeManager` (register, apply, reload, persist) and the `ThemeFlavourChanged` message.

Importing this package is cheap: it does not import Textual's app machinery or watchfiles.
"""

from __future__ import annotations

from themes.loader import ThemeError, builtin_themes, load_all, load_theme_file, user_theme_dirs
from themes.model import ThemeSpec

__all__ = ["ThemeError", "ThemeSpec", "builtin_themes", "load_all", "load_theme_file", "user_theme_dirs"]

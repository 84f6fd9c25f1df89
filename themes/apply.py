"""`ThemeManager`: registers the themes with the app, applies one, reloads edited files, saves the choice.

Applying a theme does two things:

- colours: `app.theme = name` (Textual regenerates every CSS variable from the theme's base colours);
- flavour: `app.theme_spec` is set to the `ThemeSpec` and a `ThemeFlavourChanged(spec)` message is posted to
  every screen on the stack, so screens can push the spinner faces/verbs, the prompt symbol and the tool
  icons into their widgets. Widgets composed later read `app.theme_spec` directly. `app.theme_changed_signal`
  is published on every apply and reload too, also when only the flavour changed.

All methods run on the UI thread, except the watcher callback, which hops there with `app.call_later`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.app import App
from textual.message import Message

from agent.api import SettingNotSaved, save_setting
from themes.loader import (
    ThemeError,
    builtin_themes,
    is_theme_file,
    load_all_sourced,
    load_theme_file,
    user_theme_dirs,
)
from themes.model import ThemeSpec

__all__ = ["DEFAULT_THEME", "ThemeFlavourChanged", "ThemeManager"]

log = logging.getLogger(__name__)

DEFAULT_THEME = "default"


class ThemeFlavourChanged(Message, bubble=False):
    """The active theme's flavour (spinner, prompt symbol, tool icons, agent name) changed.

    Posted to each screen on the app's screen stack; it does not bubble. Handle it in a screen with
    `on_theme_flavour_changed(self, message)` and forward `message.spec` to the widgets.
    """

    def __init__(self, spec: ThemeSpec) -> None:
        super().__init__()
        self.spec = spec


class ThemeManager:
    """Owns the app's themes: built-in ones and the user's, by name.

    `hermes_home` locates the user theme directories (`skins/`, `tui/themes/`); `persist_path` is the file
    `persist()` writes the `skin` key to (the app's `$HERMES_HOME/tui/config.yaml`).
    """

    def __init__(
        self, app: App[Any], hermes_home: str | Path, *, persist_path: str | Path | None = None
    ) -> None:
        self.app = app
        self.hermes_home = Path(hermes_home)
        self.persist_path = Path(persist_path) if persist_path else self.hermes_home / "tui" / "config.yaml"
        self.themes: dict[str, ThemeSpec] = {}
        """Every usable theme by name, built-in ones first (what the picker lists)."""
        self.sources: dict[str, Path | None] = {}
        """The file each theme came from; None for a built-in one."""
        self.errors: list[ThemeError] = []
        """Files that failed to load on the last `load()`."""
        self.active: str | None = None
        """The name of the theme last applied through this manager."""
        self._builtins = builtin_themes()
        self._watcher: Any = None
        self.load()

    # ------------------------------------------------------------------------------------------- loading

    @property
    def dirs(self) -> list[Path]:
        return user_theme_dirs(self.hermes_home)

    def load(self) -> list[ThemeError]:
        """(Re)load every theme file and register them all with the app. Returns the broken files."""
        self.themes, self.sources, self.errors = load_all_sourced(self.hermes_home)
        for spec in self.themes.values():
            self.app.register_theme(spec.to_textual_theme())
        return list(self.errors)

    def get(self, name: str) -> ThemeSpec | None:
        return self.themes.get(name)

    @property
    def spec(self) -> ThemeSpec | None:
        """The active theme's spec."""
        return self.themes.get(self.active) if self.active else None

    # ------------------------------------------------------------------------------------------- applying

    def apply(self, name: str) -> ThemeSpec | None:
        """Make `name` the app's theme, colours and flavour. Unknown names change nothing and return None."""
        spec = self.themes.get(name)
        if spec is None:
            return None
        theme = spec.to_textual_theme()
        self.app.register_theme(theme)
        same_name = self.app.theme == name
        self.active = name
        self.app.theme_spec = spec  # type: ignore[attr-defined]
        if same_name:
            self._refresh_current(spec)  # same name: the reactive would not fire
        else:
            self.app.theme = name
        self._post_flavour(spec)
        return spec

    def apply_initial(self, preferred: str | None) -> str | None:
        """Apply `preferred` (e.g. `settings.skin`), else `default`. Returns a warning to show, or None."""
        if preferred and self.apply(preferred) is not None:
            return None
        self.apply(DEFAULT_THEME)
        if preferred and preferred != DEFAULT_THEME:
            known = ", ".join(self.themes)
            return f"Unknown theme {preferred!r}; using {DEFAULT_THEME!r}. Themes: {known}"
        return None

    def preview(self, name: str) -> None:
        """Show a theme without saving the choice (the picker calls this on every highlight)."""
        if name in self.themes:
            self.apply(name)
        elif name in self.app.available_themes:  # a Textual theme that was active before the picker
            self.app.theme = name

    def _refresh_current(self, spec: ThemeSpec) -> None:
        """Re-apply the active theme after its colours changed under the same name (public API only)."""
        app = self.app
        app.set_class(spec.dark, "-dark-mode")
        app.set_class(not spec.dark, "-light-mode")
        if app.is_running:
            app.refresh_css(animate=False)
            app.theme_changed_signal.publish(app.current_theme)

    def _post_flavour(self, spec: ThemeSpec) -> None:
        if not self.app.is_running:
            return
        for screen in list(self.app.screen_stack):
            screen.post_message(ThemeFlavourChanged(spec))

    # ------------------------------------------------------------------------------------------- reloading

    def _rank(self, path: Path | None) -> int:
        """Precedence of a theme's source: built-in 0, `skins/` 1, `tui/themes/` 2."""
        if path is None:
            return 0
        parent = path.parent.resolve() if path.parent.exists() else path.parent
        for index, directory in enumerate(self.dirs, start=1):
            if parent == (directory.resolve() if directory.exists() else directory):
                return index
        return len(self.dirs) + 1  # a file given explicitly

    def _forget(self, name: str) -> None:
        """Drop a user theme, falling back to the built-in one of that name if there is one."""
        builtin = self._builtins.get(name)
        if builtin is not None:
            self.themes[name] = builtin
            self.sources[name] = None
            self.app.register_theme(builtin.to_textual_theme())
        elif name != self.active:  # keep the active theme usable until something else is chosen
            self.themes.pop(name, None)
            self.sources.pop(name, None)

    def reload_file(self, path: str | Path) -> ThemeError | None:
        """Re-read one theme file after it changed; re-apply it if it is the active theme.

        On an error the last good version stays registered and active, and the error is returned (the app
        shows it). A deleted file falls back to the built-in theme of the same name, if any.
        """
        path = Path(path)
        if not is_theme_file(path):
            return None
        previous = [name for name, source in self.sources.items() if source == path]
        if not path.exists():
            for name in previous:
                self._forget(name)
                if name == self.active:
                    self.apply(name)
            return None
        try:
            spec = load_theme_file(path)
        except ThemeError as exc:
            self.errors = [*(e for e in self.errors if Path(e.file) != path), exc]
            return exc
        self.errors = [e for e in self.errors if Path(e.file) != path]
        current_source = self.sources.get(spec.name, None)
        if (
            spec.name in self.sources
            and current_source != path
            and self._rank(current_source) > self._rank(path)
        ):
            return None  # a file of higher precedence defines this theme
        renamed_active = False
        for name in previous:
            if name != spec.name:
                renamed_active |= name == self.active
                self._forget(name)
        self.themes[spec.name] = spec
        self.sources[spec.name] = path
        self.app.register_theme(spec.to_textual_theme())
        if spec.name == self.active or renamed_active:
            self.apply(spec.name)
        return None

    # ------------------------------------------------------------------------------------------- watching

    def start_watching(
        self, *, notify: bool = True, on_reload: Callable[[Path, ThemeError | None], None] | None = None
    ) -> None:
        """Watch the user theme directories and reload edited files on the UI thread.

        With `notify`, a broken edit is shown as an error toast (the last good theme stays) and a fixed or
        edited active theme as a short "reloaded" toast. `on_reload(path, error)` is called after each reload.
        """
        from themes.watcher import ThemeWatcher

        if self._watcher is not None:
            return

        def reload_on_ui(path: Path) -> None:
            error = self.reload_file(path)
            if notify:
                if error is not None:
                    self.app.notify(str(error), title="Theme not reloaded", severity="error", timeout=8)
                elif self.sources.get(self.active or "") == path:
                    self.app.notify(f"Reloaded {path.name}", title="Theme", timeout=2)
            if on_reload is not None:
                on_reload(path, error)

        def on_change(path: Path) -> None:  # watcher thread
            self.app.call_later(reload_on_ui, path)

        self._watcher = ThemeWatcher(self.dirs, on_change)
        self._watcher.start()

    def stop_watching(self, *, wait: bool = True) -> None:
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.stop(wait=wait)

    # ------------------------------------------------------------------------------------------- persisting

    def persist(self, name: str) -> ThemeError | None:
        """Save `skin: <name>` in `persist_path`, keeping its other keys (and comments, where possible).
        A settings file that cannot be read or is not valid YAML is left alone and reported."""
        try:
            save_setting(self.persist_path, "skin", name)
        except SettingNotSaved as exc:
            return ThemeError(self.persist_path, None, "skin", f"not saved: {exc}")
        return None

"""Themes: loading both file formats, errors that say where, hot reload, the picker, saving the choice."""

from __future__ import annotations

import os
import stat
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from textual.app import App, ComposeResult
from textual.color import Color
from textual.pilot import Pilot
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets import Static

from hermes_tui.screens.theme_picker import ThemePicker
from themes.apply import ThemeFlavourChanged, ThemeManager
from themes.loader import ThemeError, builtin_themes, load_all, load_theme_file, user_theme_dirs
from themes.model import luminance
from themes.watcher import ThemeWatcher

BUILTIN_NAMES = ["default", "ares", "mono", "slate", "daylight", "poseidon", "sisyphus", "charizard"]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def contrast(a: str, b: str) -> float:
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def close(color: Color, hex_color: str) -> bool:
    """Textual's generated shades go through HSL and may be off by one per channel."""
    given = Color.parse(hex_color)
    return max(abs(a - b) for a, b in zip(color.rgb, given.rgb, strict=True)) <= 2


async def wait_until(pilot: Pilot, predicate: Callable[[], bool], timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        await pilot.pause(0.02)


# ---------------------------------------------------------------------------------------------- built-ins


def test_every_builtin_theme_loads_and_converts() -> None:
    themes = builtin_themes()
    assert set(BUILTIN_NAMES) <= set(themes)
    assert next(iter(themes)) == "default"
    for name, spec in themes.items():
        theme = spec.to_textual_theme()
        assert isinstance(theme, Theme)
        assert theme.name == name == spec.name
        assert theme.dark is spec.dark
        variables = theme.to_color_system().generate()
        assert close(Color.parse(variables["primary"]), spec.colors.primary)
        assert spec.description, f"{name} has no description"
        assert spec.spinner.faces and spec.spinner.verbs, f"{name} has no spinner faces/verbs"
        assert spec.prompt_symbol and spec.agent_name
        assert {"terminal", "read_file", "write_file"} <= set(spec.tool_icons)
    assert themes["daylight"].dark is False
    assert luminance(themes["daylight"].colors.background) > luminance(themes["daylight"].colors.foreground)
    assert themes["ares"].prompt_symbol == "⚔"
    assert themes["ares"].spinner.wings[0] == ("⟪⚔", "⚔⟫")


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_builtin_theme_is_readable(name: str) -> None:
    """Body text, muted text and every semantic colour used as text stay legible on the background."""
    spec = builtin_themes()[name]
    c = spec.colors
    assert contrast(c.foreground, c.background) >= 7, "body text"
    for surface in (c.surface, c.panel):
        assert contrast(c.foreground, surface) >= 7, "body text on a surface/panel"
    for key in ("primary", "secondary", "accent", "success", "warning", "error"):
        assert contrast(getattr(c, key), c.background) >= 4.5, key
    background = Color.parse(c.background)
    muted = background + background.get_contrast_text(0.6)  # Textual's $text-muted
    assert contrast(muted.hex[:7], c.background) >= 4.5, "$text-muted"


# ---------------------------------------------------------------------------------------------- formats


def test_hermes_skin_with_some_keys_inherits_the_rest_from_default(hermes_home: Path) -> None:
    path = write(
        hermes_home / "skins" / "ember.yaml",
        """
        name: ember
        description: a partial Hermes skin
        colors:
          ui_accent: "#ff7733"
          banner_text: "#FFF0E0"
        spinner:
          thinking_verbs: [smouldering, glowing]
        branding:
          agent_name: Ember Agent
          prompt_symbol: "» "
        tool_emojis:
          terminal: "🔥"
        """,
    )
    spec = load_theme_file(path)
    default = builtin_themes()["default"]
    assert spec.name == "ember"
    assert spec.colors.primary == "#FF7733"
    assert spec.colors.foreground == "#FFF0E0"
    assert spec.colors.background == default.colors.background
    assert spec.colors.error == default.colors.error
    assert spec.dark is True
    assert spec.spinner.verbs == ("smouldering", "glowing")
    assert spec.spinner.faces == default.spinner.faces
    assert spec.agent_name == "Ember Agent"
    assert spec.prompt_symbol == "»"
    assert spec.tool_icons["terminal"] == "🔥"
    assert spec.tool_icons["read_file"] == default.tool_icons["read_file"]


def test_hermes_builtin_skin_layout_maps_faces_wings_and_names(tmp_path: Path) -> None:
    """A skin written the way Hermes writes its built-ins (thinking + waiting faces, wings, branding)."""
    path = write(
        tmp_path / "warrior.yaml",
        """
        name: warrior
        colors:
          banner_border: "#A93333"
          banner_title: "#C7A96B"
          ui_accent: "#DD4A3A"
          ui_ok: green
          status_bar_bg: "#2A1212"
        spinner:
          waiting_faces: ["(⚔)", "(⛨)", "(/)"]
          thinking_faces: ["(⚔)", "(⌁)"]
          thinking_verbs: ["forging", "marching"]
          wings: [["⟪⚔", "⚔⟫"]]
        branding: {agent_name: "Ares Agent", prompt_symbol: "⚔", goodbye: "Farewell"}
        tool_prefix: "╎"
        banner_logo: "[bold]ARES[/]"
        """,
    )
    spec = load_theme_file(path)
    assert spec.colors.primary == "#DD4A3A"
    assert spec.colors.secondary == "#A93333"
    assert spec.colors.accent == "#C7A96B"
    assert spec.colors.panel == "#2A1212"
    assert spec.colors.success == "#008000"  # a colour name, as Hermes allows, becomes hex
    assert spec.spinner.faces == ("(⚔)", "(⌁)", "(⛨)", "(/)")
    assert spec.spinner.wings == (("⟪⚔", "⚔⟫"),)
    assert spec.tool_prefix == "╎"


def test_light_hermes_skin_inherits_from_daylight(tmp_path: Path) -> None:
    path = write(
        tmp_path / "paper.yaml",
        """
        name: paper
        colors: {banner_text: "#111827", ui_accent: "#2563EB"}
        """,
    )
    spec = load_theme_file(path)
    assert spec.dark is False
    assert luminance(spec.colors.background) > 0.8
    assert spec.colors.background == builtin_themes()["daylight"].colors.background


def test_native_theme_file_inherits_and_takes_its_name_from_the_file(tmp_path: Path) -> None:
    path = write(tmp_path / "dusk.yaml", 'colors: {primary: "#abc"}\n')
    spec = load_theme_file(path)
    assert spec.name == "dusk"
    assert spec.colors.primary == "#AABBCC"
    assert spec.colors.background == builtin_themes()["default"].colors.background
    assert spec.dark is True


# ---------------------------------------------------------------------------------------------- errors


def test_broken_yaml_names_file_and_line(tmp_path: Path) -> None:
    path = write(
        tmp_path / "broken.yaml",
        """
        name: broken
        colors:
          primary: "#ff0000"
         secondary: "#00ff00"
        """,
    )
    with pytest.raises(ThemeError) as info:
        load_theme_file(path)
    error = info.value
    assert error.file == str(path)
    assert error.line == 4
    assert "invalid YAML" in error.message
    assert str(error).startswith(f"{path}:4: ")


def test_bad_colour_names_file_line_and_key(tmp_path: Path) -> None:
    path = write(
        tmp_path / "bad.yaml",
        """
        name: bad
        description: a typo in a colour
        colors:
          primary: "#E0A526"
          accent: "#GG0000"
        """,
    )
    with pytest.raises(ThemeError) as info:
        load_theme_file(path)
    error = info.value
    assert (error.file, error.line, error.key) == (str(path), 5, "colors.accent")
    assert "hex colour" in error.message and "#GG0000" in error.message
    assert str(error) == f"{path}:5: colors.accent: {error.message}"


def test_bad_colour_in_hermes_skin_names_the_hermes_key(tmp_path: Path) -> None:
    path = write(
        tmp_path / "skin.yaml",
        """
        name: skin
        colors:
          banner_title: "#FFD700"
          ui_accent: "not a colour at all"
        branding:
          agent_name: Skin
        """,
    )
    with pytest.raises(ThemeError) as info:
        load_theme_file(path)
    assert (info.value.line, info.value.key) == (4, "colors.ui_accent")


def test_unknown_key_and_bad_list_item_are_located(tmp_path: Path) -> None:
    typo = write(tmp_path / "typo.yaml", 'name: typo\ncolours:\n  primary: "#fff"\n')
    with pytest.raises(ThemeError) as info:
        load_theme_file(typo)
    assert (info.value.line, info.value.key) == (2, "colours")
    assert "unknown key" in info.value.message and "colors" in info.value.message

    item = write(tmp_path / "item.yaml", "name: item\nspinner:\n  faces:\n    - (o_o)\n    - 42\n")
    with pytest.raises(ThemeError) as info:
        load_theme_file(item)
    assert (info.value.line, info.value.key) == (5, "spinner.faces[1]")


def test_empty_and_non_mapping_files_are_errors(tmp_path: Path) -> None:
    for name, text in (("empty.yaml", ""), ("list.yaml", "- a\n- b\n")):
        with pytest.raises(ThemeError) as info:
            load_theme_file(write(tmp_path / name, text))
        assert info.value.file.endswith(name)


# ---------------------------------------------------------------------------------------------- discovery


def test_user_theme_overrides_builtin_and_broken_files_are_reported(hermes_home: Path) -> None:
    skins, tui_themes = user_theme_dirs(hermes_home)
    assert (skins, tui_themes) == (hermes_home / "skins", hermes_home / "tui" / "themes")
    write(skins / "ares.yaml", 'name: ares\ncolors: {ui_accent: "#111111", background: "#000000"}\n')
    write(skins / "twice.yaml", 'name: twice\ncolors: {ui_accent: "#222222"}\n')
    write(tui_themes / "twice.yaml", 'name: twice\ncolors: {primary: "#333333"}\n')
    write(tui_themes / "broken.yaml", "name: [\n")
    write(tui_themes / "notes.txt", "not a theme")

    themes, errors = load_all(hermes_home)
    assert themes["ares"].colors.primary == "#111111"
    assert themes["twice"].colors.primary == "#333333"  # tui/themes wins over skins/
    assert themes["mono"] == builtin_themes()["mono"]
    assert [Path(e.file).name for e in errors] == ["broken.yaml"]
    assert errors[0].line is not None


# ---------------------------------------------------------------------------------------------- watcher


def test_watcher_calls_back_within_a_second_and_stops_promptly(tmp_path: Path) -> None:
    seen: list[tuple[Path, float]] = []
    changed = threading.Event()

    def on_change(path: Path) -> None:
        seen.append((path, time.monotonic()))
        changed.set()

    watcher = ThemeWatcher([tmp_path], on_change, rescan=0.2)
    watcher.start()
    try:
        assert watcher.wait_ready(3.0)
        written_at = time.monotonic()
        (tmp_path / "live.yaml").write_text("name: live\n")
        assert changed.wait(3.0), "no callback"
        assert seen[0][0] == tmp_path / "live.yaml"
        assert seen[0][1] - written_at < 1.0
        changed.clear()
        (tmp_path / "ignored.txt").write_text("x")
        (tmp_path / "second.yml").write_text("name: second\n")
        assert changed.wait(3.0)
        assert {path.name for path, _ in seen} == {"live.yaml", "second.yml"}
    finally:
        started = time.monotonic()
        watcher.stop()
        stopped_in = time.monotonic() - started
    assert not watcher.running
    assert stopped_in < 3  # stops at once rather than after its poll timeout (generous: a loaded machine)


def test_watcher_survives_a_failing_callback_and_picks_up_a_new_directory(tmp_path: Path) -> None:
    later = tmp_path / "created-later"
    calls: list[Path] = []
    changed = threading.Event()

    def on_change(path: Path) -> None:
        calls.append(path)
        changed.set()
        if len(calls) == 1:
            raise RuntimeError("a bug in the callback must not stop the watcher")

    watcher = ThemeWatcher([later], on_change, rescan=0.1)
    watcher.start()
    try:
        assert watcher.wait_ready(3.0)
        later.mkdir()
        (later / "a.yaml").write_text("name: a\n")  # before the watcher has noticed the directory
        assert changed.wait(3.0), "a file in a new directory was not reported"
        assert calls[0] == later / "a.yaml"
        changed.clear()
        (later / "b.yaml").write_text("name: b\n")
        assert changed.wait(3.0)
        assert later / "b.yaml" in calls
        assert watcher.running
    finally:
        watcher.stop()
    assert not watcher.running


class FlavourScreen(Screen[None]):
    def __init__(self) -> None:
        super().__init__()
        self.flavours: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("primary text", id="primary-text")

    def on_theme_flavour_changed(self, message: ThemeFlavourChanged) -> None:
        self.flavours.append(message.spec.name)


class ThemedApp(App[None]):
    CSS = "#primary-text { color: $primary; }"

    def __init__(self, hermes_home: Path, skin: str = "default") -> None:
        super().__init__()
        self.manager = ThemeManager(self, hermes_home, persist_path=hermes_home / "tui" / "config.yaml")
        self.startup_warning = self.manager.apply_initial(skin)

    def on_mount(self) -> None:
        self.push_screen(FlavourScreen())


CUSTOM = """
name: custom
description: my theme
colors:
  primary: "{primary}"
  background: "#101010"
"""


async def test_reload_file_changes_the_active_theme_and_a_broken_edit_keeps_it(hermes_home: Path) -> None:
    path = write(hermes_home / "tui" / "themes" / "custom.yaml", CUSTOM.format(primary="#112233"))
    app = ThemedApp(hermes_home, skin="custom")
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.theme == "custom"
        assert app.current_theme.primary == "#112233"
        label = app.screen.query_one("#primary-text", Static)
        assert close(label.styles.color, "#112233")

        write(path, CUSTOM.format(primary="#AA5500"))
        assert app.manager.reload_file(path) is None
        await pilot.pause()
        assert app.current_theme.primary == "#AA5500"
        assert close(label.styles.color, "#AA5500")
        assert app.theme_spec.colors.primary == "#AA5500"

        write(path, CUSTOM.format(primary="#XYZ"))
        error = app.manager.reload_file(path)
        assert isinstance(error, ThemeError)
        assert (error.key, error.line) == ("colors.primary", 4)
        await pilot.pause()
        assert app.theme == "custom"
        assert app.current_theme.primary == "#AA5500"
        assert close(label.styles.color, "#AA5500")

        path.unlink()  # no built-in of that name: the last good version stays in use
        assert app.manager.reload_file(path) is None
        assert app.current_theme.primary == "#AA5500"


async def test_deleting_a_user_override_falls_back_to_the_builtin(hermes_home: Path) -> None:
    path = write(hermes_home / "tui" / "themes" / "slate.yaml", 'name: slate\ncolors: {primary: "#123456"}\n')
    app = ThemedApp(hermes_home, skin="slate")
    async with app.run_test() as pilot:
        assert app.current_theme.primary == "#123456"
        path.unlink()
        app.manager.reload_file(path)
        await pilot.pause()
        assert app.current_theme.primary == builtin_themes()["slate"].colors.primary


async def test_apply_sets_flavour_and_posts_it_to_the_screens(hermes_home: Path) -> None:
    app = ThemedApp(hermes_home)
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FlavourScreen)
        spec = app.manager.apply("ares")
        assert spec is not None and app.theme == "ares"
        assert app.theme_spec.prompt_symbol == "⚔"
        await pilot.pause()
        assert screen.flavours[-1] == "ares"
        assert app.manager.apply("no-such-theme") is None
        assert app.theme == "ares"


def test_unknown_skin_at_startup_falls_back_to_default_with_a_warning(hermes_home: Path) -> None:
    app = ThemedApp(hermes_home, skin="nonexistent")
    assert app.theme == "default"
    assert app.startup_warning is not None and "nonexistent" in app.startup_warning


async def test_watching_reloads_an_edited_theme_in_the_running_app(hermes_home: Path) -> None:
    path = write(hermes_home / "tui" / "themes" / "custom.yaml", CUSTOM.format(primary="#112233"))
    app = ThemedApp(hermes_home, skin="custom")
    reloaded: list[Path] = []
    async with app.run_test() as pilot:
        app.manager.start_watching(on_reload=lambda p, _e: reloaded.append(p))
        try:
            assert app.manager._watcher.wait_ready(3.0)
            write(path, CUSTOM.format(primary="#55AA00"))
            await wait_until(pilot, lambda: app.current_theme.primary == "#55AA00", timeout=3.0)
            assert reloaded and reloaded[-1] == path
        finally:
            app.manager.stop_watching()


# ---------------------------------------------------------------------------------------------- picker


async def test_picker_previews_on_highlight_and_escape_restores(hermes_home: Path) -> None:
    app = ThemedApp(hermes_home)
    previews: list[str] = []
    results: list[str | None] = []

    def preview(name: str) -> None:
        previews.append(name)
        app.manager.preview(name)

    async with app.run_test() as pilot:
        names = list(app.manager.themes)
        app.push_screen(ThemePicker(app.manager.themes, current="default", preview=preview), results.append)
        await pilot.pause()
        assert previews == []  # opening does not change anything
        await pilot.press("down")
        await pilot.pause()
        assert previews == [names[1]]
        assert app.theme == names[1]
        await pilot.press("down")
        await pilot.pause()
        assert app.theme == names[2]
        await pilot.press("escape")
        await pilot.pause()
        assert results == [None]
        assert app.theme == "default"
        assert previews[-1] == "default"
        assert not isinstance(app.screen, ThemePicker)


async def test_picker_enter_chooses_the_highlighted_theme(hermes_home: Path) -> None:
    app = ThemedApp(hermes_home)
    results: list[str | None] = []
    async with app.run_test() as pilot:
        app.push_screen(
            ThemePicker(app.manager.themes, current="default", preview=app.manager.preview), results.append
        )
        await pilot.pause()
        await pilot.press("down", "enter")
        await pilot.pause()
        chosen = list(app.manager.themes)[1]
        assert results == [chosen]
        assert app.theme == chosen


# ---------------------------------------------------------------------------------------------- persist


def test_persist_writes_the_key_and_keeps_the_others(hermes_home: Path) -> None:
    config = hermes_home / "tui" / "config.yaml"
    write(
        config,
        """
        # my settings
        model: gpt-4o  # the usual
        skin: default
        command_allowlist:
          - ls
        """,
    )
    app = ThemedApp(hermes_home)
    assert app.manager.persist("ares") is None
    text = config.read_text()
    assert yaml.safe_load(text) == {"model": "gpt-4o", "skin": "ares", "command_allowlist": ["ls"]}
    assert "# my settings" in text and "# the usual" in text
    assert stat.S_IMODE(os.stat(config).st_mode) == 0o600
    assert app.manager.persist("mono") is None
    assert yaml.safe_load(config.read_text())["skin"] == "mono"
    assert config.read_text().count("skin:") == 1
    assert not [p for p in config.parent.iterdir() if p.name.endswith(".tmp")]


def test_persist_creates_the_file_and_refuses_to_clobber_a_broken_one(hermes_home: Path) -> None:
    config = hermes_home / "tui" / "config.yaml"
    app = ThemedApp(hermes_home)
    assert app.manager.persist("slate") is None
    assert yaml.safe_load(config.read_text()) == {"skin": "slate"}
    assert stat.S_IMODE(os.stat(config).st_mode) == 0o600

    config.write_text("model: gpt-4o\nskin: {odd: layout}\n")  # not one simple line: rewritten whole
    assert app.manager.persist("poseidon") is None
    assert yaml.safe_load(config.read_text()) == {"model": "gpt-4o", "skin": "poseidon"}
    assert config.read_text().count("skin:") == 1

    config.write_text("model: [unclosed\n")
    error = app.manager.persist("ares")
    assert isinstance(error, ThemeError) and error.key == "skin"
    assert config.read_text() == "model: [unclosed\n"

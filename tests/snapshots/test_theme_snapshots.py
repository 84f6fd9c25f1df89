"""One snapshot per built-in theme of a small app that uses the colours the real screens use.

Regenerate after an intended change with `pytest tests/snapshots/test_theme_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Input, Static

from themes.loader import builtin_themes

THEMES = list(builtin_themes())


class ThemeSample(App[None]):
    """Headings, body and muted text, outcome colours, a panel, an input and buttons."""

    CSS = """
    Screen { padding: 1 2; }
    .title { color: $accent; text-style: bold; }
    .primary { color: $primary; }
    .secondary { color: $secondary; }
    .muted { color: $text-muted; }
    .success { color: $success; }
    .warning { color: $warning; }
    .error { color: $error; }
    #panel {
        background: $panel;
        border: round $secondary;
        border-title-color: $accent;
        padding: 0 1;
        height: auto;
        margin: 1 0;
    }
    #surface { background: $surface; padding: 0 1; height: auto; }
    Input { margin: 1 0 0 0; }
    #buttons { height: auto; margin-top: 1; }
    Button { margin-right: 2; }
    """

    def __init__(self, theme_name: str) -> None:
        super().__init__()
        self.spec = builtin_themes()[theme_name]
        self.register_theme(self.spec.to_textual_theme())
        self.theme = theme_name

    def compose(self) -> ComposeResult:
        spec = self.spec
        yield Static(Text(f"{spec.agent_name} · theme {spec.name}"), classes="title")
        yield Static(Text(spec.description))
        yield Static(
            Text("Body text: the assistant's reply reads like this, long enough to wrap if it had to.")
        )
        yield Static(
            Text(f"{spec.spinner.faces[0]} {spec.spinner.verbs[0]}… 3.2s · esc to interrupt"), classes="muted"
        )
        yield Static(Text("$primary — focused borders and the prompt"), classes="primary")
        yield Static(Text("$secondary — the spinner's face"), classes="secondary")
        with Vertical(id="panel") as panel:
            panel.border_title = "$panel"
            icon = spec.tool_icons.get("terminal", "⚙")
            yield Static(Text(f"{spec.tool_prefix} {icon} terminal  pytest -q  1.2s"))
            yield Static(Text("✓ 42 passed"), classes="success")
            yield Static(Text("! approval needed: rm -rf build/"), classes="warning")
            yield Static(Text("✗ failed: exit code 1"), classes="error")
        with Vertical(id="surface"):
            yield Static(Text("$surface — inputs and dialogs sit on this"))
        yield Input(value="what does this repo do?", id="prompt", select_on_focus=False)
        with Horizontal(id="buttons"):
            yield Button("Approve", variant="primary")
            yield Button("Deny", variant="error")
            yield Button("Cancel")

    def on_mount(self) -> None:
        prompt = self.query_one(Input)
        prompt.cursor_blink = False
        prompt.focus()
        prompt.cursor_position = len(prompt.value)


@pytest.mark.parametrize("theme_name", THEMES)
def test_theme_snapshot(snap_compare, theme_name: str) -> None:
    assert snap_compare(ThemeSample(theme_name), terminal_size=(100, 30))


def test_theme_picker_snapshot(snap_compare, tmp_path) -> None:
    """The picker over the sample app, three rows down: the highlighted theme is previewed live."""
    from hermes_tui.screens.theme_picker import ThemePicker
    from themes.apply import ThemeManager

    app = ThemeSample("default")

    async def open_picker(pilot) -> None:
        manager = ThemeManager(app, tmp_path)
        manager.apply("default")
        app.push_screen(ThemePicker(manager.themes, current="default", preview=manager.preview))
        await pilot.pause()

    assert snap_compare(app, press=["down", "down", "down"], terminal_size=(100, 30), run_before=open_picker)

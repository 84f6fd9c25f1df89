"""`ThemePicker`: choose a theme, seeing each one live while the highlight moves.

    app.push_screen(ThemePicker(manager.themes, current=manager.active, preview=manager.preview), on_chosen)

Moving the highlight calls `preview(name)`, so the whole app (this dialog included) repaints in that theme.
Enter (or a click) dismisses with the highlighted name; Escape calls `preview(current)` to put the
original theme back and dismisses with None. The caller applies and saves the choice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from themes.model import ThemeSpec
from widgets.cards.look import card_css

__all__ = ["ThemePicker"]

SWATCH_KEYS = ("primary", "secondary", "accent", "success", "warning", "error")


def theme_option(spec: ThemeSpec, *, current: bool = False) -> Option:
    """Two lines: the name with colour swatches, then the description."""
    prompt = Text(no_wrap=True, overflow="ellipsis")
    prompt.append(spec.name, style="bold")
    if current:
        prompt.append(" (current)", style="italic")
    prompt.append("  ")
    colors = spec.colors
    prompt.append(" ", style=f"on {colors.background}")
    for key in SWATCH_KEYS:
        prompt.append("■", style=f"{getattr(colors, key)} on {colors.background}")
    prompt.append(" ", style=f"on {colors.background}")
    prompt.append(f"  {'dark' if spec.dark else 'light'}", style="dim")
    if spec.description:
        prompt.append("\n")
        prompt.append(spec.description, style="dim")
    return Option(prompt, id=spec.name)


class ThemePicker(ModalScreen[str | None]):
    """A list of themes; highlight previews, Enter chooses, Escape restores and cancels."""

    DEFAULT_CSS = (
        card_css("ThemePicker > #theme-picker")
        + """
    ThemePicker {
        align: center middle;
        background: $background 40%;
    }
    ThemePicker > #theme-picker {
        width: 64;
        max-width: 90%;
        height: auto;
        max-height: 90%;
        padding: 0 1;
        border-title-color: $accent;
        border-subtitle-color: $text-muted;
    }
    ThemePicker OptionList {
        height: auto;
        max-height: 24;
        border: none;
        padding: 0;
        background: $surface;
    }
    ThemePicker OptionList:focus {
        border: none;
        background-tint: transparent;
    }
    ThemePicker #theme-picker-hint {
        color: $text-muted;
        padding: 0 0 1 0;
    }
    """
    )

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="theme_picker.cancel"),
    ]

    def __init__(
        self,
        themes: Mapping[str, ThemeSpec],
        *,
        current: str | None = None,
        preview: Callable[[str], None] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.themes = dict(themes)
        self.original = current
        self._preview = preview
        self._shown = current  # the theme on screen right now
        self._skip: str | None = None  # an initial highlight that must not preview

    def compose(self) -> ComposeResult:
        with Vertical(id="theme-picker") as box:
            box.border_title = "Theme"
            box.border_subtitle = "↑↓ preview · enter choose · esc cancel"
            yield Static(
                "Themes from $HERMES_HOME/skins and tui/themes reload as you edit them.",
                id="theme-picker-hint",
            )
            yield OptionList(
                *(theme_option(spec, current=name == self.original) for name, spec in self.themes.items()),
                id="theme-picker-list",
            )

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if self.original in self.themes:
            options.highlighted = options.get_option_index(self.original)
        elif options.option_count:
            # The active theme is not one of ours (e.g. a Textual theme): highlight the first entry
            # without switching to it until the user moves.
            self._skip = options.get_option_at_index(0).id
            options.highlighted = 0
        options.focus()

    @property
    def highlighted_name(self) -> str | None:
        option = self.query_one(OptionList).highlighted_option
        return option.id if option is not None else None

    def _show(self, name: str | None) -> None:
        if name is None or name == self._shown:
            return
        self._shown = name
        if self._preview is not None:
            self._preview(name)

    @on(OptionList.OptionHighlighted, "#theme-picker-list")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if self._skip is not None and event.option_id == self._skip:
            self._skip = None
            return
        self._skip = None
        self._show(event.option_id)

    @on(OptionList.OptionSelected, "#theme-picker-list")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._show(event.option_id)
        self.dismiss(event.option_id)

    def action_cancel(self) -> None:
        if self.original is not None and self._shown != self.original and self._preview is not None:
            self._shown = self.original
            self._preview(self.original)
        self.dismiss(None)

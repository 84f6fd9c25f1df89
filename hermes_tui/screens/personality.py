"""`/personality` with no argument: pick one of the personalities (the active one is marked).

Dismisses with the chosen name ("none" clears), or None on Escape. The caller applies it; the text goes to
the system message on the wire only.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from hermes_tui.screens.picker import PickerScreen
from widgets.support.text_safety import sanitize_display

__all__ = ["PersonalityPicker"]

PREVIEW = 70


def personality_option(name: str, text: str, *, active: bool) -> Option:
    prompt = Text(no_wrap=True, overflow="ellipsis")
    prompt.append("● " if active else "  ")
    prompt.append(f"{name:<12}", style="bold")
    text = " ".join(sanitize_display(text).split())
    prompt.append(f" {text if len(text) <= PREVIEW else text[: PREVIEW - 1] + '…'}", style="dim")
    return Option(prompt, id=name)


class PersonalityPicker(PickerScreen[str | None]):
    DEFAULT_CSS = """
    PersonalityPicker > Vertical { width: 96; }
    """

    def __init__(self, table: Mapping[str, str], *, active: str | None) -> None:
        super().__init__()
        self.table = dict(table)
        self.active = active

    def compose_card(self) -> ComposeResult:
        options = [personality_option("none", "no personality", active=self.active == "none")]
        options += [personality_option(n, t, active=self.active == n) for n, t in self.table.items()]
        yield Static(Text("Personality", style="bold"))
        yield OptionList(*options, id="personalities")
        yield Static(
            Text(
                "Added to the system message on the wire, never stored; for the rest of this run. "
                "/personality TEXT sets your own."
            ),
            classes="hint",
        )
        yield Static(Text("↑↓ choose · enter set · esc close"), classes="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.focus()
        names = ["none", *self.table]
        if self.active in names:
            options.highlighted = names.index(self.active)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

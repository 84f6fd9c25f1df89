"""`PickerScreen`: the card pickers share, its keys (Esc closes; Up/Down from a filter move the list)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.widgets import Input, OptionList, Static

from hermes_tui.screens.picker import PickerScreen


class Plain(PickerScreen[str | None]):
    def compose_card(self) -> ComposeResult:
        yield Static("Pick one")
        yield OptionList("a", "b", "c")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()


class Filtered(PickerScreen[str | None]):
    FILTERED: ClassVar[bool] = True
    CARD_TITLE: ClassVar[str | None] = "Filtered"

    def compose_card(self) -> ComposeResult:
        yield Input()
        yield OptionList("a", "b", "c")

    def on_mount(self) -> None:
        self.query_one(Input).focus()


class Host(App[None]):
    def __init__(self, screen: PickerScreen[str | None]) -> None:
        super().__init__()
        self.picker = screen
        self.results: list[str | None] = []

    def on_mount(self) -> None:
        self.push_screen(self.picker, self.results.append)


async def test_up_and_down_from_the_filter_move_the_list_within_its_options() -> None:
    app = Host(Filtered())
    async with app.run_test() as pilot:
        await pilot.pause()
        listing = app.picker.query_one(OptionList)
        assert app.picker.query_one(Input).has_focus
        assert app.picker.query_one("Vertical").border_title == "Filtered"
        assert listing.highlighted == 0
        await pilot.press("down")
        assert listing.highlighted == 1
        await pilot.press("down", "down", "down")
        assert listing.highlighted == 2
        await pilot.press("up")
        assert listing.highlighted == 1
        assert app.picker.query_one(Input).has_focus  # the filter keeps the keyboard


async def test_without_a_filter_the_list_takes_its_own_keys_and_escape_closes_with_none() -> None:
    app = Host(Plain())
    async with app.run_test() as pilot:
        await pilot.pause()
        listing = app.picker.query_one(OptionList)
        await pilot.press("down")
        assert listing.highlighted == 1  # OptionList's own Down, from its first option
        assert app.picker.check_action("move", (1,)) is False
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [None]
        assert app.screen is not app.picker

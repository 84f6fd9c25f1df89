"""The chat screen's compositor (`textual_compat.compositor`) keeps every widget's place right
while it skips rebuilding a map that is already up to date."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static

from hermes_tui.textual_compat.compositor import KeptMapCompositor


class ListScreen(Screen[None]):
    def __init__(self) -> None:
        super().__init__()
        self._compositor = KeptMapCompositor()

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="list"):
            for i in range(60):
                yield Static(f"row {i}", id=f"r{i}")


class ListApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(ListScreen())


def arranged_afresh(screen: Screen[Any]) -> dict[Any, Any]:
    """Every widget's region from a new arrangement of the whole screen (what a rebuilt map holds)."""
    compositor = screen._compositor
    layout, _widgets = compositor._arrange_root(screen, compositor.size, visible_only=False)
    return {widget: geometry.region for widget, geometry in layout.items()}


async def assert_places_right(pilot: Pilot[None], screen: Screen[Any]) -> None:
    await pilot.pause()
    expected = arranged_afresh(screen)
    places = {widget: widget.region for widget in screen.query("*") if widget in expected}
    assert places == {widget: expected[widget] for widget in places}
    hidden = [widget for widget in screen.query(Static) if widget not in expected]
    assert all(not widget.region for widget in hidden)


async def test_places_stay_right_through_scrolls_mounts_repaints_and_removals() -> None:
    app = ListApp()
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen._compositor, KeptMapCompositor)
        scroll = screen.query_one(VerticalScroll)
        await assert_places_right(pilot, screen)

        scroll.scroll_end(animate=False)  # a scroll lays out only what shows
        await assert_places_right(pilot, screen)

        await scroll.mount(Static("new first row\nof two lines", id="new"), before=0)  # above the view
        await assert_places_right(pilot, screen)

        screen.query_one("#r3", Static).refresh()  # a repaint of a widget out of view
        await assert_places_right(pilot, screen)

        screen.query_one("#r2", Static).update("row 2\nnow taller")  # a new height out of view
        await assert_places_right(pilot, screen)

        screen.query_one("#r5", Static).display = False
        await screen.query_one("#r6", Static).remove()
        await assert_places_right(pilot, screen)

        scroll.scroll_home(animate=False)
        await assert_places_right(pilot, screen)
        assert screen.query_one("#new", Static).region.y == 0


async def test_a_layout_after_a_scroll_is_not_arranged_again_by_the_next_lookup() -> None:
    app = ListApp()
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        screen = app.screen
        compositor = screen._compositor
        scroll = screen.query_one(VerticalScroll)
        scroll.scroll_end(animate=False)  # a scroll flags the full map stale
        await pilot.pause()

        full_arrangements: list[str] = []
        arrange, reflow = compositor._arrange_root, compositor.reflow

        def counting(root: Any, size: Any, visible_only: bool = True) -> Any:
            if not visible_only:
                full_arrangements.append("arranged")
            return arrange(root, size, visible_only)

        def counting_layouts(parent: Any, size: Any) -> Any:
            full_arrangements.append("layout")
            return reflow(parent, size)

        compositor._arrange_root = counting  # type: ignore[method-assign]
        compositor.reflow = counting_layouts  # type: ignore[method-assign]
        await scroll.mount(Static("above the view", id="new"), before=0)  # a layout of the whole screen
        await pilot.pause()
        out_of_view = screen.query_one("#r1", Static)
        out_of_view.refresh()  # a repaint out of view
        await pilot.pause()
        assert out_of_view.region.height == 1 and screen.query_one("#new", Static).region
        # Each layout arranges every widget once; its map answers every lookup after it.
        pairs = len(full_arrangements) // 2
        assert full_arrangements and full_arrangements == ["layout", "arranged"] * pairs

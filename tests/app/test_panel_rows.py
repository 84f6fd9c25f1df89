"""How panel header rows read: icons as wide as they are measured, reasoning labelled with the rows the user
will see, a tool call without a summary titled once."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from textual.app import App, ComposeResult

from hermes_tui.tool_icons import ToolIcons
from themes.loader import builtin_themes
from widgets.transcript.entries.reasoning import ReasoningEntry
from widgets.transcript.entries.tool_call import DEFAULT_TOOL_ICONS, ToolCallEntry, stable_icon
from widgets.transcript.view import Transcript

VS16 = "\ufe0f"


class Rows(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()


def _builtin_icons() -> dict[str, str]:
    icons = {**DEFAULT_TOOL_ICONS, "(fallback)": ToolCallEntry.FALLBACK_ICON}
    for theme in builtin_themes().values():
        icons.update({f"{theme.name}:{tool}": icon for tool, icon in theme.tool_icons.items()})
    return icons


@pytest.mark.parametrize(("tool", "icon"), sorted(_builtin_icons().items()))
def test_no_built_in_icon_is_a_vs16_sequence(tool: str, icon: str) -> None:
    """A VS16 emoji (✍️, ⚙️) is two cells to Rich and one in tmux and many terminals: the row shifts."""
    assert VS16 not in icon, tool
    assert cell_len(icon) in (1, 2), tool


async def test_every_header_row_is_as_wide_as_its_panel_whatever_the_icon() -> None:
    names = [*DEFAULT_TOOL_ICONS, "a_plugin_tool"]
    icons = ToolIcons(plugins={"a_plugin_tool": "⚙️"}).table()  # a theme's or a plugin's VS16 icon
    app = Rows()
    async with app.run_test(size=(90, 40)) as pilot:
        panels = [ToolCallEntry(f"call_{n}", name, n, icons=icons) for n, name in enumerate(names)]
        for panel in panels:
            app.query_one(Transcript)._add(panel)
        for panel in panels:
            panel.set_started({"command": "x"}, "summary text")
            panel.set_finished("ok", 0.5, "done")
        await pilot.pause()
        for panel in panels:
            row = panel.render_header(80)
            assert VS16 not in row.plain, panel.tool_name
            assert cell_len(row.plain) == 80, panel.tool_name
            # the name starts in the same column on every row whose icon is an emoji
            icon = stable_icon(icons.get(panel.tool_name, ToolCallEntry.FALLBACK_ICON))
            if cell_len(icon) == 2:
                assert cell_len(row.plain[: row.plain.index(panel.tool_name)]) == 5, panel.tool_name


@pytest.mark.parametrize(
    ("text", "width", "label"),
    [
        ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen", 30, "3 lines"),
        ("first\nsecond\nthird", 60, "3 lines"),
        ("just one", 60, "1 line"),
    ],
)
async def test_reasoning_counts_the_lines_the_user_will_see(text: str, width: int, label: str) -> None:
    app = Rows()
    async with app.run_test(size=(width + 5, 20)) as pilot:  # margins, scrollbar gutter, entry padding
        transcript = app.query_one(Transcript)
        block = ReasoningEntry(text, finished=True)
        transcript._add(block)
        await pilot.pause()
        inner = transcript.entry_width - 2  # the entry's padding
        assert inner == width
        assert f"Reasoning · {label} " in block.header_text(inner).plain
        block.toggle()
        await pilot.pause()
        shown = block.rendered_text(width + 2).split("\n")[1:]
        assert len(shown) == int(label.split()[0])

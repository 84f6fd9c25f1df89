"""A mouse selection over the transcript: what it copies and how it is drawn.

Every line the view draws carries its canvas offsets (`Strip.apply_offsets`), so Textual's selection spans
entries; the text it copies is the canvas's lines as drawn (the margin counted in the columns), and the
selected cells are drawn in the screen's selection style.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget

from widgets.transcript.model import TranscriptModel

__all__ = ["CanvasSelection", "without_render_indent"]


def without_render_indent(text: str, first_column: int) -> str:
    """A mouse copy without the indent the transcript draws (its margin, a reply's indent, a code block's
    padding): the spaces every selected line shares are dropped, so a code block pastes as written, its own
    indentation kept. The first line starts where the drag did (`first_column`): only the part of the
    shared indent left of that column was selected, and only that is dropped from it."""
    lines = text.split("\n")
    if len(lines) < 2:
        return text
    rest = [line for line in lines[1:] if line.strip()]
    if not rest:
        return text
    first = lines[0]
    first_indent = len(first) - len(first.lstrip(" "))
    common = min(len(line) - len(line.lstrip(" ")) for line in rest)
    if first.strip():  # where the first line's text is on screen counts too
        common = min(common, first_column + first_indent)
    cut = min(max(0, common - first_column), first_indent)
    return "\n".join([first[cut:], *(line[common:] if line.strip() else "" for line in lines[1:])])


class CanvasSelection:
    """Selections over `model`'s canvas, drawn by `widget` with `margin` cells left of the entries."""

    def __init__(self, widget: Widget, model: TranscriptModel, margin: int) -> None:
        self._widget = widget
        self._model = model
        self._margin = margin

    def text(self, selection: Selection) -> tuple[str, str] | None:
        """What `selection` copies (Textual's `get_selection`)."""
        model = self._model
        start = 0 if selection.start is None else selection.start.y
        end = model.heights.total if selection.end is None else selection.end.y
        width = model.width or 80
        rows: list[str] = []
        for y in range(0, end + 1):
            text = model.line_text(y, width) if y >= start else None
            # as drawn: the selection's columns count the margin
            rows.append("" if text is None else (" " * self._margin + text).rstrip())
        first_column = 0 if selection.start is None else selection.start.x
        return without_render_indent(selection.extract("\n".join(rows)), first_column), "\n"

    def paint(self, strip: Strip, start: int, end: int) -> Strip:
        """`strip` with characters [start, end) (end -1: to the end) in the screen's selection style."""
        text = Text.assemble(
            *((segment.text, segment.style or "") for segment in strip if segment.text), end=""
        )
        text.stylize(self._style(), start, len(text) if end < 0 else end)
        return Strip(text.render(self._widget.app.console))

    def _style(self) -> Style:
        """The screen's selection background, and its foreground only where the theme sets one: Textual's
        default foreground is `transparent` (keep the text's colour), which as a whole Rich style painted
        the text in the background's colour, so a selection showed as a blank bar in every theme."""
        screen = self._widget.screen
        full = screen.get_component_rich_style("screen--selection")
        foreground = screen.get_component_styles("screen--selection").color
        return Style(bgcolor=full.bgcolor, color=full.color if foreground.a > 0 else None)

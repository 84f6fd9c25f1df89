"""A column chart of one value per day (the `/usage` screen's cost or tokens of the last 30 days).

Drawn with block characters, eight steps per cell (`▁▂▃▄▅▆▇█`), so 8 rows give 64 levels: enough to see a
trend, with no plotting library (textual-plotext pulls in plotext and predates Textual 8). A day with
calls whose price is unknown is marked `?` under its column, so an unpriced day never reads as free.
Colours come from component classes (theme variables); the data comes in through `set_data`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, timedelta
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

__all__ = ["DailyChart"]

_STEPS = " ▁▂▃▄▅▆▇█"
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


class DailyChart(Widget):
    """Columns for `values` (one per day from `first_day`); the axis says `format_value(peak)` at the top."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "daily-chart--bar",
        "daily-chart--today",
        "daily-chart--axis",
        "daily-chart--unknown",
    }

    DEFAULT_CSS = """
    DailyChart {
        height: 12;
        padding: 0 1;
        & > .daily-chart--bar { color: $primary; }
        & > .daily-chart--today { color: $accent; }
        & > .daily-chart--axis { color: $text-muted; }
        & > .daily-chart--unknown { color: $warning; text-style: bold; }
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.values: list[float] = []
        self.unknown: list[bool] = []
        self.first_day: date | None = None
        self.format_value: Callable[[float], str] = lambda v: f"{v:g}"

    def set_data(
        self,
        values: Sequence[float],
        first_day: date,
        *,
        unknown: Sequence[bool] = (),
        format_value: Callable[[float], str] | None = None,
    ) -> None:
        self.values = list(values)
        self.unknown = list(unknown) or [False] * len(self.values)
        self.first_day = first_day
        if format_value is not None:
            self.format_value = format_value
        self.refresh()

    def render(self) -> Text:
        width, height = self.content_region.width, self.content_region.height
        if not self.values or width < 10 or height < 4:
            return Text("")
        bar_style = self.get_component_rich_style("daily-chart--bar", partial=True)
        today_style = self.get_component_rich_style("daily-chart--today", partial=True)
        axis_style = self.get_component_rich_style("daily-chart--axis", partial=True)
        unknown_style = self.get_component_rich_style("daily-chart--unknown", partial=True)
        peak = max(self.values)
        top_label, zero_label = self.format_value(peak), self.format_value(0)
        axis = max(len(top_label), len(zero_label)) + 1
        count = len(self.values)
        column = max(1, min(3, (width - axis - 1) // count))
        gap = 1 if column > 1 else 0
        rows = height - 3  # the bars; then the axis line, the "?" marks and the dates
        levels = [round(8 * rows * value / peak) if peak > 0 and value > 0 else 0 for value in self.values]
        levels = [max(1, level) if value > 0 else 0 for level, value in zip(levels, self.values, strict=True)]
        out = Text(end="")
        for row in range(rows):
            label = top_label if row == 0 else ""
            out.append(label.rjust(axis - 1) + "┤" if row == 0 else " " * (axis - 1) + "│", axis_style)
            floor = (rows - 1 - row) * 8
            for index, level in enumerate(levels):
                cell = _STEPS[max(0, min(8, level - floor))]
                style = today_style if index == count - 1 else bar_style
                out.append(cell * (column - gap) + " " * gap, style)
            out.append("\n")
        out.append(zero_label.rjust(axis - 1) + "└" + "─" * (count * column), axis_style)
        out.append("\n" + " " * axis)
        for flag in self.unknown:
            out.append(("?" if flag else " ").ljust(column), unknown_style)
        out.append("\n" + " " * axis)
        out.append_text(self._dates(count, column, axis_style))
        return out

    def _dates(self, count: int, column: int, style: Style) -> Text:
        """Day labels under the columns: the first day, every Monday that fits, and the last day."""
        assert self.first_day is not None
        line = [" "] * (count * column)

        def put(index: int, label: str) -> None:
            start = min(index * column, len(line) - len(label))
            if start < 0 or any(ch != " " for ch in line[max(0, start - 2) : start + len(label) + 2]):
                return
            line[start : start + len(label)] = list(label)

        last = self.first_day + timedelta(days=count - 1)
        put(count - 1, f"{_MONTHS[last.month - 1]} {last.day}")
        put(0, f"{_MONTHS[self.first_day.month - 1]} {self.first_day.day}")
        for index in range(1, count - 1):
            day = self.first_day + timedelta(days=index)
            if day.weekday() == 0:
                put(index, str(day.day))
        return Text("".join(line), style=style, end="")

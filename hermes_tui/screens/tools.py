"""`/tools`: every toolset with its tools, on or off for the next request, and why one is off.

Enter or space switches the highlighted toolset for this session only. The next request's tool list follows
at once; the system prompt keeps the tool list the session started with (it is built once, for prompt
caching), and a new session lists the current tools. The screen shows data and calls back; the chat screen
owns the agent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, Protocol

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent.api import ToolsetStatus
from hermes_tui.screens.picker import PickerScreen
from widgets.support.text_safety import sanitize_display

__all__ = ["ToolsScreen", "ToolsetSource"]

NOTE = (
    "A switch lasts for this session and applies from its next request; the system prompt keeps the tools "
    "the session started with (prompt caching)."
)


class ToolsetSource(Protocol):
    """What the screen needs from the session's toolsets (`agent.toolkit.toolsets.SessionToolsets`)."""

    def statuses(self) -> list[ToolsetStatus]: ...

    def toggle(self, name: str) -> ToolsetStatus: ...

    def problems(self) -> list[str]: ...


def toolset_option(status: ToolsetStatus) -> Option:
    """On/off, then the name and description and, below them, its tools and, when off, the reason: the
    second column wraps under itself (a hanging indent), never back to the left edge."""
    if not status.available:
        switch = Text("  n/a", style="dim")
    elif status.enabled:
        switch = Text(" ● on", style="bold")
    else:
        switch = Text(" ○ off", style="dim")
    about = Text()
    about.append(sanitize_display(status.name), style="bold" if status.enabled else "")
    about.append(f"  {sanitize_display(status.description)}", style="dim")
    about.append("\n")
    about.append(
        ", ".join(sanitize_display(t) for t in status.tools), style="dim" if not status.enabled else ""
    )
    if status.reason:
        about.append(f"  · {sanitize_display(status.reason)}", style="italic")
    grid = Table.grid(padding=(0, 2, 0, 0))
    grid.add_column(width=6, no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    grid.add_row(switch, about)
    return Option(grid, id=status.name, disabled=not status.available)


class ToolsScreen(PickerScreen[list[ToolsetStatus]]):
    """Dismisses with the toolsets switched while it was open (possibly none)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("space", "toggle_toolset", "Switch", show=False),
    ]
    DEFAULT_CSS = """
    ToolsScreen > Vertical { width: 100; }
    ToolsScreen OptionList { max-height: 55vh; }
    ToolsScreen .problem { color: $warning; }
    """

    def __init__(self, source: ToolsetSource, *, on_change: Callable[[ToolsetStatus], None] | None = None):
        super().__init__()
        self.source = source
        self.on_change = on_change
        self.changed: list[ToolsetStatus] = []

    def compose_card(self) -> ComposeResult:
        yield Static(Text("Toolsets of this session", style="bold"))
        yield OptionList(*[toolset_option(s) for s in self.source.statuses()], id="toolsets")
        for problem in self.source.problems():
            yield Static(Text(f"config: {sanitize_display(problem)}"), classes="problem")
        yield Static(Text(NOTE), classes="hint")
        yield Static(Text("↑↓ choose · enter/space switch on/off · esc close"), classes="hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @property
    def options(self) -> OptionList:
        return self.query_one("#toolsets", OptionList)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.switch(event.option.id)

    def action_toggle_toolset(self) -> None:
        option = self.options.highlighted_option
        if option is not None and option.id:
            self.switch(option.id)

    def switch(self, name: str) -> ToolsetStatus:
        """Switch one toolset and redraw every row (a switch can change nothing else, but stay honest)."""
        status = self.source.toggle(name)
        self.changed = [s for s in self.changed if s.name != name] + [status]
        self._refresh(self.source.statuses())
        if self.on_change is not None:
            self.on_change(status)
        return status

    def _refresh(self, statuses: Sequence[ToolsetStatus]) -> None:
        options = self.options
        highlighted = options.highlighted
        options.set_options([toolset_option(s) for s in statuses])
        if highlighted is not None:
            options.highlighted = min(highlighted, options.option_count - 1)

    def action_close(self) -> None:
        self.dismiss(self.changed)

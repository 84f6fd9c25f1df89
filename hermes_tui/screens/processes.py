"""`/ps`: the background processes the agent started, with their status; view one's output or kill it.

The list refreshes every second while the screen is open (`REFRESH`, off for snapshots). The screen shows
data and calls back through `ProcessSource`; it never holds a process itself. Killing asks first (it stops
the whole process group) and runs in a thread worker: SIGTERM may take the grace period to work.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent.api import ProcessInfo, format_elapsed
from hermes_tui.screens.modals import ConfirmModal
from hermes_tui.screens.picker import PickerScreen
from widgets.support.text_safety import sanitize_display

__all__ = ["ProcessSource", "ProcessesScreen", "RegistrySource"]

OUTPUT_LINES = 200
STATE_WIDTH = 13  # " ○ exited (0)": the columns after it line up whatever the state


class ProcessSource(Protocol):
    """What the screen needs from the background processes (`agent.tools.processes.ProcessRegistry`)."""

    def list(self) -> list[ProcessInfo]: ...

    def output(self, process_id: str, lines: int) -> str: ...

    def kill(self, process_id: str) -> bool: ...


class RegistrySource:
    """`ProcessSource` over the process-wide registry."""

    def __init__(self) -> None:
        from agent.api import PROCESSES

        self.registry = PROCESSES

    def list(self) -> list[ProcessInfo]:
        return self.registry.list()

    def output(self, process_id: str, lines: int) -> str:
        bg = self.registry.get(process_id)
        if bg is None:
            return ""
        return "\n".join(bg.output.lines(None, lines)[1])

    def kill(self, process_id: str) -> bool:
        bg = self.registry.get(process_id)
        return bg is not None and self.registry.kill(bg)


def process_option(info: ProcessInfo) -> Option:
    row = Text(no_wrap=True, overflow="ellipsis")
    if info.status == "running":
        row.append(" ● running".ljust(STATE_WIDTH), style="bold")
    else:
        row.append(f" ○ {info.status} ({info.exit_code})".ljust(STATE_WIDTH), style="dim")
    row.append(f" {info.id:<8}", style="bold")
    row.append(f" {format_elapsed(info.runtime):>7} ", style="dim")
    row.append(f" {sanitize_display(' '.join(info.command.split()))}")
    return Option(row, id=info.id)


class ProcessesScreen(PickerScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("k,delete", "kill", "Kill"),
        Binding("r", "refresh", "Refresh", show=False),
    ]
    REFRESH: ClassVar[bool] = True
    CARD_TITLE = "Background processes"
    DEFAULT_CSS = """
    ProcessesScreen > Vertical { width: 110; }
    ProcessesScreen OptionList { max-height: 10; }
    ProcessesScreen #output-box {
        height: auto; max-height: 20; border-top: solid $border-blurred; background: $background;
    }
    ProcessesScreen #output { color: $foreground-muted; }
    """

    def __init__(self, source: ProcessSource) -> None:
        super().__init__()
        self.source = source
        self._infos: list[ProcessInfo] = []

    def compose_card(self) -> ComposeResult:
        yield OptionList(id="processes")
        with VerticalScroll(id="output-box"):
            yield Static(id="output")
        yield Static(
            Text("↑↓ choose · k kill (its whole process group) · r refresh · esc close"), classes="hint"
        )

    def on_mount(self) -> None:
        self.action_refresh()
        self.options.focus()
        if self.REFRESH:
            self.set_interval(1.0, self.action_refresh)

    @property
    def options(self) -> OptionList:
        return self.query_one("#processes", OptionList)

    @property
    def selected(self) -> str | None:
        option = self.options.highlighted_option
        return option.id if option is not None else None

    def action_refresh(self) -> None:
        infos = self.source.list()
        if infos != self._infos:
            current = self.selected
            self._infos = infos
            options = self.options
            options.set_options([process_option(i) for i in infos])
            if infos:
                ids = [i.id for i in infos]
                options.highlighted = ids.index(current) if current in ids else len(ids) - 1
        self._show_output()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._show_output()

    def _show_output(self) -> None:
        output = self.query_one("#output", Static)
        process_id = self.selected
        if not self._infos:
            output.update(
                Text("No background processes. The agent starts one with terminal(background=true).")
            )
            return
        if process_id is None:
            return
        text = self.source.output(process_id, OUTPUT_LINES)
        output.update(Text(sanitize_display(text) if text else "(no output yet)"))
        self.query_one("#output-box", VerticalScroll).scroll_end(animate=False)

    def action_kill(self) -> None:
        process_id = self.selected
        info = next((i for i in self._infos if i.id == process_id), None)
        if info is None or info.status != "running":
            self.notify("Nothing to kill: choose a running process.", severity="warning")
            return

        def confirmed(yes: bool | None) -> None:
            if yes:
                self._kill(info.id)

        self.app.push_screen(
            ConfirmModal(
                "Kill process",
                Text(f"Kill {info.id}: {' '.join(info.command.split())}?"),
                confirm_label="Kill",
                note="SIGTERM to its whole process group, then SIGKILL after 2 s.",
            ),
            confirmed,
        )

    @work(thread=True, group="ps-kill")
    def _kill(self, process_id: str) -> None:
        killed = self.source.kill(process_id)
        self.app.call_from_thread(self._after_kill, process_id, killed)

    def _after_kill(self, process_id: str, killed: bool) -> None:
        self.notify(f"Killed {process_id}." if killed else f"{process_id} had already exited.")
        self.action_refresh()

"""`/mcp`: every configured MCP server, connected or its error, its tools and its last call.

The screen reads the servers' status from a source (the app's `McpService`) and redraws when the app tells
it something changed, so a server that connects while it is open shows up. `r` reconnects them all after
a change to config.yaml (as `/mcp reload` does); the file is also watched, so a save is picked up anyway.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import ClassVar, Protocol

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static

from agent.api import NO_MCP_SERVERS as NO_SERVERS
from agent.api import ServerStatus
from agent.api import mcp_server_lines as server_lines
from widgets.cards.look import card_css
from widgets.support.text_safety import component_text_style, sanitize_display

__all__ = ["McpScreen", "McpSource", "ServerList"]


class McpSource(Protocol):
    def statuses(self) -> list[ServerStatus]: ...

    def reload(self) -> None: ...


class ServerList(Widget):
    """The servers as `agent.mcp.report` words them; the first line of each coloured by its state."""

    DEFAULT_CSS = """
    ServerList {
        height: auto;
        & > .mcp--connected { color: $success; text-style: bold; }
        & > .mcp--pending { color: $foreground; text-style: bold; }
        & > .mcp--off { color: $text-muted; text-style: bold; }
        & > .mcp--trouble { color: $error; text-style: bold; }
        & > .mcp--error { color: $text-error; }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "mcp--connected",
        "mcp--pending",
        "mcp--off",
        "mcp--trouble",
        "mcp--error",
    }
    _HEAD: ClassVar[dict[str, str]] = {
        "connected": "connected",
        "connecting": "pending",
        "disabled": "off",
        "stopped": "off",
    }

    def __init__(self, statuses: Sequence[ServerStatus], now: float, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.statuses = list(statuses)
        self.now = now

    def show(self, statuses: Sequence[ServerStatus], now: float) -> None:
        self.statuses, self.now = list(statuses), now
        self.refresh(layout=True)

    def render(self) -> Text:
        if not self.statuses:
            return Text(NO_SERVERS)
        out = Text()
        for number, status in enumerate(self.statuses):
            if number:
                out.append("\n\n")
            lines = [sanitize_display(line) for line in server_lines(status, self.now)]
            head = self._HEAD.get(status.state, "trouble")
            out.append(lines[0], style=component_text_style(self, f"mcp--{head}"))
            for line in lines[1:]:
                out.append("\n")
                error = line.lstrip().startswith("error:")
                out.append(line, style=component_text_style(self, "mcp--error") if error else "")
        return out


class McpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("r", "reload", "Reconnect"),
    ]
    DEFAULT_CSS = (
        card_css("McpScreen > Vertical")
        + """
    McpScreen { align: center middle; }
    McpScreen > Vertical { width: 100; max-width: 100%; height: auto; max-height: 90%; padding: 0 1; }
    McpScreen VerticalScroll { height: auto; max-height: 70vh; }
    McpScreen .hint { color: $foreground-muted; }
    """
    )

    def __init__(self, source: McpSource, *, clock: Callable[[], float] = time.time) -> None:
        super().__init__()
        self.source = source
        self.clock = clock

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("MCP servers", style="bold"), id="mcp-title")
            with VerticalScroll():
                yield ServerList(self.source.statuses(), self.clock(), id="mcp-servers")
            yield Static(Text("r reconnect after editing config.yaml · esc close"), classes="hint")

    def refresh_servers(self) -> None:
        """A server changed (the app calls this on `McpChanged`)."""
        if self.is_mounted:
            self.refresh(recompose=True)  # the card's height follows the list (an update alone kept it)

    def action_reload(self) -> None:
        self.source.reload()
        self.notify("Reconnecting the MCP servers…", title="MCP", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)

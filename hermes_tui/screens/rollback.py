"""`/rollback`: pick a checkpoint of this session, confirm, restore. The current state is backed up first."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, OptionList, Static
from textual.widgets.option_list import Option

from widgets.card import card_css

if TYPE_CHECKING:
    from agent.checkpoints import Checkpoint


class ConfirmRestore(ModalScreen[bool]):
    """Cancel is focused first: a stray Enter never overwrites files."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "cancel", "Cancel"),
        Binding("y", "confirm", "Restore"),
    ]
    DEFAULT_CSS = """
    ConfirmRestore { align: center middle; }
    ConfirmRestore > Vertical {
        width: 70; max-width: 100%; height: auto; padding: 1 2;
        border: round $warning; background: $surface;
    }
    ConfirmRestore Horizontal { height: auto; margin-top: 1; align: right middle; }
    ConfirmRestore Button { margin-left: 1; }
    """

    def __init__(self, description: str) -> None:
        super().__init__()
        self.description = description

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Restore this checkpoint?", style="bold"))
            yield Static(Text(self.description))
            yield Static(
                Text("Files are written back as they were; the current state is saved first.", style="dim")
            )
            with Horizontal():
                yield Button("Restore (y)", id="restore", variant="warning")
                yield Button("Cancel (n)", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "restore")

    def action_cancel(self) -> None:
        self.dismiss(False)

    def action_confirm(self) -> None:
        self.dismiss(True)


class RollbackScreen(ModalScreen[str | None]):
    """Lists checkpoints newest first; dismisses with the chosen checkpoint id once confirmed."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]
    DEFAULT_CSS = (
        card_css("RollbackScreen > Vertical")
        + """
    RollbackScreen { align: center middle; }
    RollbackScreen > Vertical {
        width: 90; max-width: 100%; height: auto; max-height: 80%; padding: 1 2;
    }
    RollbackScreen OptionList { height: auto; max-height: 20; border: none; background: transparent; }
    RollbackScreen .hint { color: $foreground-muted; }
    """
    )

    def __init__(self, checkpoints: list[Checkpoint]) -> None:
        super().__init__()
        self.checkpoints = checkpoints

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Checkpoints of this session", style="bold"))
            if not self.checkpoints:
                yield Static(
                    Text("None yet: one is saved before the first file change of each step."), classes="hint"
                )
            else:
                yield OptionList(*[Option(Text(c.describe()), id=c.id) for c in self.checkpoints])
            yield Static(Text("↑↓ choose · enter restore · esc close"), classes="hint")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        checkpoint = next(c for c in self.checkpoints if c.id == event.option.id)

        def confirmed(ok: bool | None) -> None:
            if ok:
                self.dismiss(checkpoint.id)

        self.app.push_screen(ConfirmRestore(checkpoint.describe()), confirmed)

    def action_close(self) -> None:
        self.dismiss(None)

"""`/rollback`: pick a checkpoint of this session, confirm, restore. The current state is backed up first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from hermes_tui.screens.modals import ConfirmModal
from hermes_tui.screens.picker import PickerScreen

if TYPE_CHECKING:
    from agent.api import Checkpoint


def confirm_restore(description: str) -> ConfirmModal:
    """Cancel is focused first: a stray Enter never overwrites files."""
    return ConfirmModal(
        "Restore checkpoint",
        Text(f"Restore this checkpoint?\n{description}"),
        confirm_label="Restore",
        variant="warning",
        note="Files are written back as they were; the current state is saved first.",
    )


class RollbackScreen(PickerScreen[str | None]):
    """Lists checkpoints newest first; dismisses with the chosen checkpoint id once confirmed."""

    DEFAULT_CSS = """
    RollbackScreen > Vertical { width: 90; max-height: 80%; padding: 1 2; }
    RollbackScreen OptionList { max-height: 20; }
    """

    def __init__(self, checkpoints: list[Checkpoint]) -> None:
        super().__init__()
        self.checkpoints = checkpoints

    def compose_card(self) -> ComposeResult:
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

        self.app.push_screen(confirm_restore(checkpoint.describe()), confirmed)

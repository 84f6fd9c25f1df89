"""The app's two dialogs: `ConfirmModal` (a yes/no question) and `PromptModal` (one line of text).

Every confirmation (delete a session, restore a checkpoint) and every one-line question (rename, export
path) is one of these, configured, so they look and behave the same everywhere: a card over the screen,
Escape cancels, text is shown as text (never markup).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

__all__ = ["ConfirmModal", "PromptIssue", "PromptModal"]

_DIALOG_CSS = """
    align: center middle;
    & > #dialog {
        width: 72;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        border: round $primary;
        border-title-color: $primary;
        border-title-style: bold;
        background: $surface;
        padding: 1 2 0 2;
    }
    &.-warning > #dialog { border: round $warning; border-title-color: $warning; }
    & .dialog-text { width: 1fr; height: auto; }
    & .dialog-hint { color: $text-muted; height: auto; margin-top: 1; }
    & .dialog-error { color: $error; height: auto; display: none; }
    & .dialog-error.-visible { display: block; }
    & #prompt-preview { margin-top: 0; display: none; }
    & #prompt-preview.-visible { display: block; }
    & .dialog-warning { color: $warning; }
    & Input { margin-top: 1; }
    & #buttons { height: auto; align-horizontal: right; margin-top: 1; }
    & Button { margin-left: 2; }
"""


def _as_text(value: str | Text) -> Text:
    return value if isinstance(value, Text) else Text(value)


class ConfirmModal(ModalScreen[bool]):
    """A question with Cancel focused first, so a stray Enter never does the irreversible thing.

    Dismisses True only for the confirm button or `y`; Cancel, `n` and Escape give False.

    Args:
        title: the card's title ("Delete session").
        message: the question, as text (a `Text` keeps its styles; a `str` is never read as markup).
        confirm_label: the confirm button ("Delete", "Restore").
        variant: the confirm button's colour; "warning" also colours the card.
        note: a muted line under the question (what happens, whether it can be undone).
    """

    DEFAULT_CSS = "ConfirmModal {" + _DIALOG_CSS + "}"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "cancel", "Cancel", show=False),
        Binding("y", "confirm", "Confirm", show=False),
        Binding("left", "app.focus_previous", show=False),
        Binding("right", "app.focus_next", show=False),
    ]
    AUTO_FOCUS = "#cancel"

    def __init__(
        self,
        title: str,
        message: str | Text,
        *,
        confirm_label: str,
        variant: Literal["error", "warning", "primary"] = "error",
        note: str | Text | None = None,
    ) -> None:
        super().__init__(classes="-warning" if variant == "warning" else None)
        self.title_text = title
        self.message = _as_text(message)
        self.confirm_label = confirm_label
        self.variant: Literal["error", "warning", "primary"] = variant
        self.note = None if note is None else _as_text(note)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = self.title_text
            yield Static(self.message, classes="dialog-text")
            if self.note is not None:
                yield Static(self.note, classes="dialog-hint")
            with Horizontal(id="buttons"):
                yield Button("Cancel", id="cancel")
                yield Button(self.confirm_label, id="confirm", variant=self.variant)
            yield Static(Text(f"y {self.confirm_label.lower()} · esc cancel"), classes="dialog-hint")

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm")

    def action_cancel(self) -> None:
        self.dismiss(False)

    def action_confirm(self) -> None:
        self.dismiss(True)


@dataclass(frozen=True)
class PromptIssue:
    """Why a value cannot be taken as it is: an error to fix, or (`confirm`) a warning that a second
    Enter on the same value accepts."""

    message: str
    confirm: bool = False


class PromptModal(ModalScreen[Any]):
    """Asks for one line of text; dismisses with `result(value)` on Enter, None on Escape.

    Subclasses refine it with `check()` (refuse a value or ask for a second Enter) and `result()` (what
    the caller gets: the text itself by default).

    Args:
        title: the card's title.
        value: the initial text.
        placeholder: shown while the field is empty.
        hint: a muted line under the field (the keys, what an empty value means).
        cursor_at_end: put the cursor after the initial text when the dialog opens.
    """

    DEFAULT_CSS = "PromptModal {" + _DIALOG_CSS + "}"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", show=False)]
    AUTO_FOCUS = "#prompt-input"

    def __init__(
        self,
        title: str,
        value: str = "",
        *,
        placeholder: str = "",
        hint: str = "enter ok · esc cancel",
        cursor_at_end: bool = False,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.initial = value
        self.placeholder = placeholder
        self.hint = hint
        self.cursor_at_end = cursor_at_end
        self._warned: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as dialog:
            dialog.border_title = self.title_text
            yield Input(
                value=self.initial,
                placeholder=self.placeholder,
                id="prompt-input",
                select_on_focus=True,
            )
            preview = self.preview(self.initial)
            yield Static(
                Text(preview), id="prompt-preview", classes="dialog-hint" + (" -visible" if preview else "")
            )
            yield Static("", id="prompt-error", classes="dialog-error")
            yield Static(Text(self.hint), classes="dialog-hint")

    def on_mount(self) -> None:
        if self.cursor_at_end:
            field = self.query_one(Input)
            field.cursor_position = len(field.value)

    def preview(self, value: str) -> str:
        """A muted line under the field, updated as the user types (what the value will mean); "" for none."""
        return ""

    def check(self, value: str) -> PromptIssue | None:
        """None when `value` can be taken; override to validate."""
        return None

    def result(self, value: str) -> Any:
        """What the dialog dismisses with for an accepted `value`."""
        return value

    def show_issue(self, issue: PromptIssue) -> None:
        label = self.query_one("#prompt-error", Static)
        label.update(Text(issue.message))
        label.set_class(True, "-visible")
        label.set_class(issue.confirm, "dialog-warning")

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self._warned = None
        self.query_one("#prompt-error", Static).set_class(False, "-visible")
        preview = self.preview(event.value)
        shown = self.query_one("#prompt-preview", Static)
        shown.update(Text(preview))
        shown.set_class(bool(preview), "-visible")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value
        issue = self.check(value)
        if issue is not None and not (issue.confirm and self._warned == value):
            self._warned = value if issue.confirm else None
            self.show_issue(issue)
            return
        self.dismiss(self.result(value))

    def action_cancel(self) -> None:
        self.dismiss(None)

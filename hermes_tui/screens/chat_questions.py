"""The agent's questions as widgets: a clarify card above the queue, an approval dialog (a modal).

The controller decides when each shows (never while the user types) and what an answer does; this module
only makes the widgets and hands the controller their answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from agent.api import ApprovalAnswer, ApprovalDecision
from widgets.approval_dialog import ApprovalDialog
from widgets.clarify_prompt import ClarifyPrompt

if TYPE_CHECKING:
    from textual.app import App

    from hermes_tui.bridge import ApprovalAsked, ClarifyAsked
    from hermes_tui.chat_controller import ChatController
    from widgets.prompt_input import PromptInput

__all__ = ["QuestionHost", "QuestionPresenter"]


class QuestionHost(Protocol):
    """The chat screen as the questions see it (read when a question comes, not when the chat is built)."""

    FREEZE_QUESTIONS: ClassVar[bool]
    """Countdowns stopped, for snapshots."""

    @property
    def app(self) -> App[Any]: ...

    @property
    def controller(self) -> ChatController: ...

    @property
    def prompt_input(self) -> PromptInput: ...


class QuestionPresenter:
    """Makes the question widgets for one chat."""

    def __init__(self, host: QuestionHost) -> None:
        self._host = host

    def clarify(self, message: ClarifyAsked) -> None:
        card = ClarifyPrompt(message.request, frozen=self._host.FREEZE_QUESTIONS)
        self._host.controller.clarify_asked(message.reply, card)

    def approval(self, message: ApprovalAsked) -> None:
        host = self._host
        # What the user goes on typing while the dialog is up is their message, never an answer.
        dialog = ApprovalDialog(
            message.request, frozen=host.FREEZE_QUESTIONS, aside=host.prompt_input.take_typing
        )
        controller = host.controller

        def decided(decision: ApprovalDecision | ApprovalAnswer | None) -> None:
            controller.approval_decided(message.reply, decision, interrupted=dialog.interrupted)

        controller.approval_asked(message.reply, lambda: host.app.push_screen(dialog, decided))

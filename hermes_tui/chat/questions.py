"""The agent's questions as widgets: a clarify card above the queue, an approval dialog (a modal).

The controller decides when each shows (never while the user types) and what an answer does; this module
only makes the widgets and hands the controller their answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.api import ApprovalAnswer, ApprovalDecision
from hermes_tui.screens.approval import ApprovalDialog
from widgets.clarify_prompt import ClarifyPrompt

if TYPE_CHECKING:
    from hermes_tui.chat.bridge import ApprovalAsked, ClarifyAsked
    from hermes_tui.chat.parts import ChatParts

__all__ = ["QuestionPresenter"]


class QuestionPresenter:
    """Makes the question widgets for one chat."""

    def __init__(self, host: ChatParts) -> None:
        """`host`: the chat, read when a question comes, not when the chat is built."""
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

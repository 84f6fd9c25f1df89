"""The agent's questions as widgets: a clarify card above the queue, an approval dialog (a modal).

The controller decides when each shows (never while the user types) and what an answer does; this module
only makes the widgets and hands the controller their answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agent.api import ApprovalAnswer, ApprovalDecision
from widgets.approval_dialog import ApprovalDialog
from widgets.clarify_prompt import ClarifyPrompt

if TYPE_CHECKING:
    from textual.app import App

    from hermes_tui.chat.bridge import ApprovalAsked, ClarifyAsked
    from hermes_tui.chat.controller import ChatController

__all__ = ["QuestionPresenter"]


class QuestionPresenter:
    """Makes the question widgets for one chat (`frozen`: countdowns stopped, for snapshots)."""

    def __init__(
        self,
        app: Callable[[], App[object]],
        controller: Callable[[], ChatController],
        frozen: Callable[[], bool],
    ) -> None:
        self._app = app
        self._controller = controller
        self._frozen = frozen

    def clarify(self, message: ClarifyAsked) -> None:
        card = ClarifyPrompt(message.request, frozen=self._frozen())
        self._controller().clarify_asked(message.reply, card)

    def approval(self, message: ApprovalAsked) -> None:
        dialog = ApprovalDialog(message.request, frozen=self._frozen())
        controller = self._controller()

        def decided(decision: ApprovalDecision | ApprovalAnswer | None) -> None:
            controller.approval_decided(message.reply, decision, interrupted=dialog.interrupted)

        controller.approval_asked(message.reply, lambda: self._app().push_screen(dialog, decided))

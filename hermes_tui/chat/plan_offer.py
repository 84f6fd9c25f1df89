"""After a plan-mode turn that ended with the model's plan: the plan card, and what its answer does.

"Switch to default / ask and go" sets the session's mode (`hermes_tui.commands.modes.set_mode`) and sends
the go-ahead at once (`agent.api.go_ahead_text`, through the controller like any message), so the very next
request is made in the chosen mode; "keep planning" (or Esc) leaves plan mode on. A message the user sends
while the card is up withdraws it: they answered by writing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget

from hermes_tui.commands.modes import set_mode
from widgets.cards.plan import PlanCard
from widgets.queued_messages import QueuedMessages

if TYPE_CHECKING:
    from agent.api import TurnFinished
    from hermes_tui.chat.parts import ChatParts
    from hermes_tui.commands.base import CommandContext

__all__ = ["PlanOffer"]


class PlanOffer:
    """Offers the plan card for one chat and carries out its answer (UI thread only)."""

    def __init__(self, host: ChatParts, context: CommandContext) -> None:
        self._host = host
        self._context = context
        self.card: PlanCard | None = None

    def turn_finished(self, event: TurnFinished) -> None:
        """Offer the card when a plan-mode turn ended with a reply and nothing else starts now (a queued
        message or a steer being sent is the user's next word already)."""
        host = self._host
        agent = host.session.built
        if agent is None or agent.permission_mode.value != "plan":
            return
        if event.exit_reason != "completed" or event.error or not event.final_text.strip() or host.busy:
            return
        self.withdraw()
        card = PlanCard(
            aside=host.prompt_input.take_typing,
            take_focus=not host.prompt_input.text,  # nobody is typing: the card takes the keyboard
            frozen=host.FREEZE_QUESTIONS,
            id="plan-card",
        )
        self.card = card
        bottom = host.query_one("#bottom")
        assert isinstance(bottom, Widget)
        bottom.mount(card, before=bottom.query_one(QueuedMessages))

    def chosen(self, message: PlanCard.Chosen) -> None:
        if message.card is not self.card:
            return
        self._remove()
        context = self._context
        if message.mode is None:
            context.transcript.add_notice("info", "Still in plan mode: say what the plan should change.")
            context.focus_prompt()
            return
        from agent.api import go_ahead_text, parse_mode

        mode = parse_mode(message.mode)
        set_mode(context, mode)
        context.controller.submit(go_ahead_text(mode))
        context.focus_prompt()

    def withdraw(self) -> None:
        """A message was sent meanwhile (or a new turn offers a new card): the card goes, plan mode stays."""
        self._remove()

    def _remove(self) -> None:
        card, self.card = self.card, None
        if card is not None and card.is_attached:
            card.remove()

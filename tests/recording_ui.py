"""`RecordingUI`: the engine's `AgentUI` for tests (keeps every event, answers from fixed values)."""

from __future__ import annotations

import threading
from typing import TypeVar

from agent.core.events import AgentEvent
from agent.core.ui import ApprovalDecision, ApprovalRequest, ClarifyRequest, NullUI

_E = TypeVar("_E", bound=AgentEvent)


class RecordingUI(NullUI):
    """Keeps every event, for tests. Answers come from optional callables."""

    interactive = True

    def __init__(self, clarify_answer: str | None = None, approval: ApprovalDecision = ApprovalDecision.DENY):
        self.events: list[AgentEvent] = []
        self._lock = threading.Lock()
        self.clarify_answer = clarify_answer
        self.approval = approval
        self.clarify_requests: list[ClarifyRequest] = []
        self.approval_requests: list[ApprovalRequest] = []

    def on_event(self, event: AgentEvent) -> None:
        with self._lock:
            self.events.append(event)

    def of_type(self, kind: type[_E]) -> list[_E]:
        with self._lock:
            return [e for e in self.events if isinstance(e, kind)]

    def ask_clarify(self, request: ClarifyRequest) -> str | None:
        self.clarify_requests.append(request)
        return self.clarify_answer

    def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        self.approval_requests.append(request)
        return self.approval

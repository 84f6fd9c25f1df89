"""Events the agent loop emits. Small frozen dataclasses: the UI renders them, it never reaches back in.

Every event is emitted from the agent thread (or a tool worker thread) through `AgentUI.on_event`; a UI must
hand them over to its own thread before touching widgets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.core.messages import Usage


@dataclass(frozen=True)
class AgentEvent:
    """Base class, so a UI can `isinstance`-dispatch or log any event."""


@dataclass(frozen=True)
class TurnStarted(AgentEvent):
    session_id: str
    user_message: str


@dataclass(frozen=True)
class ApiCallStarted(AgentEvent):
    """A model call starts: the UI shows its spinner until FirstDelta."""

    iteration: int
    model: str
    max_iterations: int


@dataclass(frozen=True)
class FirstDelta(AgentEvent):
    """The first text, reasoning or tool-call delta of a model call arrived: stop the spinner."""


@dataclass(frozen=True)
class TextDelta(AgentEvent):
    text: str


@dataclass(frozen=True)
class ReasoningDelta(AgentEvent):
    text: str


@dataclass(frozen=True)
class ToolCallStarted(AgentEvent):
    """The model started emitting a tool call; arguments are still streaming ("preparing terminal...")."""

    index: int
    name: str
    call_id: str = ""


@dataclass(frozen=True)
class AssistantMessageDone(AgentEvent):
    """A model call finished and its message was persisted."""

    text: str
    reasoning: str | None
    tool_calls: tuple[tuple[str, str, str], ...]  # (id, name, arguments JSON)
    finish_reason: str | None
    usage: Usage | None = None


@dataclass(frozen=True)
class ToolStarted(AgentEvent):
    call_id: str
    name: str
    arguments: dict[str, Any]
    summary: str
    index: int = 0


@dataclass(frozen=True)
class ToolOutput(AgentEvent):
    """A chunk of a running tool's output (terminal stdout/stderr as it is produced)."""

    call_id: str
    chunk: str


@dataclass(frozen=True)
class ToolProgress(AgentEvent):
    """A running tool's own account of its progress (an MCP server's progress notifications): `progress`
    of `total` (None: unknown) and what it is doing now."""

    call_id: str
    progress: float
    total: float | None = None
    message: str = ""


@dataclass(frozen=True)
class ToolFinished(AgentEvent):
    call_id: str
    name: str
    status: str  # ok | error | cancelled | denied
    duration: float
    result: str
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass(frozen=True)
class TodoUpdated(AgentEvent):
    items: tuple[dict[str, str], ...]


@dataclass(frozen=True)
class StatusNotice(AgentEvent):
    """A one-line notice for the user: retries, budget, continuation, compression, warnings."""

    kind: str  # info | warn | error | retry
    text: str


@dataclass(frozen=True)
class UsageUpdated(AgentEvent):
    """After each model call: that call's usage and the session's running totals."""

    call: Usage
    session: Usage
    context_tokens: int
    context_window: int
    cost: float | None = None  # this call's, in USD; None when its price is unknown
    session_cost: float | None = None  # the session's priced calls, in USD (None: not reported)
    session_unknown_calls: int = 0  # calls of the session whose price is unknown


@dataclass(frozen=True)
class TurnFinished(AgentEvent):
    """The turn ended. `exit_reason` is one of `agent.core.exit_reasons` (or `error:<reason>`); `error` is
    the one line that says why a turn did not complete (shown once: the loop emits no separate notice for it);
    `marker` says that the reply on screen is not whole (`agent.core.exit_reasons.reply_marker`)."""

    exit_reason: str
    final_text: str
    usage: Usage
    error: str | None = None
    pending_steer: str | None = None
    marker: str | None = None  # the last reply was kept unfinished: the line shown under it
    rewritten: bool = False  # a plugin replaced the final answer (Hermes' transform_llm_output)


@dataclass(frozen=True)
class StreamDiscarded(AgentEvent):
    """A failed attempt's partial reply is thrown away before a retry: the UI clears what it showed."""

    reason: str


@dataclass(frozen=True)
class StreamStalled(AgentEvent):
    """The model call has sent nothing for `seconds` (no first token yet, or a reply that stopped): the UI
    says so instead of only counting. The stale timeout and the retry policy are the loop's business."""

    seconds: float


@dataclass(frozen=True)
class StreamResumed(AgentEvent):
    """Data arrived again after a `StreamStalled`."""


@dataclass(frozen=True)
class SteerDelivered(AgentEvent):
    """A steer the user sent during the turn reached the model (appended to a tool result)."""

    text: str


# ------------------------------------------------------------------ subagents (delegate_task)
# A child agent's events never reach the parent's transcript as they are (its text is not the parent's reply):
# they arrive wrapped, addressed to the parent's `delegate_task` call, and the UI nests them in its panel.


@dataclass(frozen=True)
class ChildStarted(AgentEvent):
    """A subagent of the `delegate_task` call `call_id` started (`child`: its task's index in the call)."""

    call_id: str
    child: int
    goal: str
    session_id: str = ""
    model: str = ""
    # What the nested list calls it: "" for a subagent ("subagent 2"), "script" for execute_code's script.
    label: str = ""


@dataclass(frozen=True)
class ChildEvent(AgentEvent):
    """One event of a running subagent (its tool calls, notices, a throttled slice of its text)."""

    call_id: str
    child: int
    event: AgentEvent


@dataclass(frozen=True)
class ChildFinished(AgentEvent):
    """A subagent ended: `status` is its turn's exit reason (completed, interrupted, error:..., ...)."""

    call_id: str
    child: int
    status: str
    summary: str  # the start of its final answer, one line
    api_calls: int = 0
    tool_calls: int = 0
    duration: float = 0.0
    error: str | None = None

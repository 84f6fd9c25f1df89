"""The AgentUI protocol: how the loop talks to whoever is watching (the TUI bridge, the headless runner).

`ask_clarify` and `ask_approval` block the calling (agent or tool) thread. Implementations must return when
`request.cancel` is set (interrupt) or the timeout passes, so no thread ever waits forever: wait in short
slices, never on a bare `Future.result()`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from agent.core.events import AgentEvent


class ApprovalDecision(StrEnum):
    ONCE = "once"
    SESSION = "session"
    ALWAYS = "always"
    DENY = "deny"
    TIMEOUT = "timeout"


@dataclass(frozen=True)
class ApprovalAnswer:
    """A decision with the allow rule the user settled on: "always" saves `rule` (as the user edited it)
    instead of the request's. A UI may answer with a bare `ApprovalDecision` instead."""

    decision: ApprovalDecision
    rule: str = ""
    reason: str = ""
    """With a denial: the user's words for the model (why not, what to do instead)."""


@dataclass(frozen=True)
class ClarifyRequest:
    question: str
    choices: tuple[str, ...]
    timeout: float
    cancel: threading.Event = field(default_factory=threading.Event, compare=False)
    free_text_first: bool = False
    """The answer is usually typed (an MCP form's text field): the card opens on its input, the choices
    (Decline, Skip) one Esc away."""


@dataclass(frozen=True)
class ApprovalRequest:
    command: str
    reasons: tuple[str, ...]
    pattern_keys: tuple[str, ...]
    timeout: float
    tool_name: str = "terminal"
    # What the allowlist is matched against, and the rule a bare "always" saves (the exact command).
    rule: str = ""
    # The rule offered for editing when the user picks "always" (`git push *`): "" = `rule`.
    suggested_rule: str = ""
    allow_permanent: bool = True
    cancel: threading.Event = field(default_factory=threading.Event, compare=False)
    # What is asked about ("command", "file write", "MCP tool call") and who asks ("" = the agent itself,
    # else a subagent's label such as "subagent 2: check the tests").
    subject: str = "command"
    origin: str = ""
    # A file edit's unified diff (ask mode shows what the edit changes before it is made); "" otherwise.
    diff: str = ""


class AgentUI(Protocol):
    """A UI may say `interactive = False` (no one can answer a question: `hermes-tui -z`); without the
    attribute it is taken as interactive. What a server asks of the user (MCP elicitation, sampling) follows
    Hermes' behaviour for a session nobody watches then, instead of a question that cannot be answered."""

    def on_event(self, event: AgentEvent) -> None: ...

    def ask_clarify(self, request: ClarifyRequest) -> str | None:
        """The user's answer, or None when there was none (cancelled, timed out, no UI)."""
        ...

    def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision | ApprovalAnswer: ...


class NullUI:
    """Collects nothing, asks nobody: clarify gets no answer, risky actions are denied (fail closed)."""

    interactive = False

    def on_event(self, event: AgentEvent) -> None:
        pass

    def ask_clarify(self, request: ClarifyRequest) -> str | None:
        return None

    def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision:
        return ApprovalDecision.DENY

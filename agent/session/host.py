"""What a turn reads and changes of its session: the seam between `Session` and the turn's modules.

`agent.session.session` builds turns; the turn, its model calls and the writer of its replies see the
session only through `TurnHost` (a Protocol, so they do not import the session module back).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Protocol

from agent.config.settings import Settings
from agent.core.budget import IterationBudget
from agent.core.errors import ClassifiedError
from agent.core.messages import Message, Usage
from agent.core.permission_mode import PermissionMode
from agent.core.ui import AgentUI
from agent.usage.pricing import CostTotal

if TYPE_CHECKING:
    from agent.approval import ApprovalGate
    from agent.checkpoints import CheckpointManager
    from agent.environments import Environment
    from agent.hooks import ShellHooks
    from agent.plugins import PluginManager
    from agent.session.compression import Compressor
    from agent.session.context_window import WindowLearner
    from agent.session.nudges import LearningNudges
    from agent.session.route import ProviderRoute
    from agent.session.trajectory import TrajectoryWriter
    from agent.skills.library import SkillLibrary
    from agent.store import SessionStoreProtocol
    from agent.toolkit.executor import ToolExecutor
    from agent.toolkit.registry import ToolRegistry
    from agent.toolkit.state import SessionState
    from agent.toolkit.toolsets import SessionToolsets

__all__ = ["TurnHost"]


class TurnHost(Protocol):
    settings: Settings
    ui: AgentUI
    store: SessionStoreProtocol | None
    session_id: str
    messages: list[Message]
    interrupt_event: threading.Event
    route: ProviderRoute
    window: WindowLearner  # the model's window, learnt of its server when the configuration gives none
    budget: IterationBudget
    compressor: Compressor
    toolsets: SessionToolsets
    skills: SkillLibrary
    nudges: LearningNudges
    plugins: PluginManager
    hooks: ShellHooks
    state: SessionState
    registry: ToolRegistry

    @property
    def permission_mode(self) -> PermissionMode: ...

    executor: ToolExecutor
    approvals: ApprovalGate | None
    checkpoints: CheckpointManager | None
    trajectory: TrajectoryWriter | None
    session_usage: Usage
    session_cost: CostTotal
    last_context_tokens: int
    images_shrunk: bool  # a provider refused an image as too large: they go smaller from now on
    window_noted: bool  # a small known window's share taken by the tools and the prompt was said (per model)
    wire_nudge: list[dict[str, Any]]  # wire-only turns asking again after an empty reply
    last_exit: str | None  # why the last turn ended (a resumed session's too): an interrupt is told
    title_settled: bool  # a rewind back to the first message does not ask for a new title

    @property
    def context_window(self) -> int: ...

    @property
    def environment(self) -> Environment:
        """Where its tools run (agent.environments), opened before the turn's first request."""

    def begin_turn(self) -> None:
        """Per-turn state back to a turn's start (budget, compressions, the primary provider)."""

    def ensure_session(self, first_message: str) -> None:
        """The system prompt (built once) and the session's row and services, before its first message."""

    def append(self, message: Message) -> None:
        """A message into the session and the store."""

    def set_status(self, status: str) -> None: ...

    def take_steer(self) -> str:
        """What the user sent while the turn worked, not yet delivered ("" when nothing)."""

    def wire_messages(self) -> list[dict[str, Any]]:
        """The next request's messages as the model will see them."""

    def activate_fallback(self, error: ClassifiedError) -> bool:
        """The next fallback provider for the rest of the turn (saying so); False when there is none."""

    def backoff_wait(self, delay: float) -> bool:
        """Sleep before a retry; True when the user interrupted meanwhile."""

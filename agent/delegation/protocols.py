"""The seam between `delegate_task` and the agent loop: what a subagent must offer, and how one is made.

The loop hands its own class to tools as `ToolContext.new_agent` (this module cannot import the loop: the
loop imports the tools), so the tool builds children through `AgentFactory` and uses them as `SubAgent`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agent.config.settings import Settings
    from agent.core.permission_mode import PermissionMode
    from agent.core.ui import AgentUI
    from agent.environments import Environment
    from agent.store import SessionStoreProtocol
    from agent.toolkit.registry import Tool, ToolRegistry

__all__ = ["AgentFactory", "SubAgent", "SubAgentToolsets", "SubAgentTurn"]


class SubAgentTurn(Protocol):
    exit_reason: str
    final_text: str
    api_calls: int
    session_id: str

    @property
    def error(self) -> Any: ...


class SubAgentToolsets(Protocol):
    def active_tools(self) -> list[Tool]: ...


class SubAgent(Protocol):
    settings: Settings
    registry: ToolRegistry
    toolsets: SubAgentToolsets
    session_id: str
    system_prompt: str
    permission_mode: PermissionMode

    def run_conversation(self, user_message: str) -> SubAgentTurn: ...

    def interrupt(self) -> None: ...

    def close(self) -> None: ...


class AgentFactory(Protocol):
    def __call__(
        self,
        settings: Settings,
        *,
        ui: AgentUI | None = None,
        store: SessionStoreProtocol | None = None,
        source: str = "tui",
        environment: Environment | None = None,
    ) -> SubAgent: ...

"""`SessionStoreProtocol`: what the engine (the loop, the approval gate, tools) and the UI (screens,
export) may call on a store. They type against this, not against `SessionStore`, so a seam is explicit and
a test double or another backend only has to provide these methods."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol, runtime_checkable

from agent.core.messages import Message, Usage
from agent.store.query import SearchQuery
from agent.store.records import LoadedSession, SearchHit, SessionInfo
from agent.store.usage import UsageRow

__all__ = ["SessionStoreProtocol"]


@runtime_checkable
class SessionStoreProtocol(Protocol):
    read_only: str | None
    """Why the store only reads (shown to the user: sending is refused), or None when it takes writes."""

    # sessions
    def create_session(
        self,
        *,
        model: str,
        provider: str,
        cwd: str,
        system_prompt: str,
        base_url: str = "",
        title: str | None = None,
        source: str = "tui",
        parent_session_id: str | None = None,
        parent_message_id: int | None = None,
    ) -> str: ...
    def get_session(self, session_id: str) -> SessionInfo | None: ...
    def list_sessions(
        self, limit: int = 100, offset: int = 0, cwd: str | None = None
    ) -> list[SessionInfo]: ...
    def latest_session(self, cwd: str | None = None) -> SessionInfo | None: ...
    def resolve(self, id_or_title: str) -> SessionInfo | None: ...
    def find_sessions(self, id_or_title: str, limit: int = 20) -> list[SessionInfo]: ...
    def adopt(self, session_id: str) -> str: ...
    def set_title(self, session_id: str, title: str) -> str: ...
    def set_status(self, session_id: str, status: str) -> None: ...
    def set_permission_mode(self, session_id: str, mode: str) -> None: ...
    def add_usage(
        self,
        session_id: str,
        *,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        reasoning_tokens: int = 0,
        api_calls: int = 0,
        cost_usd: float = 0.0,
        duration_s: float = 0.0,
    ) -> None: ...
    def delete_session(self, session_id: str) -> None: ...
    def claim_session(self, session_id: str) -> None: ...
    def take_session(self, session_id: str) -> int: ...
    def release_session(self, session_id: str) -> None: ...
    def repair_session(self, session_id: str) -> int: ...
    def branch(self, session_id: str, up_to_seq: int, title: str | None = None) -> str: ...

    def record_call(
        self,
        session_id: str,
        *,
        usage: Usage | None,
        model: str,
        provider: str,
        cost_usd: float | None,
        cost_source: str,
        message_id: int | None = None,
        created_at: float | None = None,
    ) -> None: ...
    def external_usage(self, since: float) -> list[SessionInfo]: ...
    def usage_by(
        self, group: str, since: float, until: float | None = None, limit: int = 1000
    ) -> list[UsageRow]: ...

    # messages
    def append_message(self, session_id: str, message: Message) -> int: ...
    def checkpoint_partial(self, message_id: int, content: str, reasoning: str | None) -> None: ...
    def update_message(self, message: Message) -> None: ...
    def load(self, session_id: str) -> LoadedSession: ...
    def load_messages(
        self, session_id: str, start_seq: int = 0, end_seq: int | None = None
    ) -> list[Message]: ...
    def mark_rewound(self, session_id: str, message_id: int, at: float | None = None) -> int: ...

    # approvals
    def record_approval(self, session_id: str, command: str, reasons: list[str], decision: str) -> None: ...
    def approvals(self, session_id: str) -> list[dict[str, Any]]: ...

    # turn outcomes
    def record_turn(
        self,
        session_id: str,
        *,
        exit_reason: str,
        user_message_id: int | None = None,
        api_calls: int = 0,
        detail: str | None = None,
    ) -> None: ...
    def turns(self, session_id: str) -> list[dict[str, Any]]: ...

    # search
    def search(
        self, query: str | SearchQuery, limit: int = 20, offset: int = 0, session_id: str | None = None
    ) -> list[SearchHit]: ...
    def iter_search(
        self,
        query: str | SearchQuery,
        *,
        page_size: int = 50,
        limit: int = 200,
        session_id: str | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Iterator[list[SearchHit]]: ...

    hermes_problem: str | None

    def close(self) -> None: ...

"""SessionStore: sessions, transcripts and search in one SQLite file (WAL, FTS5).

The package, by job: `core` (the file, its connections, write transactions, migrations run), `schema`
(tables, FTS triggers, `MIGRATIONS`), `records` (the dataclasses handed out and row conversions),
`sessions` (session rows), `messages` (transcript rows, approvals), `turns` (why each turn ended),
`search` (query plans, ranking, snippets), `usage` (what each model call used and cost), `imported`
(copies of Hermes' sessions), `library` (`SessionLibrary`: ours with Hermes' history beside them),
`protocol` (`SessionStoreProtocol`, what the engine and the UI may call), `errors` (`StoreError`), `opening`
(read-write, else read-only, else one line), `claims` (one writer per session), `repair` (a session cut off
mid-turn), `recovery` (`hermes-tui doctor`).

This package never imports textual.
"""

from __future__ import annotations

from agent.store.claims import ClaimsMixin
from agent.store.core import BUSY_TIMEOUT_S
from agent.store.imported import ImportMixin
from agent.store.messages import MessagesMixin
from agent.store.protocol import SessionStoreProtocol
from agent.store.records import (
    HERMES_PREFIX,
    HIGHLIGHT_END,
    HIGHLIGHT_START,
    SESSION_STATUSES,
    TITLE_MAX_CHARS,
    LoadedSession,
    SearchHit,
    SessionInfo,
    new_session_id,
    sanitize_title,
)
from agent.store.repair import RepairMixin
from agent.store.schema import MIGRATIONS, Migration
from agent.store.search import RANK_CANDIDATES, SNIPPET_TOKENS, SearchMixin
from agent.store.sessions import SessionsMixin
from agent.store.turns import TurnsMixin
from agent.store.usage import UsageMixin, UsageRow

__all__ = [
    "BUSY_TIMEOUT_S",
    "HERMES_PREFIX",
    "HIGHLIGHT_END",
    "HIGHLIGHT_START",
    "MIGRATIONS",
    "RANK_CANDIDATES",
    "SESSION_STATUSES",
    "SNIPPET_TOKENS",
    "TITLE_MAX_CHARS",
    "LoadedSession",
    "Migration",
    "SearchHit",
    "SessionInfo",
    "SessionStore",
    "SessionStoreProtocol",
    "UsageRow",
    "new_session_id",
    "sanitize_title",
]


class SessionStore(
    ClaimsMixin, RepairMixin, SessionsMixin, MessagesMixin, TurnsMixin, SearchMixin, UsageMixin, ImportMixin
):
    """Sessions, their messages, approvals and full-text search in one SQLite file.

    Open it with a path (created 0600 with its parent directories); every method may be called from any
    thread; `close()` (or a `with` block) when done. See the modules of `agent.store` for how each part
    works, and `SessionStoreProtocol` for the methods other code relies on."""

    def __enter__(self) -> SessionStore:
        return self

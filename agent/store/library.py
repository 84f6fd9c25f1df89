"""`SessionLibrary`: our store with Hermes' own history beside it, one `SessionStoreProtocol` for the app.

A Hermes user's sessions (read-only, from `$HERMES_HOME/state.db`) appear next to ours with ids
`hermes:<id>`: listed, searched with the same query language, previewed, exported. Anything that would
change one (rename, delete) is refused with a sentence saying how to continue it instead; continuing
(`adopt`, which `Session.resume` calls) copies it into our store once, linked by `origin`, and the copy is the
one that grows. Once copied, the original is no longer listed or searched: the copy stands for it, so one
conversation is one row.

Hermes' history failing (locked, a schema we cannot read) never breaks ours: its sessions are left out and
`hermes_problem` holds the one line that says why.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

from agent.core.messages import Message
from agent.store import SessionStore
from agent.store.hermes import HermesHistory, HermesHistoryError, raw_id
from agent.store.opening import open_store
from agent.store.query import SearchQuery, parse
from agent.store.records import HERMES_PREFIX, LoadedSession, SearchHit, SessionInfo

__all__ = ["ReadOnlySession", "SessionLibrary", "open_library"]

log = logging.getLogger(__name__)


class ReadOnlySession(ValueError):
    """A change was asked of a session of Hermes' history."""

    def __init__(self, session_id: str, what: str) -> None:
        super().__init__(
            f"{session_id} is in Hermes' history, which hermes-tui never changes; resume it to {what} a copy"
        )


class SessionLibrary(SessionStore):
    """Our sessions (the file at `path`) and, when `hermes` is given, Hermes' history beside them."""

    def __init__(
        self, path: Path | str, hermes: HermesHistory | None = None, *, read_only: str | None = None
    ) -> None:
        super().__init__(path, read_only=read_only)
        self.hermes = hermes
        self.hermes_problem: str | None = None
        """Why Hermes' sessions are not shown (one line), or None."""

    # ------------------------------------------------------------------ Hermes, guarded

    def _from_hermes(self, read: Callable[[HermesHistory], object], default: object) -> object:
        if self.hermes is None:
            return default
        try:
            value = read(self.hermes)
        except HermesHistoryError as exc:
            if str(exc) != self.hermes_problem:
                log.warning("%s", exc)
            self.hermes_problem = str(exc)
            return default
        self.hermes_problem = None
        return value

    def _copied(self) -> set[str]:
        """Hermes ids (without the prefix) that already have a copy here."""
        return {raw_id(origin) for origin in self.origins(HERMES_PREFIX)}

    def check_hermes(self) -> str | None:
        """Read Hermes' history once; the line saying why it cannot be shown, or None."""
        self._from_hermes(lambda h: h.check(), None)
        return self.hermes_problem

    # ------------------------------------------------------------------ sessions

    def get_session(self, session_id: str) -> SessionInfo | None:
        if session_id.startswith(HERMES_PREFIX):
            found = self._from_hermes(lambda h: h.get_session(session_id), None)
            return found if isinstance(found, SessionInfo) else None
        return super().get_session(session_id)

    def list_sessions(self, limit: int = 100, offset: int = 0, cwd: str | None = None) -> list[SessionInfo]:
        """Ours and Hermes' (those without a copy here), most recently active first."""
        ours = super().list_sessions(limit + offset, 0, cwd)
        copied = self._copied()
        theirs = self._from_hermes(lambda h: h.list_sessions(limit + offset + len(copied), 0, cwd), [])
        assert isinstance(theirs, list)
        merged = ours + [info for info in theirs if raw_id(info.id) not in copied]
        merged.sort(key=lambda info: (info.updated_at, info.created_at, info.id), reverse=True)
        return merged[max(0, offset) : max(0, offset) + max(0, limit)]

    def latest_session(self, cwd: str | None = None) -> SessionInfo | None:
        """Our latest session (`-c` continues what hermes-tui did, not Hermes)."""
        return super().latest_session(cwd)

    def find_sessions(self, id_or_title: str, limit: int = 20) -> list[SessionInfo]:
        """Ours first (an exact id or title, else ids and titles that contain it); else a Hermes session
        by id (with or without `hermes:`), exact title or id prefix, or our copy of it when there is one."""
        key = (id_or_title or "").strip()
        if not key.startswith(HERMES_PREFIX):
            ours = super().find_sessions(key, limit)
            if ours:
                return ours
        theirs = self._from_hermes(lambda h: h.resolve(key), None)
        if not isinstance(theirs, SessionInfo):
            return []
        copy = self.copy_for(theirs.id)
        found = super().get_session(copy) if copy is not None else theirs
        return [found] if found is not None else []

    def adopt(self, session_id: str) -> str:
        """The id to continue `session_id` in: itself for ours; for a Hermes session, our copy of it (made
        now, or the one made before). KeyError when there is no such session."""
        if not session_id.startswith(HERMES_PREFIX):
            return super().adopt(session_id)
        existing = self.copy_for(session_id)
        if existing is not None:
            return existing
        if self.hermes is None:
            raise KeyError(session_id)
        try:
            loaded = self.hermes.load(session_id)
        except HermesHistoryError as exc:
            self.hermes_problem = str(exc)
            raise KeyError(f"{session_id}: {exc}") from None
        return self.import_session(loaded.info, loaded.messages)

    def set_title(self, session_id: str, title: str) -> str:
        if session_id.startswith(HERMES_PREFIX):
            raise ReadOnlySession(session_id, "rename")
        return super().set_title(session_id, title)

    def set_status(self, session_id: str, status: str) -> None:
        if session_id.startswith(HERMES_PREFIX):
            raise ReadOnlySession(session_id, "continue in")
        super().set_status(session_id, status)

    def set_permission_mode(self, session_id: str, mode: str) -> None:
        if session_id.startswith(HERMES_PREFIX):
            raise ReadOnlySession(session_id, "continue in")
        super().set_permission_mode(session_id, mode)

    def delete_session(self, session_id: str) -> None:
        if session_id.startswith(HERMES_PREFIX):
            raise ReadOnlySession(session_id, "keep working in")
        super().delete_session(session_id)

    def branch(self, session_id: str, up_to_seq: int, title: str | None = None) -> str:
        """A branch of a Hermes session is a branch of our copy of it."""
        return super().branch(self.adopt(session_id), up_to_seq, title)

    def approvals(self, session_id: str) -> list[dict[str, object]]:
        return [] if session_id.startswith(HERMES_PREFIX) else super().approvals(session_id)

    # ------------------------------------------------------------------ messages

    def append_message(self, session_id: str, message: Message) -> int:
        if session_id.startswith(HERMES_PREFIX):
            raise ReadOnlySession(session_id, "continue in")
        return super().append_message(session_id, message)

    def mark_rewound(self, session_id: str, message_id: int, at: float | None = None) -> int:
        if session_id.startswith(HERMES_PREFIX):
            raise ReadOnlySession(session_id, "rewind")
        return super().mark_rewound(session_id, message_id, at)

    def load(self, session_id: str) -> LoadedSession:
        if not session_id.startswith(HERMES_PREFIX):
            return super().load(session_id)
        if self.hermes is None:
            raise KeyError(session_id)
        try:
            return self.hermes.load(session_id)
        except HermesHistoryError as exc:
            self.hermes_problem = str(exc)
            raise KeyError(f"{session_id}: {exc}") from None

    def load_messages(self, session_id: str, start_seq: int = 0, end_seq: int | None = None) -> list[Message]:
        if not session_id.startswith(HERMES_PREFIX):
            return super().load_messages(session_id, start_seq, end_seq)
        found = self._from_hermes(lambda h: h.load_messages(session_id, start_seq, end_seq), [])
        assert isinstance(found, list)
        return found

    def external_usage(self, since: float) -> list[SessionInfo]:
        """Every Hermes session started since `since` (subagent runs too: they cost money), copied or not:
        a copy carries no per-call rows of Hermes' calls."""
        found = self._from_hermes(lambda h: h.usage_sessions(since), [])
        assert isinstance(found, list)
        return found

    # ------------------------------------------------------------------ search

    def search(
        self, query: str | SearchQuery, limit: int = 20, offset: int = 0, session_id: str | None = None
    ) -> list[SearchHit]:
        """Our hits (best first), then Hermes' (best first), `limit` of them from `offset`."""
        if limit <= 0:
            return []
        pages = self.iter_search(query, page_size=50, limit=offset + limit, session_id=session_id)
        hits = [hit for page in pages for hit in page]
        return hits[max(0, offset) : max(0, offset) + limit]

    def iter_search(
        self,
        query: str | SearchQuery,
        *,
        page_size: int = 50,
        limit: int = 200,
        session_id: str | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> Iterator[list[SearchHit]]:
        parsed = query if isinstance(query, SearchQuery) else parse(query or "")
        found = 0
        if session_id is None or not session_id.startswith(HERMES_PREFIX):
            for page in super().iter_search(
                parsed, page_size=page_size, limit=limit, session_id=session_id, cancelled=cancelled
            ):
                found += len(page)
                yield page
        ours_only = session_id is not None and not session_id.startswith(HERMES_PREFIX)
        if self.hermes is None or found >= limit or ours_only or (cancelled is not None and cancelled()):
            return
        pages = self._from_hermes(
            lambda h: list(
                h.iter_search(
                    parsed,
                    page_size=page_size,
                    limit=limit - found,
                    session_id=session_id,
                    skip_sessions=self._copied,
                    cancelled=cancelled,
                )
            ),
            [],
        )
        assert isinstance(pages, list)
        yield from pages


def open_library(state_db: Path, hermes_home: Path) -> SessionLibrary:
    """Our store at `state_db`, with Hermes' history (`hermes_home/state.db`) when that file exists.

    Opened by `open_store`'s policy (read-only with a reason when it cannot be written, abandoned sessions
    repaired); raises `StoreError` (show its `user_line()`) when ours can be neither written nor read."""
    hermes_db = Path(hermes_home) / "state.db"
    hermes = HermesHistory(hermes_db) if hermes_db.is_file() else None
    store = open_store(state_db, store_class=partial(SessionLibrary, hermes=hermes))
    assert isinstance(store, SessionLibrary)
    return store

"""Rewinding a conversation to just before one of the user's messages (Claude Code's Esc Esc, Hermes'
`/undo`): the conversation, the files, or both.

Why marks, not deletes: the messages a rewind takes out of the model's context stay in the store with
`rewound_at` set, so nothing the user wrote is lost, session search still finds them and the transcript
shows them dimmed; the model is never sent them again (`Session.resume` leaves them out, and the live
history is cut at the same point). Live messages are always a prefix of the stored order minus the rows
rewound before, so the in-memory history and a resumed one agree (a compression marker's indexes too).

Files: each batch of tool calls that changed files took one checkpoint, and the tool result after it names
it (`meta["checkpoint"]`, `agent.session.tool_batch`): the checkpoints of the messages being rewound are
the ones to restore, newest first, so each path ends as it was before the first change after the chosen
message. A checkpoint that is gone (pruned by age or size) is said in one line; the conversation is
rewound all the same.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from agent.core.humanize import format_absolute
from agent.core.messages import Message
from agent.session.tool_batch import CHECKPOINT_META
from agent.store.errors import StoreError

if TYPE_CHECKING:
    from agent.checkpoints import CheckpointManager, RestoreReport
    from agent.store import SessionStoreProtocol

__all__ = [
    "RewindHost",
    "RewindPoint",
    "RewindReport",
    "checkpoints_after",
    "is_rewind_point",
    "rewind_history",
    "rewind_points",
]

PREVIEW_CHARS = 120


@dataclass(frozen=True)
class RewindPoint:
    """One of the user's messages a rewind can go back to (just before it)."""

    index: int
    """Its position in the session's live history (`Session.messages`)."""
    message_id: int | None
    """Its store row (None when the session stores nothing)."""
    created_at: float
    text: str
    """What the user typed, put back in the prompt after a rewind."""
    checkpoints: tuple[str, ...] = ()
    """The checkpoints taken from this message on, oldest first: what a rewind of the code restores."""

    @property
    def preview(self) -> str:
        """The message on one line, shortened."""
        line = " ".join(self.text.split())
        return line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1] + "…"

    @property
    def when(self) -> str:
        """The time it was sent, for the list ("Mar 4, 14:02")."""
        return format_absolute(self.created_at)


@dataclass
class RewindReport:
    """What a rewind did, for the one or two lines the user is shown."""

    text: str = ""
    """The chosen message's text (the prompt gets it back after a rewind of the conversation)."""
    conversation: bool = False
    rewound: int = 0
    """Messages taken out of the model's context."""
    code: bool = False
    files: RestoreReport | None = None
    missing: list[str] = field(default_factory=list)
    """Checkpoints that are gone: their files could not be restored."""
    problem: str | None = None
    """Why nothing was done (the turn would not stop, the store refused): one line."""

    def lines(self) -> list[str]:
        """One line per effect: the conversation, then the files (and what stopped them)."""
        if self.problem:
            return [self.problem]
        out: list[str] = []
        if self.conversation:
            plural = "s" if self.rewound != 1 else ""
            out.append(
                f"Rewound the conversation: {self.rewound} message{plural} out of the model's context "
                "(kept in the session, dimmed, and found by search)."
            )
        if self.code:
            out.append(self._files_line())
            if self.files is not None and self.files.git_note:
                out.append(self.files.git_note)
            if self.files is not None:
                out += [f"error: {e}" for e in self.files.errors]
        return out

    def _files_line(self) -> str:
        files = self.files
        if self.missing:
            gone = ", ".join(self.missing)
            restored = f" ({files.summary()} from the rest)" if files is not None and files.restored else ""
            return (
                f"The files could not be restored: checkpoint{'s' if len(self.missing) != 1 else ''} {gone} "
                f"{'are' if len(self.missing) != 1 else 'is'} gone (pruned){restored}."
            )
        if files is None:
            return "No file changes to restore: no checkpoint was taken after that message."
        return f"Files: {files.summary()}."

    @property
    def ok(self) -> bool:
        return self.problem is None and not self.missing and (self.files is None or self.files.ok)


def is_rewind_point(message: Message) -> bool:
    """A message the user wrote (not a compression summary, a continuation or another synthetic turn)."""
    return message.role == "user" and not message.meta.get("synthetic")


def _checkpoint_of(message: Message) -> str | None:
    """The checkpoint a tool result says its batch took (`agent.session.tool_batch`), if any."""
    checkpoint = message.meta.get(CHECKPOINT_META) if message.role == "tool" else None
    return checkpoint if isinstance(checkpoint, str) else None


def checkpoints_after(messages: Sequence[Message]) -> list[str]:
    """The checkpoint ids named by these messages' tool results, oldest first."""
    found: list[str] = []
    for message in messages:
        checkpoint = _checkpoint_of(message)
        if checkpoint is not None and checkpoint not in found:
            found.append(checkpoint)
    return found


def rewind_points(messages: Sequence[Message]) -> list[RewindPoint]:
    """The user's messages of this live history, newest first, each with the checkpoints after it."""
    points: list[RewindPoint] = []
    later: list[str] = []
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        checkpoint = _checkpoint_of(message)
        if checkpoint is not None and checkpoint not in later:
            later.insert(0, checkpoint)
        if is_rewind_point(message):
            points.append(
                RewindPoint(
                    index=index,
                    message_id=message.id,
                    created_at=message.created_at or time.time(),
                    text=message.content,
                    checkpoints=tuple(later),
                )
            )
    return points


class RewindHost(Protocol):
    """What a rewind reads and changes of its session (no turn runs meanwhile: the session sees to it)."""

    messages: list[Message]
    store: SessionStoreProtocol | None
    session_id: str
    checkpoints: CheckpointManager | None

    def history_rewound(self) -> None:
        """What the session derives from its live history, derived again from the shorter one."""


def rewind_history(
    session: RewindHost, point: RewindPoint, *, conversation: bool, code: bool
) -> RewindReport:
    """Go back to just before `point`'s message: the conversation (that message and everything after it
    marked rewound in the store in one transaction, then cut from the live history), the files (the
    checkpoints taken since, restored newest first), or both."""
    report = RewindReport(text=point.text, conversation=conversation, code=code)
    messages = session.messages
    message = messages[point.index] if 0 <= point.index < len(messages) else None
    if message is None or message.id != point.message_id or message.content != point.text:
        report.problem = "That message is no longer in the conversation: nothing was rewound."
        return report
    checkpoint_ids = checkpoints_after(messages[point.index :])
    if conversation:
        try:
            report.rewound = _rewind_conversation(session, point.index)
        except StoreError as exc:
            report.problem = f"Not rewound: {exc.user_line()}"
            return report
        except KeyError:
            report.problem = "That message is not in the session's store: nothing was rewound."
            return report
    if code and checkpoint_ids:
        if session.checkpoints is None:
            report.missing = checkpoint_ids
        else:
            report.files, report.missing = session.checkpoints.restore_all(checkpoint_ids)
    return report


def _rewind_conversation(session: RewindHost, index: int) -> int:
    """Cut the live history before `index`, the store first (a refusal changes nothing)."""
    cut = len(session.messages) - index
    now = time.time()
    stored = next((m.id for m in session.messages[index:] if m.id is not None), None)
    if session.store is not None and stored is not None:
        session.store.mark_rewound(session.session_id, stored, now)
    for later in session.messages[index:]:
        later.rewound_at = now
    session.messages = session.messages[:index]
    session.history_rewound()
    return cut

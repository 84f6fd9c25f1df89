"""The chat's turn lifecycle, without Textual: busy, the queue, steering, interrupts, the end of a turn and
the questions that wait while the user types.

Why a plain object: these rules (what Enter does while a turn runs, what Esc stops, what starts by itself
after a turn and what waits) are the chat's behaviour, and they were spread over screen methods that could
only be tested by driving a whole app. Here they are one state machine the chat screen forwards its events
to; it answers through `ChatView` (the screen draws), `Engine` (the running turn and the `!` shell), the
`MessageQueue` (the queue widget's items) and the `Collector` (the garbage collector's pause per turn), so
`tests/app/test_chat_controller.py` runs it against fakes and a fake clock.

A message is one value in and one value out: the view reads what decides its fate once (`Outgoing`: the
text, the attachments waiting, the store's read-only reason, the `!` command), `message` decides
(`Refused`, `Queued`, `Send`, `RunShell`) and the view applies it. Typed, `/retry` and the next queued
message all go through `submit`, the one way.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from agent.api import ApprovalAnswer, ApprovalDecision
from widgets.support import timing

if TYPE_CHECKING:
    from agent.api import ImageRef

__all__ = [
    "ChatController",
    "ChatView",
    "Collector",
    "Engine",
    "MessageQueue",
    "Outcome",
    "Outgoing",
    "Queued",
    "Refused",
    "RunShell",
    "Send",
]

DOUBLE_CTRL_C = timing.DOUBLE_CTRL_C
DOUBLE_ESCAPE = timing.DOUBLE_ESCAPE
TYPING_PAUSE = timing.TYPING_PAUSE
QUESTION_POLL = timing.TYPING_POLL

Images = tuple["ImageRef", ...]


@dataclass(frozen=True)
class Outgoing:
    """A message the user sent, with all that decides its fate, read by the screen when it was sent."""

    text: str
    images: Images = ()
    """The attachments waiting above the prompt (they go with the message if it is sent now)."""
    read_only: str = ""
    """Why the store cannot take it (another process holds it...); empty when it can."""
    shell: str | None = None
    """The command of a `!command` line."""


@dataclass(frozen=True)
class Refused:
    """Not sent: a notice, and the text back in the prompt when `put_back`."""

    kind: str
    text: str
    put_back: str | None = None


@dataclass(frozen=True)
class Queued:
    """Queued behind the running turn (the queue widget shows it)."""


@dataclass(frozen=True)
class Send:
    """A turn starts with this message (the chat is busy already): show it, put it on the wire."""

    text: str
    images: Images = ()


@dataclass(frozen=True)
class RunShell:
    """A `!command` runs now in the user's shell (busy like a turn)."""

    command: str
    typed: str


Outcome = Refused | Queued | Send | RunShell
"""What became of a message: the screen applies it (`ChatView.apply`)."""


class ChatView(Protocol):
    """What the controller asks the chat screen to draw or do (UI thread)."""

    def outgoing(self, text: str) -> Outgoing:
        """`text` with what decides its fate now (attachments, the store, `!`): a queued message's too."""
        ...

    def apply(self, outcome: Outcome) -> None:
        """Do what the controller decided about a message (show it and start the turn, the notice...)."""
        ...

    def notice(self, kind: str, text: str) -> None: ...
    def toast(self, text: str, timeout: float) -> None: ...
    def show_busy(self, busy: bool) -> None: ...
    def hide_spinner(self) -> None: ...
    def wake_drain(self) -> None: ...
    def drain(self) -> None: ...
    def when_drawn(self, callback: Callable[[], None]) -> None: ...
    def focus_prompt(self) -> None: ...
    def clear_prompt(self) -> None: ...
    def copy_selection(self) -> int:
        """Copy the mouse selection, if any, and clear it: the characters copied (0: none selected)."""
        ...

    def prompt_empty(self) -> bool:
        """Nothing typed in the prompt (Esc Esc opens the rewind list only then)."""
        ...

    def open_rewind(self) -> None:
        """The list of the user's messages to rewind to (`/rewind`)."""
        ...

    def notify_mode(self) -> str: ...
    def attention(self, why: str) -> None: ...
    def bell(self) -> None: ...
    def typed_within(self, seconds: float) -> bool: ...
    def repeat(self, interval: float, callback: Callable[[], bool]) -> None: ...
    def show_question(self, card: object) -> None: ...
    def remove_question(self, card: object) -> None: ...
    def exit(self) -> None: ...


class Engine(Protocol):
    """The running turn's side: the agent and the user's `!` shell command."""

    def interrupt(self) -> None: ...
    def steer(self, text: str) -> None: ...
    def stop_shell(self) -> bool: ...


class MessageQueue(Protocol):
    """Messages typed while a turn runs (the queue widget: the user can edit or remove them)."""

    @property
    def items(self) -> tuple[str, ...]: ...
    def add(self, text: str, *, first: bool = False) -> None: ...
    def pop_next(self) -> str | None: ...


class Collector(Protocol):
    """The garbage collector's pause for each turn (`hermes_tui.gc_policy.GcPolicy`)."""

    def pause(self, holder: str = "turn") -> None: ...
    def resume(self, later: Callable[[Callable[[], None]], object], holder: str = "turn") -> None: ...


@dataclass
class _Clarify:
    reply: Future[str | None]
    card: object


class ChatController:
    """One chat's turn lifecycle (UI thread only)."""

    def __init__(
        self,
        view: ChatView,
        engine: Engine,
        queue: MessageQueue,
        collector: Collector,
        *,
        clock: Callable[[], float] = time.monotonic,
        typing_pause: float = TYPING_PAUSE,
    ) -> None:
        self.view = view
        self.engine = engine
        self.queue = queue
        self.collector = collector
        self.clock = clock
        self.typing_pause = typing_pause
        self._busy = False
        self._interrupting = False
        self._clarify: _Clarify | None = None
        self._waiting: list[Callable[[], None]] = []  # questions shown once the typing pauses
        self._last_ctrl_c = float("-inf")
        self._last_escape = float("-inf")

    @property
    def busy(self) -> bool:
        """A turn (or a `!` command, or a compression) is running."""
        return self._busy

    @property
    def clarify_pending(self) -> bool:
        return self._clarify is not None

    @property
    def questions_waiting(self) -> int:
        """Questions announced but held until the keyboard is quiet."""
        return len(self._waiting)

    def set_busy(self, busy: bool) -> None:
        """The status bar says so; no collector pass while busy, one at rest after every reply is drawn."""
        self._busy = busy
        self.view.show_busy(busy)
        if busy:
            self.collector.pause("turn")
            self.view.wake_drain()
        else:
            self.view.hide_spinner()
            self.collector.resume(self.view.when_drawn, "turn")

    # ------------------------------------------------------------------------------------------ messages

    def submit(self, text: str) -> Outcome:
        """The one way a message goes (typed, `/retry`, the next queued one): the view reads what decides
        its fate, the controller decides (`message`), the view applies the outcome."""
        outcome = self.message(self.view.outgoing(text))
        self.view.apply(outcome)
        return outcome

    def message(self, outgoing: Outgoing) -> Outcome:
        """A message (not a command) the user submitted: sent, queued while busy, or run as `!command`;
        sent or run, the chat is busy when this returns, and the screen applies the outcome."""
        if outgoing.read_only:
            return Refused("error", f"Not sent: {outgoing.read_only}")
        if self._busy and outgoing.images:
            return Refused(
                "warn", "A turn is running: send the message and its images after it.", put_back=outgoing.text
            )
        if self._busy:
            self.queue.add(outgoing.text)
            return Queued()
        self.set_busy(True)
        if outgoing.shell is not None:
            return RunShell(outgoing.shell, outgoing.text)
        return Send(outgoing.text, outgoing.images)

    def send(self, text: str) -> None:
        """Start a turn with `text` (a steer at rest, one the turn ended before delivering)."""
        self.set_busy(True)
        self.view.apply(Send(text))

    def _send_next_queued(self) -> bool:
        """The next queued message goes the way a typed one does (a `!` line runs); False: none."""
        queued = self.queue.pop_next()
        if queued is None:
            return False
        self.submit(queued)
        return True

    def shell_done(self) -> None:
        self.view.drain()
        self.view.notice("info", "Its output goes with your next message.")
        self.end_turn()

    def steer(self, text: str) -> None:
        """`/steer TEXT`: reaches the running turn's model after its current tools; at rest, a message."""
        text = text.strip()
        if not text:
            self.view.notice(
                "info",
                "Usage: /steer TEXT (while a turn runs; it reaches the model after the current tools).",
            )
            return
        if not self._busy:
            self.send(text)
            return
        self.engine.steer(text)
        self.view.notice("info", f"Steer queued for the running turn: {text}")

    def empty_enter(self) -> None:
        """Enter on an empty prompt at rest sends the next queued message (held after an interrupt)."""
        if not self._busy:
            self._send_next_queued()

    # ------------------------------------------------------------------------------------------ stopping

    def interrupt(self) -> None:
        """Escape: skip the question, else stop the `!` command, else the turn; at rest on an empty prompt,
        a second Esc within `DOUBLE_ESCAPE` opens the rewind list (Claude Code's Esc Esc). An Esc that
        stopped something never counts as the first of two."""
        if self._clarify is not None:
            self.close_clarify(None)
        elif self.engine.stop_shell():
            self._interrupting = True  # a stop like any other: the queue waits
        elif self._busy:
            self.engine.interrupt()
            self._mark_interrupting()
        elif self.view.prompt_empty():
            now = self.clock()
            if now - self._last_escape < DOUBLE_ESCAPE:
                self._last_escape = float("-inf")
                self.view.open_rewind()
            else:
                self._last_escape = now
            return
        self._last_escape = float("-inf")

    def interrupt_turn(self) -> None:
        """Ctrl+C while a turn runs: stop it, whatever it waits for. A pending question is answered
        "interrupted" (the flag is set first, so the loop cannot go on to the next tool meanwhile)."""
        self.engine.interrupt()
        self.engine.stop_shell()
        if self._clarify is not None:
            self.close_clarify(None)
        self._mark_interrupting()

    def _mark_interrupting(self) -> None:
        if not self._interrupting:
            self._interrupting = True
            self.view.hide_spinner()

    def ctrl_c(self) -> None:
        """Copy a mouse selection, as a terminal does; else interrupt a running turn; at rest clear the
        prompt, and a second press within 2 s quits."""
        if copied := self.view.copy_selection():
            self.view.toast(f"Copied {copied:,} characters", DOUBLE_CTRL_C)
            return
        if self._busy:
            self.interrupt_turn()
            return
        now = self.clock()
        if now - self._last_ctrl_c < DOUBLE_CTRL_C:
            self.view.exit()
            return
        self._last_ctrl_c = now
        self.view.clear_prompt()
        self.view.toast("Press Ctrl+C again to quit", DOUBLE_CTRL_C)

    def stop_for_quit(self) -> None:
        """Quitting mid-turn: the loop is interrupted so it finalizes the turn as interrupted (the reply
        kept, the session not left "active"); like any stop, nothing queued starts after it."""
        self._interrupting = True
        self.engine.interrupt()

    # ------------------------------------------------------------------------------------------ the end

    def turn_finished(self, exit_reason: str, pending_steer: str | None) -> None:
        self.view.attention(
            "The turn has ended." if exit_reason == "completed" else f"Turn ended: {exit_reason}"
        )
        self.end_turn(pending_steer, stopped=exit_reason == "interrupted")

    def turn_failed(self, error: BaseException | None) -> None:
        """A bug in the loop (never a provider error: those end the turn normally). No traceback shown."""
        self.view.drain()
        self.end_turn()
        self.view.notice(
            "error", f"Internal error: {type(error).__name__}: {error}. The session is saved; try again."
        )

    def end_turn(self, pending_steer: str | None = None, *, stopped: bool = False) -> None:
        """After a turn: an interrupt holds the queue; else an undelivered steer, else the next queued
        message is sent, else the prompt takes the keys back."""
        interrupted = self._interrupting or stopped
        self._interrupting = False
        self.close_clarify(None)
        self.set_busy(False)
        if interrupted:
            self._hold_queue(pending_steer)
            return
        if pending_steer:
            self.view.notice("info", "The turn ended before your steer could be delivered: sending it now.")
            self.send(pending_steer)
            return
        if not self._send_next_queued():
            self.view.focus_prompt()

    def _hold_queue(self, pending_steer: str | None) -> None:
        """Esc means stop: after an interrupt nothing starts by itself. An undelivered steer joins the
        queue (first), and the queue waits for Enter on an empty prompt."""
        if pending_steer:
            self.queue.add(pending_steer, first=True)
        if count := len(self.queue.items):
            self.view.notice(
                "info",
                f"{count} queued message{'s' if count != 1 else ''} kept: Enter on an empty prompt sends "
                "the next.",
            )
        self.view.focus_prompt()

    # ------------------------------------------------------------------------------------------ questions

    def clarify_asked(self, reply: Future[str | None], card: object) -> None:
        """The model asks the user: `card` (the view's) shows once the typing pauses; one at a time."""
        self.close_clarify(None)
        clarify = _Clarify(reply, card)
        self._clarify = clarify
        self.view.attention("Hermes is asking you a question.")

        def show() -> None:
            if self._clarify is clarify:  # not answered (interrupted, turn ended) while it waited
                self.view.show_question(card)

        self._when_typing_pauses(show, "Hermes has a question: it opens when you stop typing.")

    def close_clarify(self, answer: str | None) -> None:
        """Answer the pending question (None: skipped or interrupted) and take its card away."""
        clarify, self._clarify = self._clarify, None
        if clarify is None:
            return
        if not clarify.reply.done():
            clarify.reply.set_result(answer)
        self.view.remove_question(clarify.card)

    def approval_asked(
        self, reply: Future[ApprovalDecision | ApprovalAnswer], show: Callable[[], object]
    ) -> None:
        """A risky command waits for the user: the dialog (`show`) opens once the typing pauses."""
        if reply.done():
            return
        if self.view.notify_mode() == "desktop":
            self.view.attention("A command is waiting for your approval.")  # the dialog rings the bell

        def show_if_waiting() -> None:
            if not reply.done():
                show()

        self._when_typing_pauses(
            show_if_waiting, "A command needs your approval: it opens when you stop typing."
        )

    def approval_decided(
        self,
        reply: Future[ApprovalDecision | ApprovalAnswer],
        decision: ApprovalDecision | ApprovalAnswer | None,
        *,
        interrupted: bool,
    ) -> None:
        """The dialog closed; "interrupt" stops the turn, the loop's flag set before the denial reaches it."""
        if interrupted:
            self.engine.interrupt()
        if not reply.done():
            reply.set_result(decision or ApprovalDecision.DENY)
        if interrupted:
            self.interrupt_turn()

    def _when_typing_pauses(self, show: Callable[[], None], notice: str) -> None:
        """Questions never steal typing: one that arrives while the user types (a key in the last
        `typing_pause` seconds) is announced (bell, notice) and shown once the keyboard has been quiet."""
        if not self.view.typed_within(self.typing_pause):
            show()
            return
        self.view.bell()
        self.view.toast(notice, 3)
        self._waiting.append(show)
        if len(self._waiting) == 1:
            self.view.repeat(QUESTION_POLL, self.poll_questions)

    def poll_questions(self) -> bool:
        """Show the waiting questions if the typing paused; True while they still wait."""
        if self.view.typed_within(self.typing_pause):
            return True
        waiting, self._waiting = self._waiting, []
        for show in waiting:
            show()
        return False

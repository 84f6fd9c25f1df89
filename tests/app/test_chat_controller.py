"""The chat's turn lifecycle without an App: a fake view, engine, queue, collector and clock."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

from agent.core.ui import ApprovalAnswer, ApprovalDecision
from hermes_tui.chat.controller import (
    DOUBLE_CTRL_C,
    DOUBLE_ESCAPE,
    ChatController,
    Outcome,
    Outgoing,
    Queued,
    Refused,
    RunShell,
    Send,
)

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class FakeView:
    """Records what the controller asks; the keyboard's last key is set by the test."""

    now: list[float]
    calls: list[tuple[str, object]] = field(default_factory=list)
    last_key: float | None = None
    attachments: tuple[str, ...] = ()
    read_only: str = ""
    mode: str = "bell"
    polls: list[Callable[[], bool]] = field(default_factory=list)
    shown: list[object] = field(default_factory=list)
    prompt: str = ""
    selection: str = ""
    clipboard: list[str] = field(default_factory=list)

    def _record(self, name: str, value: object = None) -> None:
        self.calls.append((name, value))

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]

    def notices(self) -> list[tuple[object, ...]]:
        return [value for name, value in self.calls if name == "notice" and isinstance(value, tuple)]

    def notice(self, kind: str, text: str) -> None:
        self._record("notice", (kind, text))

    def outgoing(self, text: str) -> Outgoing:
        shell = text[1:] if text.startswith("!") else None
        return Outgoing(text, self.attachments, self.read_only, shell)  # type: ignore[arg-type]

    def apply(self, outcome: Outcome) -> None:
        """What the screen does with each outcome, recorded: the message shown and put on the wire."""
        match outcome:
            case Send(text, images):
                if images:
                    self.attachments = ()
                self._record("user", (text, images))
                self._record("turn", f"wire:{text}")
            case RunShell(command, _typed):
                self._record("shell", command)
            case Refused(kind, text, put_back):
                if put_back is not None:
                    self.prompt = put_back
                self.notice(kind, text)
            case Queued():
                self._record("queued")

    def toast(self, text: str, timeout: float) -> None:
        self._record("toast", text)

    def show_busy(self, busy: bool) -> None:
        self._record("busy", busy)

    def hide_spinner(self) -> None:
        self._record("hide_spinner")

    def wake_drain(self) -> None:
        self._record("wake_drain")

    def drain(self) -> None:
        self._record("drain")

    def when_drawn(self, callback: Callable[[], None]) -> None:
        callback()  # every reply is drawn at once here

    def focus_prompt(self) -> None:
        self._record("focus")

    def clear_prompt(self) -> None:
        self.prompt = ""

    def copy_selection(self) -> int:
        copied, self.selection = self.selection, ""
        if copied:
            self.clipboard.append(copied)
        return len(copied)

    def notify_mode(self) -> str:
        return self.mode

    def attention(self, why: str) -> None:
        self._record("attention", why)

    def bell(self) -> None:
        self._record("bell")

    def typed_within(self, seconds: float) -> bool:
        return self.last_key is not None and self.now[0] - self.last_key < seconds

    def repeat(self, interval: float, callback: Callable[[], bool]) -> None:
        self.polls.append(callback)

    def show_question(self, card: object) -> None:
        self.shown.append(card)

    def remove_question(self, card: object) -> None:
        self._record("removed", card)

    def exit(self) -> None:
        self._record("exit")

    def prompt_empty(self) -> bool:
        return not self.prompt.strip()

    def open_rewind(self) -> None:
        self._record("rewind")


@dataclass
class FakeEngine:
    interrupts: int = 0
    steers: list[str] = field(default_factory=list)
    shell_running: bool = False

    def interrupt(self) -> None:
        self.interrupts += 1

    def steer(self, text: str) -> None:
        self.steers.append(text)

    def stop_shell(self) -> bool:
        running, self.shell_running = self.shell_running, False
        return running


@dataclass
class FakeQueue:
    queued: list[str] = field(default_factory=list)

    @property
    def items(self) -> tuple[str, ...]:
        return tuple(self.queued)

    def add(self, text: str, *, first: bool = False) -> None:
        self.queued.insert(0 if first else len(self.queued), text)

    def pop_next(self) -> str | None:
        return self.queued.pop(0) if self.queued else None


@dataclass
class FakeCollector:
    holders: set[str] = field(default_factory=set)
    collections: int = 0

    def pause(self, holder: str = "turn") -> None:
        self.holders.add(holder)

    def resume(self, later: Callable[[Callable[[], None]], object], holder: str = "turn") -> None:
        self.holders.discard(holder)
        later(self._collect)

    def _collect(self) -> None:
        self.collections += 1


@dataclass
class Chat:
    controller: ChatController
    view: FakeView
    engine: FakeEngine
    queue: FakeQueue
    collector: FakeCollector
    now: list[float]


def make_chat() -> Chat:
    now = [100.0]
    view, engine, queue, collector = FakeView(now), FakeEngine(), FakeQueue(), FakeCollector()
    controller = ChatController(view, engine, queue, collector, clock=lambda: now[0])  # type: ignore[arg-type]
    return Chat(controller, view, engine, queue, collector, now)


def test_a_message_starts_a_turn_busy_with_the_collector_paused() -> None:
    chat = make_chat()
    chat.view.attachments = ("shot.png",)
    chat.controller.submit("hello")
    assert chat.controller.busy
    assert ("user", ("hello", ("shot.png",))) in chat.view.calls
    assert chat.view.names()[-4:] == ["busy", "wake_drain", "user", "turn"]  # busy, then shown and sent
    assert chat.view.attachments == ()  # they went with it
    assert ("turn", "wire:hello") in chat.view.calls
    assert chat.collector.holders == {"turn"}
    chat.controller.turn_finished("completed", None)
    assert not chat.controller.busy and chat.collector.holders == set() and chat.collector.collections == 1
    assert ("attention", "The turn has ended.") in chat.view.calls
    assert chat.view.names()[-1] == "focus"


def test_messages_typed_while_busy_are_queued_and_the_next_is_submitted_after_the_turn() -> None:
    chat = make_chat()
    chat.controller.submit("first")
    chat.controller.submit("second")
    chat.controller.submit("third")
    assert chat.queue.items == ("second", "third")
    assert [v for n, v in chat.view.calls if n == "turn"] == ["wire:first"]
    chat.controller.turn_finished("completed", None)
    # The next queued message goes the way a typed one does, through the controller (a `!` line runs).
    assert ("turn", "wire:second") in chat.view.calls and chat.queue.items == ("third",)
    assert chat.controller.busy


def test_a_busy_message_with_images_is_put_back_not_queued() -> None:
    chat = make_chat()
    chat.controller.submit("first")
    chat.view.attachments = ("shot.png",)
    chat.controller.submit("look at this")
    assert chat.queue.items == () and chat.view.prompt == "look at this"
    assert chat.view.notices()[-1][0] == "warn"


def test_a_read_only_store_sends_nothing() -> None:
    chat = make_chat()
    chat.view.read_only = "another process holds the store"
    chat.controller.submit("hello")
    assert not chat.controller.busy
    assert chat.view.notices() == [("error", "Not sent: another process holds the store")]


def test_a_shell_line_runs_busy_and_ends_like_a_turn() -> None:
    chat = make_chat()
    chat.controller.submit("!ls")
    assert chat.controller.busy and ("shell", "ls") in chat.view.calls
    chat.controller.shell_done()
    assert not chat.controller.busy
    assert ("notice", ("info", "Its output goes with your next message.")) in chat.view.calls


def test_steer_reaches_the_running_turn_and_at_rest_is_a_message() -> None:
    chat = make_chat()
    chat.controller.steer("  ")
    assert chat.view.notices()[-1][1].startswith("Usage: /steer TEXT") and not chat.controller.busy
    chat.controller.steer("look at the tests")
    assert chat.controller.busy and ("turn", "wire:look at the tests") in chat.view.calls
    chat.controller.steer("only the failing one")
    assert chat.engine.steers == ["only the failing one"]
    assert chat.view.notices()[-1] == ("info", "Steer queued for the running turn: only the failing one")


def test_an_undelivered_steer_is_sent_when_the_turn_ends() -> None:
    chat = make_chat()
    chat.controller.submit("go")
    chat.queue.add("later")
    chat.controller.turn_finished("completed", "the steer")
    assert ("turn", "wire:the steer") in chat.view.calls and chat.controller.busy
    assert chat.queue.items == ("later",)  # the steer goes first; the queue waits for its turn


def test_interrupt_then_finish_holds_the_queue_with_the_steer_first() -> None:
    chat = make_chat()
    chat.controller.submit("go")
    chat.controller.submit("queued")
    chat.controller.interrupt()
    assert chat.engine.interrupts == 1 and chat.view.names()[-1] == "hide_spinner"
    chat.controller.interrupt()  # a second Esc: interrupts again, the spinner hidden once
    assert chat.engine.interrupts == 2 and chat.view.names().count("hide_spinner") == 1
    chat.controller.turn_finished("interrupted", "undelivered steer")
    assert not chat.controller.busy
    assert chat.queue.items == ("undelivered steer", "queued")
    assert chat.view.names().count("turn") == 1
    assert chat.view.notices()[-1] == (
        "info",
        "2 queued messages kept: Enter on an empty prompt sends the next.",
    )
    chat.controller.empty_enter()
    assert ("turn", "wire:undelivered steer") in chat.view.calls


def test_an_interrupt_the_loop_reported_as_completed_still_holds_the_queue() -> None:
    chat = make_chat()
    chat.controller.submit("go")
    chat.controller.submit("queued")
    chat.controller.interrupt()
    chat.controller.turn_finished("completed", None)  # it ended on its own just after Esc
    assert chat.queue.items == ("queued",) and chat.view.names().count("turn") == 1


def test_escape_stops_a_shell_line_and_the_queue_waits() -> None:
    chat = make_chat()
    chat.controller.submit("!sleep 10")
    chat.controller.submit("queued")
    chat.engine.shell_running = True
    chat.controller.interrupt()
    assert chat.engine.interrupts == 0
    chat.controller.shell_done()
    assert chat.queue.items == ("queued",) and "turn" not in chat.view.names()


def test_a_question_arriving_while_typing_waits_for_a_pause() -> None:
    chat = make_chat()
    chat.controller.submit("go")
    chat.view.last_key = chat.now[0] - 0.2  # the user is typing
    reply: Future[str | None] = Future()
    chat.controller.clarify_asked(reply, "card")
    assert chat.view.shown == [] and chat.controller.questions_waiting == 1
    assert "bell" in chat.view.names()
    assert ("toast", "Hermes has a question: it opens when you stop typing.") in chat.view.calls
    (poll,) = chat.view.polls
    chat.now[0] += 0.5
    assert poll() is True and chat.view.shown == []  # still within the pause
    chat.now[0] += 1.0
    assert poll() is False and chat.view.shown == ["card"]
    chat.controller.close_clarify("blue")
    assert reply.result() == "blue" and ("removed", "card") in chat.view.calls


def test_a_question_answered_while_it_waited_never_shows() -> None:
    chat = make_chat()
    chat.controller.submit("go")
    chat.view.last_key = chat.now[0]
    reply: Future[str | None] = Future()
    chat.controller.clarify_asked(reply, "card")
    chat.controller.interrupt()  # Esc skips the question
    assert reply.result() is None and chat.engine.interrupts == 0
    chat.now[0] += 2
    assert chat.view.polls[0]() is False and chat.view.shown == []


def test_a_question_at_rest_shows_at_once_and_the_end_of_the_turn_answers_it() -> None:
    chat = make_chat()
    chat.controller.submit("go")
    reply: Future[str | None] = Future()
    chat.controller.clarify_asked(reply, "card")
    assert chat.view.shown == ["card"] and chat.view.polls == []
    chat.controller.turn_finished("completed", None)
    assert reply.result() is None and not chat.controller.clarify_pending


def test_an_approval_waits_for_the_pause_and_its_interrupt_stops_the_turn() -> None:
    chat = make_chat()
    chat.controller.submit("go")
    chat.view.mode = "desktop"
    chat.view.last_key = chat.now[0]
    reply: Future[ApprovalDecision | ApprovalAnswer] = Future()
    opened: list[str] = []
    chat.controller.approval_asked(reply, lambda: opened.append("dialog"))
    assert ("attention", "A command is waiting for your approval.") in chat.view.calls and opened == []
    chat.now[0] += 2
    assert chat.view.polls[0]() is False and opened == ["dialog"]
    chat.controller.approval_decided(reply, None, interrupted=True)
    assert reply.result() is ApprovalDecision.DENY and chat.engine.interrupts == 2


def test_ctrl_c_interrupts_a_turn_and_at_rest_clears_then_quits_on_a_second_press() -> None:
    chat = make_chat()
    chat.controller.submit("go")
    chat.controller.ctrl_c()
    assert chat.engine.interrupts == 1 and "exit" not in chat.view.names()
    chat.controller.turn_finished("interrupted", None)
    chat.view.prompt = "half a thought"
    chat.controller.ctrl_c()
    assert chat.view.prompt == "" and ("toast", "Press Ctrl+C again to quit") in chat.view.calls
    chat.now[0] += DOUBLE_CTRL_C + 0.1  # too late: this press starts over
    chat.controller.ctrl_c()
    assert "exit" not in chat.view.names()
    chat.now[0] += 0.5
    chat.controller.ctrl_c()
    assert chat.view.names()[-1] == "exit"


def test_quit_while_busy_interrupts_and_nothing_queued_starts() -> None:
    chat = make_chat()
    chat.controller.submit("go")
    chat.controller.submit("queued")
    chat.controller.stop_for_quit()
    assert chat.engine.interrupts == 1
    chat.controller.turn_finished("completed", None)  # the loop finalized the turn before it saw the flag
    assert chat.queue.items == ("queued",) and chat.view.names().count("turn") == 1
    assert not chat.controller.busy


def test_a_loop_bug_ends_the_turn_with_one_line() -> None:
    chat = make_chat()
    chat.controller.submit("go")
    chat.controller.turn_failed(ValueError("boom"))
    assert not chat.controller.busy
    assert chat.view.notices()[-1] == (
        "error",
        "Internal error: ValueError: boom. The session is saved; try again.",
    )


def test_the_controller_imports_no_textual() -> None:
    code = (
        "import sys, hermes_tui.chat.controller; "
        "print(any(m.split('.')[0] == 'textual' for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_ctrl_c_copies_a_selection_first_and_neither_interrupts_nor_quits() -> None:
    chat = make_chat()
    chat.controller.submit("go")
    chat.view.selection = "some selected text"
    chat.controller.ctrl_c()
    assert chat.view.clipboard == ["some selected text"] and chat.engine.interrupts == 0
    assert ("toast", "Copied 18 characters") in chat.view.calls
    chat.controller.ctrl_c()  # nothing selected now: it interrupts, as before
    assert chat.engine.interrupts == 1
    chat.controller.turn_finished("interrupted", None)
    chat.view.selection = "again"
    chat.controller.ctrl_c()
    chat.controller.ctrl_c()  # at rest, the first press copied: this one is the first of a quit
    assert "exit" not in chat.view.names()


def test_a_message_is_one_value_in_and_one_outcome_out() -> None:
    """`message` decides from the `Outgoing` alone; the view is asked nothing but to show busy."""
    chat = make_chat()
    assert chat.controller.message(Outgoing("hi", read_only="held")) == Refused("error", "Not sent: held")
    assert chat.view.calls == [] and not chat.controller.busy
    assert chat.controller.message(Outgoing("hi", ("a.png",))) == Send("hi", ("a.png",))  # type: ignore[arg-type]
    assert chat.controller.busy and chat.view.names() == ["busy", "wake_drain"]
    assert chat.controller.message(Outgoing("next")) == Queued() and chat.queue.items == ("next",)
    refused = chat.controller.message(Outgoing("look", ("b.png",)))  # type: ignore[arg-type]
    assert isinstance(refused, Refused) and refused.put_back == "look" and chat.queue.items == ("next",)
    chat.controller.turn_finished("completed", None)
    chat.view.calls.clear()
    chat.controller.turn_finished("completed", None)
    assert chat.controller.message(Outgoing("!ls", shell="ls")) == RunShell("ls", "!ls")


def test_a_queued_shell_line_runs_after_the_turn() -> None:
    chat = make_chat()
    chat.controller.submit("go")
    chat.controller.submit("!make test")
    chat.controller.turn_finished("completed", None)
    assert ("shell", "make test") in chat.view.calls and chat.controller.busy


def test_esc_esc_on_an_empty_prompt_at_rest_opens_the_rewind_list() -> None:
    chat = make_chat()
    chat.controller.interrupt()
    chat.now[0] += DOUBLE_ESCAPE / 2
    chat.controller.interrupt()
    assert chat.view.names().count("rewind") == 1
    chat.now[0] += DOUBLE_ESCAPE / 2
    chat.controller.interrupt()  # a third: the first of a new pair
    assert chat.view.names().count("rewind") == 1


def test_esc_esc_too_slow_or_with_text_typed_does_not_rewind() -> None:
    chat = make_chat()
    chat.controller.interrupt()
    chat.now[0] += DOUBLE_ESCAPE + 0.1
    chat.controller.interrupt()
    chat.view.prompt = "half a thought"
    chat.now[0] += 0.1
    chat.controller.interrupt()
    assert "rewind" not in chat.view.names()


def test_an_esc_that_stops_a_turn_is_not_the_first_of_two() -> None:
    chat = make_chat()
    chat.controller.submit("go")
    chat.controller.interrupt()  # stops the turn
    assert chat.engine.interrupts == 1
    chat.controller.turn_finished("interrupted", None)
    chat.now[0] += 0.1
    chat.controller.interrupt()  # at rest now: the first Esc of a pair, not the second
    assert "rewind" not in chat.view.names()

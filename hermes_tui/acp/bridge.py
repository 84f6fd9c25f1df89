"""The engine's `AgentUI` for one ACP session: events and questions, from the engine's threads to the loop.

The engine calls `on_event`, `ask_approval` and `ask_clarify` on its turn thread (and tool threads). Each
event goes, in order, into one asyncio queue on the protocol's loop (`call_soon_threadsafe`); the session's
pump (`pump`) turns them into session updates and sends them, merging a burst of text deltas. A question is
an item of the same queue, so the client sees it after the tool call it is about. The asking thread waits
in short slices and gives up (denied, unanswered) when the turn is interrupted, the client is gone or the
engine's own timeout passes: no thread waits forever.

Events are tagged with the turn that made them: once a turn's `session/prompt` is answered (a cancel
answers it at once, while the engine still stops), what that turn emits afterwards is dropped, so a client
never sees updates of a turn it was told had ended.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp.schema import PermissionOption, RequestPermissionResponse, ToolCallUpdate

from agent.api import (
    AgentEvent,
    ApprovalAnswer,
    ApprovalDecision,
    ApprovalRequest,
    ClarifyRequest,
    ReasoningDelta,
    TextDelta,
    ToolFinished,
    ToolStarted,
    sanitize_display,
)
from hermes_tui.acp import questions
from hermes_tui.acp.updates import TurnUpdates, Update, edit_diff, file_before_edit, tool_kind
from hermes_tui.reply_wait import NoReply, wait_for_reply

log = logging.getLogger(__name__)

WAIT_SLICE = 0.05
"""How often a waiting question looks at the interrupt and the connection (seconds)."""
ANSWER_GRACE = 5.0
"""Past the engine's own timeout, how long a question still waits for the client (seconds)."""

Send = Callable[[Update], Awaitable[None]]
Ask = Callable[[ToolCallUpdate, list[PermissionOption]], Awaitable[RequestPermissionResponse]]
Elicit = Callable[[str, str | None], Awaitable[str | None]]
"""(question, the tool call it is about) -> the typed answer, or None (declined, cancelled)."""


@dataclass
class _Event:
    event: AgentEvent
    turn: int
    before: str | None = None


@dataclass
class _Question:
    ask: Callable[[], Awaitable[Any]]  # the request to the client, made on the loop
    reply: concurrent.futures.Future[Any] = field(default_factory=concurrent.futures.Future)


@dataclass
class _Barrier:
    done: asyncio.Future[None]


class _TimedOut:
    """A question the client did not answer within the engine's timeout."""


TIMED_OUT = _TimedOut()


class SessionBridge:
    """Implements `AgentUI` for one ACP session. Everything but `on_event`/`ask_*` runs on the loop."""

    interactive = True

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        cwd: Path,
        send: Send,
        ask: Ask,
        elicit: Elicit | None = None,
        *,
        local: bool = True,
    ) -> None:
        """`elicit`: how to ask for typed text (the client's form elicitation), None when it has none.
        `local`: the tools run on this machine (`terminal.backend: local`), so a file a write replaces can
        be read here for its diff; elsewhere (docker, ssh) the diff shows the new text only."""
        self._loop = loop
        self._cwd = cwd
        self._send = send
        self._ask = ask
        self._elicit = elicit
        self._local = local
        self._queue: asyncio.Queue[_Event | _Question | _Barrier | None] = asyncio.Queue()
        self.updates = TurnUpdates(cwd)
        self.gone = threading.Event()  # the client cannot be reached: questions deny, updates stop
        self.turn = 0  # the turn whose thread emits now (set on that thread before the turn runs)
        self.answered = 0  # the last turn whose prompt was answered: its late events are dropped
        self._running: dict[str, ToolStarted] = {}
        self._before: dict[str, str | None] = {}  # what a running write_file replaces
        self._lock = threading.Lock()
        self._asking: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ AgentUI, on the engine's threads

    def on_event(self, event: AgentEvent) -> None:
        before = None
        if isinstance(event, ToolStarted):
            before = file_before_edit(event.name, event.arguments, self._cwd) if self._local else None
            with self._lock:
                self._running[event.call_id] = event
                self._before[event.call_id] = before
        elif isinstance(event, ToolFinished):
            with self._lock:
                self._running.pop(event.call_id, None)
                self._before.pop(event.call_id, None)
        self._put(_Event(event, self.turn, before))

    def ask_approval(self, request: ApprovalRequest) -> ApprovalAnswer:
        call = self._call_for(request.command, request.tool_name)
        diff = None
        if call is not None:  # an edit asked about shows its diff in the question too
            with self._lock:
                before = self._before.get(call.call_id)
            diff = edit_diff(call.name, call.arguments, self._cwd, before) or None
        tool_call = ToolCallUpdate(
            tool_call_id=call.call_id if call else f"approval-{id(request)}",
            title=questions.approval_title(request),
            kind=tool_kind(call.name if call else request.tool_name),
            status="pending",
            content=diff,
            raw_input=dict(call.arguments) if call else {"command": request.command},
        )
        options = questions.approval_options(request)
        answer = self._question(lambda: self._ask(tool_call, options), request.cancel, request.timeout)
        if answer is TIMED_OUT:
            return ApprovalAnswer(ApprovalDecision.TIMEOUT)
        return questions.approval_answer(
            answer if isinstance(answer, RequestPermissionResponse) else None, request
        )

    def ask_clarify(self, request: ClarifyRequest) -> str | None:
        call = self._call_for("", "clarify")
        question = sanitize_display(request.question)
        if not request.choices:  # typed text: the client's form, when it has one; else the model asks itself
            elicit = self._elicit
            if elicit is None:
                return None
            typed = self._question(
                lambda: elicit(question, call.call_id if call else None), request.cancel, request.timeout
            )
            return typed if isinstance(typed, str) and typed.strip() else None
        tool_call = ToolCallUpdate(
            tool_call_id=call.call_id if call else f"clarify-{id(request)}",
            title=question,
            kind="think",
            status="pending",
        )
        options = questions.clarify_options(request)
        answer = self._question(lambda: self._ask(tool_call, options), request.cancel, request.timeout)
        if not isinstance(answer, RequestPermissionResponse):
            return None
        return questions.clarify_answer_of(answer, request)

    # ------------------------------------------------------------------ on the loop

    async def pump(self) -> None:
        """Send what the engine emits, in order, until `stop()`."""
        while True:
            item = await self._queue.get()
            if item is None:
                return
            batch: list[_Event | _Question | _Barrier | None] = [item]
            while not self._queue.empty() and len(batch) < 256:
                nxt = self._queue.get_nowait()
                if nxt is None:
                    await self._handle(batch)
                    return
                batch.append(nxt)
            await self._handle(batch)

    async def flush(self) -> None:
        """Return once everything queued before now has been sent."""
        done: asyncio.Future[None] = self._loop.create_future()
        self._queue.put_nowait(_Barrier(done))
        await done

    def stop(self) -> None:
        self._queue.put_nowait(None)

    # ------------------------------------------------------------------ internals

    def _put(self, item: _Event | _Question) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: the process is ending
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)

    def _call_for(self, command: str, tool: str) -> ToolStarted | None:
        """The running call a question is about: the one whose command it is, else the latest of its tool."""
        with self._lock:
            running = list(self._running.values())
        for call in reversed(running):
            if command and call.arguments.get("command") == command:
                return call
        return next((c for c in reversed(running) if c.name == tool), running[-1] if running else None)

    def _question(self, ask: Callable[[], Awaitable[Any]], cancel: threading.Event, timeout: float) -> Any:
        """The client's answer to `ask()`: None when there is none (the turn stopped, the client is gone),
        `TIMED_OUT` past the engine's timeout."""
        if self.gone.is_set():
            return None
        question = _Question(ask)
        self._put(question)
        limit = timeout + ANSWER_GRACE
        try:
            answer = wait_for_reply(
                question.reply, lambda: cancel.is_set() or self.gone.is_set(), limit, WAIT_SLICE
            )
        except concurrent.futures.CancelledError:
            return None
        if answer is NoReply.STOPPED:
            return None
        return TIMED_OUT if answer is NoReply.TIMED_OUT else answer

    async def _handle(self, batch: list[_Event | _Question | _Barrier | None]) -> None:
        merged: list[_Event | _Question | _Barrier] = []
        for item in batch:
            if item is None:
                continue
            last = merged[-1] if merged else None
            if (
                isinstance(item, _Event)
                and isinstance(last, _Event)
                and isinstance(item.event, TextDelta | ReasoningDelta)
                and type(item.event) is type(last.event)
                and item.turn == last.turn
            ):
                joined = type(item.event)(last.event.text + item.event.text)
                merged[-1] = _Event(joined, item.turn)
            else:
                merged.append(item)
        for item in merged:
            if isinstance(item, _Barrier):
                if not item.done.done():
                    item.done.set_result(None)
            elif isinstance(item, _Question):  # asked aside: the pump goes on (the turn waits for it)
                task = asyncio.get_running_loop().create_task(self._request(item))
                self._asking.add(task)  # held until done: the loop keeps only a weak reference
                task.add_done_callback(self._asking.discard)
            elif item.turn > self.answered or not item.turn:
                for update in self.updates.updates(item.event, item.before):
                    await self._deliver(update)

    async def _deliver(self, update: Update) -> None:
        if self.gone.is_set():
            return
        try:
            await self._send(update)
        except Exception as exc:  # the client is gone (or the pipe broke): stop talking, deny questions
            log.info("updates stopped: %s", exc)
            self.gone.set()

    async def _request(self, question: _Question) -> None:
        if question.reply.done():  # the turn gave up before the question was sent
            return
        asked: asyncio.Future[Any] = asyncio.ensure_future(question.ask())
        gave_up: asyncio.Future[Any] = asyncio.wrap_future(question.reply)
        await asyncio.wait([asked, gave_up], return_when=asyncio.FIRST_COMPLETED)
        if not asked.done():
            asked.cancel()
            return
        result: Any = None
        try:
            result = asked.result()
        except Exception as exc:
            log.info("a question to the client failed (no answer): %s", exc)
            if isinstance(exc, ConnectionError):
                self.gone.set()
        with contextlib.suppress(concurrent.futures.InvalidStateError):  # the turn gave up meanwhile
            question.reply.set_result(result)

"""One subagent: its settings, its UI (the parent's, addressed to the parent's call), its run and its report.

A child is a fresh agent: its own conversation, stored as a session linked to the parent's
(`parent_session_id`, source `subagent`), its own iteration budget (`delegation.max_iterations`), the
parent's endpoint unless `delegation.model/provider/base_url` say otherwise, and never the tools that need
the parent's user or state (`delegate_task`, `clarify`, `memory`, as Hermes blocks them). Its events reach
the parent's UI wrapped in `ChildEvent` (its text is not the parent's reply; streaming text is passed on in
slices at most a few times a second, its tool output not at all), its approvals go to the user labelled with
the child, one question at a time across the children of a call.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict, Unpack

from agent.config.settings import Settings, endpoint_settings
from agent.core.events import (
    AgentEvent,
    ApiCallStarted,
    ChildEvent,
    ChildFinished,
    ChildStarted,
    StatusNotice,
    TextDelta,
    ToolFinished,
    ToolStarted,
)
from agent.core.permission_mode import PermissionMode
from agent.core.ui import AgentUI, ApprovalAnswer, ApprovalDecision, ApprovalRequest, ClarifyRequest
from agent.prompts.system import build_system_prompt

if TYPE_CHECKING:
    from agent.delegation.protocols import AgentFactory, SubAgent
    from agent.environments import Environment
    from agent.store import SessionStoreProtocol

__all__ = ["BLOCKED_TOOLS", "ChildReport", "ChildRun", "ChildTask", "ChildUI", "child_settings"]

BLOCKED_TOOLS = frozenset({"delegate_task", "clarify", "memory"})
TEXT_SLICE_SECONDS = 0.25
_FORWARDED = (ApiCallStarted, ToolStarted, ToolFinished, StatusNotice)

SUBAGENT_IDENTITY = (
    "You are a focused subagent of Hermes, a coding and terminal agent, working on one delegated task in "
    "the user's terminal. Nobody answers questions here: decide for yourself, and never ask the user. Use "
    "the tools when they help. When you are done, reply with a short summary that leads with the outcome: "
    "what you did, what you found, the files you created or changed, and any problem. That reply is all "
    "the parent agent sees of your work."
)


@dataclass(frozen=True)
class ChildTask:
    goal: str
    context: str = ""
    toolsets: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChildReport:
    index: int
    goal: str
    status: str  # the child's exit reason, or "error:<what>" when it could not run
    answer: str
    api_calls: int = 0
    tool_calls: tuple[str, ...] = ()
    duration: float = 0.0
    session_id: str = ""
    error: str | None = None

    @property
    def completed(self) -> bool:
        return self.status in ("completed", "budget_exhausted")


class _ReportExtra(TypedDict, total=False):
    """`ChildReport`'s optional fields, as `_report` passes them on."""

    api_calls: int
    tool_calls: tuple[str, ...]
    duration: float
    session_id: str
    error: str | None


def child_settings(parent: Settings, task: ChildTask) -> Settings:
    """The parent's settings for a child: its budget, its toolsets, no title call, `delegation.*`'s
    endpoint when one is configured."""
    settings = parent.model_copy(
        update={
            "max_iterations": parent.delegation_max_iterations,
            "auto_title": False,
            "toolsets": list(task.toolsets) or list(parent.toolsets),
        }
    )
    if parent.delegation_provider or parent.delegation_model or parent.delegation_base_url:
        provider = parent.delegation_provider or parent.provider
        model = parent.delegation_model or parent.model
        base_url = parent.delegation_base_url
        if base_url is None and provider == parent.provider:
            base_url = parent.base_url
        settings = endpoint_settings(settings, provider, model, base_url)
    return settings


class ChildUI:
    """The parent's UI as one child sees it (`AgentUI`)."""

    def __init__(
        self, parent: AgentUI, *, call_id: str, index: int, label: str, ask_lock: threading.Lock
    ) -> None:
        self.parent = parent
        self.call_id = call_id
        self.index = index
        self.label = label
        self.ask_lock = ask_lock
        self.tool_calls: list[str] = []
        self._text: list[str] = []
        self._last_text = 0.0
        self._lock = threading.Lock()

    def _wrap(self, event: AgentEvent) -> ChildEvent:
        return ChildEvent(call_id=self.call_id, child=self.index, event=event)

    def flush_text(self) -> None:
        with self._lock:
            text, self._text = "".join(self._text), []
            self._last_text = time.monotonic()
        if text:
            self.parent.on_event(self._wrap(TextDelta(text)))

    def on_event(self, event: AgentEvent) -> None:
        if isinstance(event, TextDelta):
            with self._lock:
                self._text.append(event.text)
                due = time.monotonic() - self._last_text >= TEXT_SLICE_SECONDS
            if due:
                self.flush_text()
            return
        if not isinstance(event, _FORWARDED):
            return
        self.flush_text()
        if isinstance(event, ToolStarted):
            self.tool_calls.append(event.name)
        self.parent.on_event(self._wrap(event))

    def ask_clarify(self, request: ClarifyRequest) -> str | None:
        return None  # children never have clarify; a stray question gets no answer

    def ask_approval(self, request: ApprovalRequest) -> ApprovalDecision | ApprovalAnswer:
        """The user answers, told which child asks; children of one call ask one at a time."""
        while not self.ask_lock.acquire(timeout=0.05):
            if request.cancel.is_set():
                return ApprovalDecision.DENY
        try:
            return self.parent.ask_approval(dataclasses.replace(request, origin=self.label))
        finally:
            self.ask_lock.release()


def _one_line(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class ChildRun:
    """Builds and runs one child in the calling thread; `interrupt()` may come from any thread."""

    def __init__(
        self,
        task: ChildTask,
        index: int,
        *,
        parent_settings: Settings,
        factory: AgentFactory,
        ui: AgentUI,
        store: SessionStoreProtocol | None,
        parent_session_id: str,
        call_id: str,
        mode: PermissionMode,
        ask_lock: threading.Lock,
        total: int,
        environment: Environment | None = None,
    ) -> None:
        """`environment`: the parent's, where the child's tools run too (None: the child opens its own)."""
        self.task = task
        self.environment = environment
        self.index = index
        self.parent_settings = parent_settings
        self.factory = factory
        self.store = store
        self.parent_session_id = parent_session_id
        self.call_id = call_id
        self.mode = mode  # the parent's permission mode: a child obeys it too
        number = f"subagent {index + 1}" if total > 1 else "subagent"
        self.ui = ChildUI(
            ui, call_id=call_id, index=index, label=f"{number}: {_one_line(task.goal, 60)}", ask_lock=ask_lock
        )
        self.parent_ui = ui
        self._cancelled = threading.Event()
        self._agent: SubAgent | None = None
        self._agent_lock = threading.Lock()

    def interrupt(self) -> None:
        self._cancelled.set()
        with self._agent_lock:
            agent = self._agent
        if agent is not None:
            agent.interrupt()

    def _report(self, status: str, answer: str = "", **extra: Unpack[_ReportExtra]) -> ChildReport:
        return ChildReport(self.index, self.task.goal, status, answer, **extra)

    def _prepare(self, settings: Settings) -> SubAgent:
        agent = self.factory(
            settings, ui=self.ui, store=self.store, source="subagent", environment=self.environment
        )
        for name in BLOCKED_TOOLS:
            agent.registry.unregister(name)
        agent.permission_mode = self.mode
        sections = [f"## Your task\n{self.task.goal}"]
        if self.task.context.strip():
            sections.append(f"## Context from the parent agent\n{self.task.context.strip()}")
        agent.system_prompt = build_system_prompt(
            cwd=settings.cwd,
            tools=[(t.name, t.description) for t in agent.toolsets.active_tools()],
            model=settings.model,
            identity=SUBAGENT_IDENTITY,
            sections=sections,
        )
        if self.store is not None:
            agent.session_id = self.store.create_session(
                model=settings.model,
                provider=settings.provider or settings.api_mode,
                base_url=settings.base_url or "",
                cwd=str(settings.cwd),
                system_prompt=agent.system_prompt,
                title=_one_line(self.task.goal, 90),
                source="subagent",
                parent_session_id=self.parent_session_id or None,
            )
        return agent

    def run(self) -> ChildReport:
        started = time.monotonic()
        if self._cancelled.is_set():
            return self._report("interrupted", error="interrupted before it started")
        settings = child_settings(self.parent_settings, self.task)
        try:
            agent = self._prepare(settings)
        except Exception as exc:
            return self._finish(self._report(f"error:{type(exc).__name__}", error=f"could not start: {exc}"))
        with self._agent_lock:
            self._agent = agent
        self.parent_ui.on_event(
            ChildStarted(self.call_id, self.index, self.task.goal, agent.session_id, settings.model)
        )
        try:
            if self._cancelled.is_set():
                agent.interrupt()
            turn = agent.run_conversation(self.task.goal)
            error = turn.error.user_line() if turn.error is not None else None
            report = self._report(
                turn.exit_reason,
                turn.final_text,
                api_calls=turn.api_calls,
                session_id=agent.session_id,
                error=error,
            )
        except Exception as exc:  # a bug in the child's loop: the parent's turn goes on
            report = self._report(f"error:{type(exc).__name__}", session_id=agent.session_id, error=str(exc))
        finally:
            with self._agent_lock:
                self._agent = None
            agent.close()
        return self._finish(dataclasses.replace(report, duration=time.monotonic() - started))

    def _finish(self, report: ChildReport) -> ChildReport:
        self.ui.flush_text()
        report = dataclasses.replace(report, tool_calls=tuple(self.ui.tool_calls))
        self.parent_ui.on_event(
            ChildFinished(
                call_id=self.call_id,
                child=self.index,
                status=report.status,
                summary=_one_line(report.answer or report.error or ""),
                api_calls=report.api_calls,
                tool_calls=len(report.tool_calls),
                duration=report.duration,
                error=report.error,
            )
        )
        return report


def tool_counts(names: Sequence[str]) -> str:
    """`terminal ×2, read_file` for the note on what a child did."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{n} ×{c}" if c > 1 else n for n, c in counts.items())

"""`ShellHooks`: the session's shell hooks, fired by the tool dispatcher and the turn.

The dispatcher sees it as `ToolHooks` (`has_hooks`, `before_tool`, `after_tool`, after the plugins' own:
a Python plugin's block wins, as in Hermes); the turn calls `prompt_submitted` (context for this turn's
message, on the wire only), `session_started` and `turn_ended`. Each hook runs once the user agreed to its
command (`consent`): asked on first use through the UI's approval question, skipped by
`hooks_auto_accept` (or `HERMES_ACCEPT_HOOKS=1`) for hooks of config.yaml; with nobody to ask (`-z`) an
unapproved hook is one line and not run. A project's Claude Code hooks are always asked about: a cloned
repository must not run commands because the user's own config trusts its own hooks.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.core.events import StatusNotice
from agent.core.messages import ToolCall
from agent.core.secrets import SECRETS
from agent.core.ui import AgentUI, ApprovalAnswer, ApprovalDecision, ApprovalRequest
from agent.hooks.consent import Consent
from agent.hooks.runner import HookAnswer, run_hook
from agent.hooks.spec import CLAUDE_TOOL_NAMES, HookSpec, claude_project_hooks, parse_hermes_hooks
from agent.toolkit.registry import ToolResult

__all__ = ["CONSENT_TIMEOUT", "HookBlock", "ShellHooks"]

CONSENT_TIMEOUT = 300.0
"""Seconds the consent question waits; no answer is a no for this session."""

_CLAUDE_EVENT_NAMES = {
    "pre_tool_call": "PreToolUse",
    "post_tool_call": "PostToolUse",
    "pre_llm_call": "UserPromptSubmit",
    "on_session_start": "SessionStart",
    "on_session_end": "Stop",
}
_POINTS = {"before_tool": "pre_tool_call", "after_tool": "post_tool_call"}


@dataclass(frozen=True)
class HookBlock:
    """A hook refused the call: the model reads why as the call's result."""

    reason: str
    command: str

    def as_result(self) -> ToolResult:
        return ToolResult(
            content=f"Tool call blocked by a hook ({self.command}): {self.reason}",
            status="denied",
            data={"blocked_by": "hook", "reason": self.reason},
        )


class ShellHooks:
    """One session's hooks (see the module doc). `ui` is read at each use: a session's UI can change."""

    def __init__(
        self,
        specs: list[HookSpec],
        *,
        hermes_home: Path,
        cwd: Path,
        ui: Callable[[], AgentUI],
        auto_accept: bool = False,
        problems: list[str] | None = None,
        hermes_source: str = "",
        interrupt: threading.Event | None = None,
    ) -> None:
        self.specs = specs
        self.cwd = cwd
        self.consent = Consent(hermes_home)
        self.auto_accept = auto_accept
        self.hermes_source = hermes_source
        self._ui = ui
        self.interrupt = interrupt
        self._problems = list(problems or [])
        self._told: set[str] = set()
        self._session_context = ""
        self.session_id = ""  # the session's, told by the turn (the tool hooks' payload carries it)

    @classmethod
    def from_settings(
        cls, settings: Any, ui: Callable[[], AgentUI], interrupt: threading.Event | None = None
    ) -> ShellHooks:
        """Hermes' `hooks:` (config.yaml) and the project's Claude Code hooks for these settings."""
        source = str(Path(settings.hermes_home) / "config.yaml")
        specs, problems = parse_hermes_hooks(settings.hooks, source)
        claude, claude_problems = claude_project_hooks(Path(settings.cwd))
        env = os.environ.get("HERMES_ACCEPT_HOOKS", "").strip().lower() in ("1", "true", "yes", "on")
        return cls(
            specs + claude,
            hermes_home=Path(settings.hermes_home),
            cwd=Path(settings.cwd),
            ui=ui,
            auto_accept=bool(settings.hooks_auto_accept) or env,
            problems=problems + claude_problems,
            hermes_source=source,
            interrupt=interrupt,
        )

    def listing(self) -> str:
        """`/hooks`: every hook with its event, matcher, timeout, source and whether it may run."""
        if not self.specs:
            return (
                "No shell hooks. Add them under hooks: in config.yaml, or in the project's "
                ".claude/settings.json (see docs/hooks.md)."
            )
        lines = [f"Shell hooks ({len(self.specs)}):"]
        for spec in self.specs:
            decided = self.consent.decided(spec)
            state = {True: "approved", False: "refused this session", None: "asks on first use"}[decided]
            if decided is None and self.auto_accept and spec.source == self.hermes_source:
                state = "runs (hooks_auto_accept)"
            matcher = f" [{spec.matcher}]" if spec.matcher else ""
            lines.append(f"  {spec.event}{matcher}  {spec.command}  ({spec.timeout} s, {state})")
            lines.append(f"    from {spec.source}")
        return "\n".join(lines)

    # ------------------------------------------------------------------ ToolHooks

    @property
    def active(self) -> bool:
        """Anything to run or to say: the turn calls in only then."""
        return bool(self.specs or self._problems)

    def has_hooks(self, point: str) -> bool:
        event = _POINTS.get(point, point)
        return any(spec.event == event for spec in self.specs)

    def before_tool(self, call: ToolCall) -> ToolCall | HookBlock:
        args = _arguments(call)
        for spec in self._for("pre_tool_call", call.name):
            answer = self._run(spec, self._payload(spec, call.name, args, call=call))
            if answer.block is not None:
                return HookBlock(answer.block, spec.command)
        return call

    def after_tool(self, call: ToolCall, result: ToolResult, duration: float = 0.0) -> ToolResult:
        """Observers only: the result goes on unchanged whatever they say."""
        specs = self._for("post_tool_call", call.name)
        if specs:
            args = _arguments(call)
            extra = {
                "result": SECRETS.redact(result.content),  # masked as everywhere it leaves the session
                "status": "ok" if result.status == "ok" else "error",
                "duration_ms": int(duration * 1000),
            }
            for spec in specs:
                self._run(spec, self._payload(spec, call.name, args, call=call, extra=extra))
        return result

    # ------------------------------------------------------------------ the turn

    def session_started(self, session_id: str, model: str) -> None:
        """A new session: what its hooks add goes into the first turn's message."""
        self.session_id = session_id
        parts = [
            self._run(
                spec, self._payload(spec, session_id=session_id, extra={"model": model, "platform": "cli"})
            )
            for spec in self._for("on_session_start")
        ]
        self._session_context = _joined(parts)

    def prompt_submitted(self, session_id: str, text: str, model: str) -> str:
        """Context for this turn's message: the session start's (once) and every prompt-submit hook's."""
        self.session_id = session_id
        self._tell_problems()
        extra = {"user_message": text, "model": model, "platform": "cli"}
        parts = [
            self._run(spec, self._payload(spec, session_id=session_id, extra=extra, prompt=text))
            for spec in self._for("pre_llm_call")
        ]
        context, self._session_context = _joined([HookAnswer(context=self._session_context), *parts]), ""
        return context

    def turn_ended(
        self, session_id: str, *, completed: bool, interrupted: bool, final: str, model: str
    ) -> None:
        extra = {"completed": completed, "interrupted": interrupted, "model": model, "platform": "cli"}
        if completed and final and not interrupted:
            for spec in self._for("post_llm_call"):
                self._run(
                    spec,
                    self._payload(spec, session_id=session_id, extra={**extra, "assistant_response": final}),
                )
        for spec in self._for("on_session_end"):
            self._run(spec, self._payload(spec, session_id=session_id, extra=extra))

    # ------------------------------------------------------------------ helpers

    def _for(self, event: str, tool: str | None = None) -> list[HookSpec]:
        return [s for s in self.specs if s.event == event and (tool is None or s.matches_tool(tool))]

    def _run(self, spec: HookSpec, payload: dict[str, Any]) -> HookAnswer:
        if not self._allowed(spec):
            return HookAnswer()
        answer = run_hook(spec, payload, self.cwd, self.interrupt)
        if answer.problem:
            self._notice(answer.problem)
        return answer

    def _allowed(self, spec: HookSpec) -> bool:
        decided = self.consent.decided(spec)
        if decided is not None:
            return decided
        trusted = spec.source == self.hermes_source
        if self.auto_accept and trusted:
            self._remember(spec)
            return True
        ui = self._ui()
        if not getattr(ui, "interactive", True):
            self.consent.for_session(spec, False)
            how = (
                "set hooks_auto_accept: true in config.yaml, or pass --accept-hooks"
                if trusted
                else "approve it once in the TUI"
            )
            self._notice(
                f"hook {spec.event} `{spec.command}` is not approved yet: not run ({how})", once=True
            )
            return False
        request = ApprovalRequest(
            command=spec.command,
            reasons=(f"a shell hook on {spec.event}, from {spec.source}; it runs with your permissions",),
            pattern_keys=(),
            timeout=CONSENT_TIMEOUT,
            tool_name=spec.event,
            rule=spec.command,
            subject="shell hook",
        )
        raw = ui.ask_approval(request)
        decision = raw.decision if isinstance(raw, ApprovalAnswer) else raw
        if decision is ApprovalDecision.ALWAYS:
            self._remember(spec)
            return True
        if decision in (ApprovalDecision.ONCE, ApprovalDecision.SESSION):
            self.consent.for_session(spec, True)
            return True
        self.consent.for_session(spec, False)
        self._notice(f"hook {spec.event} `{spec.command}` was not approved: not run in this session")
        return False

    def _remember(self, spec: HookSpec) -> None:
        problem = self.consent.remember(spec)
        if problem:
            self._notice(problem, once=True)

    def _payload(
        self,
        spec: HookSpec,
        tool: str | None = None,
        args: dict[str, Any] | None = None,
        *,
        call: ToolCall | None = None,
        session_id: str = "",
        extra: dict[str, Any] | None = None,
        prompt: str | None = None,
    ) -> dict[str, Any]:
        extra = dict(extra or {})
        session_id = session_id or self.session_id
        if call is not None:
            extra["tool_call_id"] = call.id
        if spec.dialect == "claude":
            payload: dict[str, Any] = {
                "session_id": session_id,
                "transcript_path": "",
                "cwd": str(self.cwd),
                "hook_event_name": _CLAUDE_EVENT_NAMES[spec.event],
            }
            if tool is not None:
                payload["tool_name"] = CLAUDE_TOOL_NAMES.get(tool, tool)
                payload["tool_input"] = args or {}
                if spec.event == "post_tool_call":
                    payload["tool_response"] = extra.get("result", "")
            if prompt is not None:
                payload["prompt"] = prompt
            if spec.event == "on_session_start":
                payload["source"] = "startup"
            return payload
        return {
            "hook_event_name": spec.event,
            "tool_name": tool,
            "tool_input": args if tool is not None else None,
            "session_id": session_id,
            "cwd": str(self.cwd),
            "extra": extra,
        }

    def _tell_problems(self) -> None:
        problems, self._problems = self._problems, []
        for line in problems:
            self._notice(line, once=True)

    def _notice(self, text: str, *, once: bool = False) -> None:
        if once:
            if text in self._told:
                return
            self._told.add(text)
        self._ui().on_event(StatusNotice(kind="warn", text=text))


def _arguments(call: ToolCall) -> dict[str, Any]:
    try:
        args = json.loads(call.arguments or "{}")
    except ValueError:
        return {}
    return args if isinstance(args, dict) else {}


def _joined(answers: list[HookAnswer]) -> str:
    return "\n\n".join(a.context.strip() for a in answers if a.context.strip())

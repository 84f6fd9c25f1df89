"""Runs one hook command: JSON on its stdin, its answer read from stdout (and, for Claude Code's dialect,
its exit code and stderr). Whatever goes wrong (not found, a crash, a hang past the timeout, garbage on
stdout) becomes one line in `HookAnswer.problem`; only a clear block answer blocks.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.children.supervisor import SUPERVISOR
from agent.core.text_safety import sanitize_display
from agent.hooks.spec import HookSpec

__all__ = ["MAX_OUTPUT", "HookAnswer", "run_hook"]

MAX_OUTPUT = 64 * 1024
"""Characters of a hook's stdout kept: more is cut, and the cut is said."""
STOP_GRACE = 0.5
"""Seconds between SIGTERM and SIGKILL for a hook past its timeout: it is late already."""
DEFAULT_BLOCK = "Blocked by shell hook."
POLL = 0.1
"""Seconds between looks at the interrupt while a hook runs."""


@dataclass(frozen=True)
class HookAnswer:
    block: str | None = None
    context: str = ""
    problem: str | None = None


def _label(spec: HookSpec) -> str:
    command = spec.command if len(spec.command) <= 60 else spec.command[:57] + "..."
    return f"hook {spec.event} `{command}`"


def run_hook(
    spec: HookSpec, payload: dict[str, Any], cwd: Path, interrupt: threading.Event | None = None
) -> HookAnswer:
    """Run `spec` with `payload` on stdin in `cwd` (never raises). Esc (`interrupt`) stops it at once."""
    who = _label(spec)
    try:
        argv = shlex.split(os.path.expanduser(spec.command))
    except ValueError as exc:
        return HookAnswer(problem=f"{who}: cannot be parsed ({exc}); not run")
    if not argv:
        return HookAnswer(problem=f"{who}: empty command; not run")
    try:
        proc = SUPERVISOR.popen(
            argv,
            label=f"hook {spec.event}",
            cwd=str(cwd),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except FileNotFoundError:
        return HookAnswer(problem=f"{who}: command not found; the turn goes on")
    except OSError as exc:
        return HookAnswer(problem=f"{who}: could not start ({exc.strerror or exc}); the turn goes on")
    data: bytes | None = json.dumps(payload, ensure_ascii=False, default=str).encode()
    deadline = time.monotonic() + spec.timeout
    try:
        while True:
            try:
                out_b, err_b = proc.communicate(
                    data, timeout=max(0.0, min(POLL, deadline - time.monotonic()))
                )
                break
            except subprocess.TimeoutExpired:
                data = None  # fed once: a retry only goes on reading
                late = time.monotonic() >= deadline
                if not late and not (interrupt is not None and interrupt.is_set()):
                    continue
                SUPERVISOR.stop(proc.pid, grace=STOP_GRACE)
                try:
                    proc.communicate(timeout=STOP_GRACE * 4)
                except subprocess.TimeoutExpired:  # something outside its group still holds the pipes
                    pass
                if late:
                    return HookAnswer(
                        problem=f"{who}: no answer within {spec.timeout} s (stopped); the turn goes on"
                    )
                return HookAnswer(problem=f"{who}: stopped by the interrupt")
    finally:
        SUPERVISOR.ended(proc.pid)
    out = out_b.decode("utf-8", "replace")
    err = err_b.decode("utf-8", "replace").strip()
    cut = len(out) > MAX_OUTPUT
    out = out[:MAX_OUTPUT]
    answer = (
        _claude_answer(spec, proc.returncode, out, err)
        if spec.dialect == "claude"
        else _hermes_answer(spec, proc.returncode, out, err)
    )
    if cut:
        note = f"{who}: printed more than {MAX_OUTPUT // 1024} KiB; only the first were read"
        answer = HookAnswer(answer.block, answer.context, answer.problem or note)
    return answer


def _first_line(text: str) -> str:
    line = sanitize_display(text.strip().splitlines()[0] if text.strip() else "")
    return line if len(line) <= 160 else line[:157] + "..."


def _json(out: str) -> tuple[dict[str, Any] | None, bool]:
    """stdout as a JSON object; (None, True) when it was something else but not empty."""
    text = out.strip()
    if not text:
        return None, False
    try:
        data = json.loads(text)
    except ValueError:
        return None, True
    return (data, False) if isinstance(data, dict) else (None, True)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _hermes_answer(spec: HookSpec, code: int | None, out: str, err: str) -> HookAnswer:
    """Hermes' wire: `{"action": "block", "message"}` or `{"decision": "block", "reason"}` before a tool;
    `{"context": "..."}` elsewhere; anything else is no answer. A failing exit is said, its stdout still
    read."""
    who = _label(spec)
    problem = f"{who}: exited {code}" + (f" ({_first_line(err)})" if err else "") if code else None
    data, garbage = _json(out)
    if garbage:
        return HookAnswer(problem=problem or f"{who}: printed something that is not a JSON object (ignored)")
    if data is None:
        return HookAnswer(problem=problem)
    if spec.event == "pre_tool_call":
        if data.get("action") == "block":
            return HookAnswer(block=_text(data.get("message")) or _text(data.get("reason")) or DEFAULT_BLOCK)
        if data.get("decision") == "block":
            return HookAnswer(block=_text(data.get("reason")) or _text(data.get("message")) or DEFAULT_BLOCK)
        return HookAnswer(problem=problem)
    return HookAnswer(context=_text(data.get("context")), problem=problem)


def _claude_answer(spec: HookSpec, code: int | None, out: str, err: str) -> HookAnswer:
    """Claude Code's: exit 2 blocks with stderr as the reason (before a tool); a JSON answer's `decision:
    block` or `hookSpecificOutput.permissionDecision: deny` blocks; `additionalContext`, or plain stdout of a
    prompt or session-start hook, adds context."""
    who = _label(spec)
    if code == 2:
        if spec.event == "pre_tool_call":
            return HookAnswer(block=err or DEFAULT_BLOCK)
        return HookAnswer(
            problem=f"{who}: exited 2 ({_first_line(err)}): blocking this event is not supported"
        )
    if code:
        return HookAnswer(problem=f"{who}: exited {code}" + (f" ({_first_line(err)})" if err else ""))
    data, garbage = _json(out)
    if data is None:
        plain = out.strip() if garbage or out.strip() else ""
        if plain and spec.event in ("pre_llm_call", "on_session_start"):
            return HookAnswer(context=plain)
        return HookAnswer()
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    if spec.event == "pre_tool_call":
        if specific.get("permissionDecision") == "deny":
            return HookAnswer(block=_text(specific.get("permissionDecisionReason")) or DEFAULT_BLOCK)
        if data.get("decision") == "block":
            return HookAnswer(block=_text(data.get("reason")) or DEFAULT_BLOCK)
        return HookAnswer()
    return HookAnswer(context=_text(specific.get("additionalContext")))

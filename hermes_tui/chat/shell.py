"""`!command`: the user's own shell command, run from the prompt (Claude Code's and Codex's `!`).

It runs with the terminal tool's runner (the user's `$SHELL`, its own process group, output streamed and
capped head+tail, ANSI stripped), in a thread, into a tool panel fed through the bridge like the agent's tool
calls. The user typed it, so the approval gate is not asked. Esc stops it (the group gets SIGTERM, then
SIGKILL). Its output is not sent on its own: it waits, and goes with the next message as attached context,
so the model sees what the user saw.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent.api import TERMINAL_MAX_TIMEOUT as MAX_TIMEOUT
from agent.api import (
    AgentUI,
    TerminalArgs,
    ToolContext,
    ToolFinished,
    ToolOutput,
    ToolResult,
    ToolStarted,
    attached_block,
    run_terminal,
)
from widgets.prompt.input import shell_command

__all__ = ["ShellRun", "ShellRunner", "shell_command"]

CONTEXT_CHARS = 20_000  # of one command's output, attached to the next message
_ids = itertools.count(1)


@dataclass
class ShellRun:
    command: str
    call_id: str
    interrupt: threading.Event
    result: ToolResult | None = None


class ShellRunner:
    """Runs one `!` command at a time and keeps the finished ones' output for the next message."""

    def __init__(self, ui: AgentUI, cwd: Callable[[], Path], hermes_home: Path) -> None:
        self.ui = ui
        self._cwd = cwd
        self._hermes_home = hermes_home
        self.running: ShellRun | None = None
        self._context: list[tuple[str, str]] = []  # (badge label, attached block)

    def start(self, command: str, done: Callable[[ShellRun], None]) -> ShellRun:
        """Start `command` in a thread; `done(run)` is called from that thread when it has ended."""
        run = ShellRun(command, f"shell-{next(_ids)}", threading.Event())
        self.running = run
        self.ui.on_event(ToolStarted(run.call_id, "shell", {"command": command}, command))
        threading.Thread(target=self._run, args=(run, done), name="shell-mode", daemon=True).start()
        return run

    def stop(self) -> bool:
        """Esc: stop the running command. False when none runs."""
        if self.running is None:
            return False
        self.running.interrupt.set()
        return True

    def take_context(self) -> list[tuple[str, str]]:
        """(label, attached block) of the commands run since the last message (then forgotten)."""
        blocks, self._context = self._context, []
        return blocks

    def _run(self, run: ShellRun, done: Callable[[ShellRun], None]) -> None:
        started = time.monotonic()
        ctx = ToolContext(
            cwd=self._cwd(),
            session_id="",
            call_id=run.call_id,
            interrupt=run.interrupt,
            hermes_home=self._hermes_home,
            emit_output=lambda chunk: self.ui.on_event(ToolOutput(run.call_id, chunk)),
        )
        try:
            result = run_terminal(TerminalArgs(command=run.command, timeout=MAX_TIMEOUT), ctx)
        except Exception as exc:  # the runner's own failure (cannot start a shell): said, never raised
            result = ToolResult.error(f"The command could not run: {exc}")
        run.result = result
        duration = time.monotonic() - started
        self.ui.on_event(
            ToolFinished(run.call_id, "shell", result.status, duration, result.content, result.data)
        )
        self._context.append(_context_block(run.command, result))
        self.running = None
        done(run)


def _context_block(command: str, result: ToolResult) -> tuple[str, str]:
    exit_code = result.data.get("exit_code")
    code = f"exit {exit_code}" if isinstance(exit_code, int) else result.status
    output = result.content
    note = ""
    if len(output) > CONTEXT_CHARS:
        note = f"[output cut to its last {CONTEXT_CHARS} characters]"
        output = output[-CONTEXT_CHARS:]
    label = f"$ {' '.join(command.split())[:80]} · {code}"
    body = f"I ran this in my shell:\n$ {command}\n{output}"
    return label, attached_block("shell", label, body, note)

"""Hermes' `quick_commands` (config.yaml): a `/name` of the user's own, listed in `/help` and completed.

    quick_commands:
      hi:     {type: exec, command: "echo hello from $USER", description: Say hi}
      st:     {type: alias, target: /status}
      review: {type: prompt, prompt: "Review the last commit for bugs."}

`exec` runs the command in the user's shell (as `!` does: the session's folder, 30 s at most, its own
process group) and shows its output as a notice; nothing goes to the model (Hermes: "no LLM call").
`alias` runs another slash command, with what was typed after the name appended; `prompt` (ours) sends its
text as a message, with what was typed after the name appended. A built-in command keeps its name; an entry
that cannot be used is one line, once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_tui.commands.base import CommandContext

if TYPE_CHECKING:
    from agent.api import Settings

__all__ = ["EXEC_TIMEOUT", "QuickCommand", "quick_commands", "quick_commands_loaded"]

EXEC_TIMEOUT = 30  # seconds, as Hermes
KINDS = ("exec", "alias", "prompt")
OUTPUT_CHARS = 20_000
MAX_ALIAS_DEPTH = 5


class _Aliasing(threading.local):
    depth = 0


_ALIASING = _Aliasing()  # how deep the aliases being run are (a loop of them is said, not recursed)


@dataclass(frozen=True)
class QuickCommand:
    name: str
    help: str
    kind: str
    body: str  # the command, the target, or the prompt
    cwd: Path = Path()
    hermes_home: Path = Path()
    aliases: tuple[str, ...] = ()
    key: str = ""
    takes_argument: bool = True
    group: str = "Quick commands"

    def run(self, ctx: CommandContext, arg: str) -> None:
        text = f"{self.body} {arg}".strip()
        if self.kind == "prompt":
            ctx.controller.submit(text)  # a message, even if its text starts with a slash
        elif self.kind == "exec":
            self._exec(ctx)
        elif _ALIASING.depth >= MAX_ALIAS_DEPTH:
            ctx.transcript.add_notice("error", f"/{self.name}: aliases call each other in a loop ({text})")
        else:
            _ALIASING.depth += 1
            try:
                ctx.submit(text)
            finally:
                _ALIASING.depth -= 1

    def _exec(self, ctx: CommandContext) -> None:
        name, command, cwd, home = self.name, self.body, self.cwd, self.hermes_home

        def work() -> None:
            from agent.api import TerminalArgs, ToolContext, redact_secrets, run_terminal, sanitize_display

            tool_ctx = ToolContext(
                cwd=cwd, session_id="", call_id=f"quick-{name}", interrupt=threading.Event(), hermes_home=home
            )
            try:
                result = run_terminal(TerminalArgs(command=command, timeout=EXEC_TIMEOUT), tool_ctx)
            except Exception as exc:  # the runner's own failure (no shell): one line, never raised
                ctx.from_thread(
                    ctx.transcript.add_notice, "error", f"/{name}: the command could not run ({exc})"
                )
                return
            content = result.content.strip()
            exit_code = result.data.get("exit_code")
            content = content.removesuffix(f"[exit code: {exit_code}]").rstrip()  # said in the head if not 0
            output = sanitize_display(redact_secrets(content))
            if len(output) > OUTPUT_CHARS:
                output = f"[output cut to its last {OUTPUT_CHARS} characters]\n" + output[-OUTPUT_CHARS:]
            failed = result.status != "ok" or (isinstance(exit_code, int) and exit_code != 0)
            head = f"/{name}: $ {command}" + (
                f" (exit {exit_code})" if failed and isinstance(exit_code, int) else ""
            )
            text = f"{head}\n{output}" if output else f"{head}\n(no output)"
            kind = "warn" if failed else "info"
            ctx.from_thread(lambda: ctx.transcript.add_notice(kind, text, multiline=True))

        ctx.in_thread(work, group="quick-command")


def quick_commands(
    config: Any, reserved: frozenset[str], cwd: Path, hermes_home: Path
) -> tuple[list[QuickCommand], list[str]]:
    """The usable entries of `quick_commands`, and one line per entry that is not."""
    if config is None:
        return [], []
    if not isinstance(config, dict):
        return [], [f"quick_commands: expected a mapping of name -> command, got {type(config).__name__}"]
    usable: list[QuickCommand] = []
    problems: list[str] = []
    for raw_name, entry in config.items():
        name = str(raw_name).strip().lstrip("/").lower()
        where = f"quick_commands.{raw_name}"
        if not name or " " in name:
            problems.append(f"{where}: a command name is one word")
            continue
        if name in reserved:
            problems.append(f"{where}: /{name} is a built-in command, which keeps its name")
            continue
        if not isinstance(entry, dict):
            problems.append(f"{where}: expected a mapping with type and command")
            continue
        kind = entry.get("type", "exec")
        field = {"exec": "command", "alias": "target", "prompt": "prompt"}.get(str(kind))
        if field is None:
            problems.append(f"{where}: type {kind!r} is not one of {', '.join(KINDS)}")
            continue
        body = entry.get(field)
        if kind == "prompt" and not body:
            body = entry.get("text")
        if not isinstance(body, str) or not body.strip():
            problems.append(f"{where}: type {kind} needs '{field}'")
            continue
        body = body.strip()
        if kind == "alias" and not body.startswith("/"):
            body = "/" + body
        description = entry.get("description")
        default = {"exec": f"Run: {body}", "alias": f"Runs {body}", "prompt": f"Sends: {body}"}[str(kind)]
        help_line = " ".join(str(description).split()) if description else default
        usable.append(QuickCommand(name, help_line[:100], str(kind), body, cwd, hermes_home))
    return usable, problems


def quick_commands_loaded(ctx: CommandContext, settings: Settings) -> None:
    """The configured quick commands into the chat's registry; what is wrong with them said once."""
    commands, problems = quick_commands(
        settings.quick_commands, ctx.registry.reserved_names(), Path(settings.cwd), Path(settings.hermes_home)
    )
    ctx.registry.set_quick(commands)
    ctx.refresh_completions()
    for problem in problems:
        ctx.transcript.add_notice("warn", problem)

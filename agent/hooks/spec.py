"""What a shell hook is: one command for one event, read from Hermes' `hooks:` block or a project's Claude
Code `.claude/settings.json`, and the problems found reading them (one line each, never a traceback).

Hermes' block (config.yaml)::

    hooks:
      pre_tool_call:
        - command: ~/.hermes/hooks/no-rm.sh
          matcher: terminal        # a regex over the tool's name (tool events only)
          timeout: 10              # seconds, 1..300, default 60

Claude Code's (`.claude/settings.json` in the project)::

    {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "..."}]}]}}

Claude's events that map cleanly onto ours are read (`CLAUDE_EVENTS`); the rest are listed as not run.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "CLAUDE_EVENTS",
    "CLAUDE_TOOL_NAMES",
    "DEFAULT_TIMEOUT",
    "EVENTS",
    "MAX_TIMEOUT",
    "HookSpec",
    "claude_project_hooks",
    "parse_hermes_hooks",
]

Dialect = Literal["hermes", "claude"]

DEFAULT_TIMEOUT = 60
MAX_TIMEOUT = 300
EVENTS: tuple[str, ...] = (
    "pre_tool_call",
    "post_tool_call",
    "pre_llm_call",
    "post_llm_call",
    "on_session_start",
    "on_session_end",
)
"""Hermes' hook events hermes-tui fires for shell hooks: before and after a tool call, on prompt submit
(`pre_llm_call`, once per turn), a completed turn (`post_llm_call`), a new session, every turn's end
(`on_session_end`, as Hermes fires it)."""
_TOOL_EVENTS = frozenset({"pre_tool_call", "post_tool_call"})
_HERMES_ONLY = frozenset(
    {
        "transform_terminal_output",
        "transform_tool_result",
        "transform_llm_output",
        "pre_verify",
        "pre_api_request",
        "post_api_request",
        "api_request_error",
        "on_session_finalize",
        "on_session_reset",
        "subagent_start",
        "subagent_stop",
        "pre_gateway_dispatch",
        "pre_approval_request",
        "post_approval_response",
    }
)
"""Hermes' events for things hermes-tui does not have or fires only for Python plugins."""

CLAUDE_EVENTS: dict[str, str] = {
    "PreToolUse": "pre_tool_call",
    "PostToolUse": "post_tool_call",
    "UserPromptSubmit": "pre_llm_call",
    "SessionStart": "on_session_start",
    "Stop": "on_session_end",
}
"""Claude Code's events that mean the same moment here. `Stop` is observed only: its "block" (keep going)
is not honoured. `Notification`, `SubagentStop`, `PreCompact`, `SessionEnd` have no counterpart."""

CLAUDE_TOOL_NAMES: dict[str, str] = {
    "terminal": "Bash",
    "write_file": "Write",
    "patch": "Edit",
    "read_file": "Read",
    "search_files": "Grep",
    "web_search": "WebSearch",
    "web_extract": "WebFetch",
    "todo": "TodoWrite",
    "delegate_task": "Task",
}
"""Our tools under Claude Code's names: a Claude matcher (`Bash`, `Edit|Write`) and its hook's `tool_name`
speak these."""


@dataclass(frozen=True)
class HookSpec:
    """One command for one event. `source`: the file it came from (consent names it)."""

    event: str
    command: str
    matcher: str | None = None
    timeout: int = DEFAULT_TIMEOUT
    dialect: Dialect = "hermes"
    source: str = ""
    _pattern: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    def matches_tool(self, tool_name: str) -> bool:
        """Hermes: the matcher is a regex the whole name must match (a broken regex: equality). Claude: the
        same over its name for the tool (or ours), `*` and "" match all."""
        if self.event not in _TOOL_EVENTS or not self.matcher or self.matcher == "*":
            return True
        names = [tool_name]
        if self.dialect == "claude":
            names.insert(0, CLAUDE_TOOL_NAMES.get(tool_name, tool_name))
        if self._pattern is None:
            return self.matcher in names
        return any(self._pattern.fullmatch(name) for name in names)


def _spec(
    event: str,
    raw: Any,
    where: str,
    problems: list[str],
    *,
    dialect: Dialect,
    source: str,
    matcher: Any = None,
) -> HookSpec | None:
    if not isinstance(raw, dict):
        problems.append(f"{where}: expected a mapping with a 'command', got {type(raw).__name__}")
        return None
    command = raw.get("command")
    if not isinstance(command, str) or not command.strip():
        problems.append(f"{where}: no 'command'")
        return None
    if dialect == "hermes":
        matcher = raw.get("matcher")
    if matcher is not None and not isinstance(matcher, str):
        problems.append(f"{where}.matcher: expected a string (a regex over the tool name); ignored")
        matcher = None
    if isinstance(matcher, str):
        matcher = matcher.strip() or None
    if matcher is not None and event not in _TOOL_EVENTS:
        problems.append(f"{where}.matcher: only tool events take one; the hook runs on every {event}")
        matcher = None
    timeout = raw.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout < 1:
        problems.append(
            f"{where}.timeout = {timeout!r}: expected seconds (1..{MAX_TIMEOUT}); using {DEFAULT_TIMEOUT}"
        )
        timeout = DEFAULT_TIMEOUT
    if timeout > MAX_TIMEOUT:
        problems.append(f"{where}.timeout = {timeout!r}: more than {MAX_TIMEOUT} s; using {MAX_TIMEOUT}")
        timeout = MAX_TIMEOUT
    pattern = None
    if matcher and matcher != "*":
        try:
            pattern = re.compile(matcher)
        except re.error as exc:
            problems.append(f"{where}.matcher {matcher!r} is not a regex ({exc}); compared as a name")
    return HookSpec(event, command.strip(), matcher, int(timeout), dialect, source, pattern)


def parse_hermes_hooks(block: Any, source: str) -> tuple[list[HookSpec], list[str]]:
    """Hermes' `hooks:` mapping (event -> list of entries) as specs, and what was wrong with it."""
    problems: list[str] = []
    if block is None:
        return [], problems
    if not isinstance(block, dict):
        return [], [f"hooks: expected a mapping of event -> list of hooks, got {type(block).__name__}"]
    specs: list[HookSpec] = []
    for event, entries in block.items():
        if event == "output_spill" or entries is None:
            continue
        if event in _HERMES_ONLY:
            problems.append(f"hooks.{event}: hermes-tui does not fire this event for shell hooks (not run)")
            continue
        if event not in EVENTS:
            close = difflib.get_close_matches(str(event), EVENTS, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]}?" if close else f"known: {', '.join(EVENTS)}"
            problems.append(f"hooks.{event}: unknown event ({hint})")
            continue
        if not isinstance(entries, list):
            problems.append(f"hooks.{event}: expected a list of hooks, got {type(entries).__name__}")
            continue
        for i, raw in enumerate(entries):
            spec = _spec(event, raw, f"hooks.{event}[{i}]", problems, dialect="hermes", source=source)
            if spec is not None:
                specs.append(spec)
    return specs, problems


def claude_project_hooks(cwd: Path) -> tuple[list[HookSpec], list[str]]:
    """The hooks of the project's `.claude/settings.json` and `.claude/settings.local.json` (in `cwd` or
    the nearest folder above it that has a `.claude/`, up to the git root), in Claude Code's dialect."""
    folder = _claude_folder(cwd)
    if folder is None:
        return [], []
    specs: list[HookSpec] = []
    problems: list[str] = []
    for name in ("settings.json", "settings.local.json"):
        path = folder / name
        if not path.is_file():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            problems.append(f"{path}: not readable as JSON ({exc}); its hooks are not run")
            continue
        block = data.get("hooks") if isinstance(data, dict) else None
        if block is None:
            continue
        if not isinstance(block, dict):
            problems.append(f"{path}: hooks: expected an object")
            continue
        for event, groups in block.items():
            ours = CLAUDE_EVENTS.get(event)
            if ours is None:
                problems.append(f"{path}: hooks.{event}: no hermes-tui event matches it (not run)")
                continue
            if not isinstance(groups, list):
                problems.append(f"{path}: hooks.{event}: expected a list")
                continue
            for i, group in enumerate(groups):
                where = f"{path}: hooks.{event}[{i}]"
                if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                    problems.append(f"{where}: expected {{'matcher': ..., 'hooks': [...]}}")
                    continue
                for j, raw in enumerate(group["hooks"]):
                    if isinstance(raw, dict) and raw.get("type", "command") != "command":
                        problems.append(
                            f"{where}.hooks[{j}]: type {raw.get('type')!r} is not supported (not run)"
                        )
                        continue
                    matcher = group.get("matcher") if ours in _TOOL_EVENTS else None
                    spec = _spec(
                        ours,
                        raw,
                        f"{where}.hooks[{j}]",
                        problems,
                        dialect="claude",
                        source=str(path),
                        matcher=matcher,
                    )
                    if spec is not None:
                        specs.append(spec)
    return specs, problems


def _claude_folder(cwd: Path) -> Path | None:
    here = cwd.resolve()
    for folder in (here, *here.parents):
        if (folder / ".claude").is_dir() and folder != Path.home():
            return folder / ".claude"
        if (folder / ".git").exists():
            return None
    return None

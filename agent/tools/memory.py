"""The `memory` tool: durable notes that survive sessions, in Hermes' own files and format.

`$HERMES_HOME/memories/MEMORY.md` holds the agent's notes (environment facts, conventions, lessons learned),
`$HERMES_HOME/memories/USER.md` what it knows about the user. Entries are separated by a line holding only
`§`. Both files have a character budget; a frozen snapshot of them enters each new session's system prompt
(`agent/prompts/memory_snapshot.py`), so a change is saved at once and reaches the prompt in the next
session. The limits and the on/off switches come from `ctx.state.memory` (Hermes' `memory.*` settings).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent.core.bounded_files import MAX_MEMORY_BYTES, read_text
from agent.toolkit.registry import Tool, ToolContext, ToolResult
from agent.tools.files import atomic_write

if TYPE_CHECKING:
    from agent.config.settings import Settings

SEPARATOR = "\n§\n"
_SPLIT = re.compile(r"^[ \t]*§[ \t]*$", re.MULTILINE)
FILES = {"memory": "MEMORY.md", "user": "USER.md"}
LIMITS = {"memory": 2200, "user": 1375}
LABELS = {"memory": "memory", "user": "user profile"}
TAKES_EFFECT = (
    "Saved to {file} now. This session's system prompt keeps the memory snapshot taken when the session "
    "started, so the change appears in the prompt from the next new session on (resuming this session keeps "
    "its original prompt)."
)
SWITCH_KEYS = {"memory": "memory.memory_enabled", "user": "memory.user_profile_enabled"}


def memory_state(settings: Settings) -> dict[str, Any]:
    """The session state this tool reads (`ctx.state.memory`): Hermes' `memory.*` limits and switches."""
    return {
        "memory_enabled": settings.memory_enabled,
        "user_enabled": settings.user_profile_enabled,
        "memory_limit": settings.memory_char_limit,
        "user_limit": settings.user_char_limit,
    }


def memory_limits(ctx: ToolContext) -> dict[str, int]:
    """The character limit of each file for this session (defaults: Hermes' 2,200 and 1,375)."""
    configured = ctx.state.memory
    return {target: int(configured.get(f"{target}_limit", LIMITS[target])) for target in FILES}


def _enabled(ctx: ToolContext, target: str) -> bool:
    return bool(ctx.state.memory.get(f"{target}_enabled", True))


def memory_dir(hermes_home: Path) -> Path:
    return hermes_home / "memories"


def memory_path(hermes_home: Path, target: str) -> Path:
    return memory_dir(hermes_home) / FILES[target]


def parse_entries(text: str) -> list[str]:
    return [e.strip() for e in _SPLIT.split(text) if e.strip()]


def load_entries(hermes_home: Path, target: str) -> list[str]:
    """The entries of MEMORY.md ("memory") or USER.md ("user"); [] when the file does not exist."""
    try:
        return parse_entries(read_text(memory_path(hermes_home, target), limit=MAX_MEMORY_BYTES))
    except FileNotFoundError:
        return []


def join_entries(entries: list[str]) -> str:
    return SEPARATOR.join(entries)


class MemoryArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")

    target: Literal["memory", "user"] = Field(
        default="memory",
        description=(
            "'memory' for your own notes (environment facts, project conventions, lessons learned); "
            "'user' for facts about the user (name, role, preferences, communication style)."
        ),
    )
    action: Literal["add", "replace", "remove"] = Field(
        description="'add' a new entry, 'replace' the entry containing old_text with content, "
        "or 'remove' the entry containing old_text."
    )
    content: str | None = Field(
        default=None, description="The entry text, for add and replace. Keep it short and self-contained."
    )
    old_text: str | None = Field(
        default=None,
        description="For replace and remove: a piece of text that appears in exactly one existing entry.",
    )

    @field_validator("target", "action", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


def _usage(entries: list[str], limit: int) -> str:
    return f"{len(join_entries(entries)):,}/{limit:,} characters"


def _listing(target: str, entries: list[str], limit: int) -> str:
    if not entries:
        return f"The {LABELS[target]} is now empty."
    body = "\n".join(f"{i}. {e}" for i, e in enumerate(entries, 1))
    return f"Current {LABELS[target]} entries ({_usage(entries, limit)}):\n{body}"


def _clean_content(content: str) -> str:
    # A line holding only § would split the entry in two.
    return "\n".join(ln for ln in content.strip().splitlines() if ln.strip() != "§").strip()


def _find_one(entries: list[str], old_text: str, target: str, limit: int) -> int | ToolResult:
    hits = [i for i, e in enumerate(entries) if old_text in e]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        return ToolResult.error(
            f"no {LABELS[target]} entry contains {old_text!r}. " + _listing(target, entries, limit)
        )
    return ToolResult.error(
        f"{len(hits)} {LABELS[target]} entries contain {old_text!r}; use a longer old_text that matches "
        "exactly one entry."
    )


def memory(args: MemoryArgs, ctx: ToolContext) -> ToolResult:
    target = args.target
    if not _enabled(ctx, target):
        return ToolResult.error(
            f"the {LABELS[target]} is switched off ({SWITCH_KEYS[target]}: false in config.yaml)."
        )
    limit = memory_limits(ctx)[target]
    try:
        entries = load_entries(ctx.hermes_home, target)
    except OSError as exc:  # a FIFO, a device or an oversized file in its place: left as it is
        return ToolResult.error(f"the {LABELS[target]} file cannot be used: {exc.strerror or exc}.")
    content = _clean_content(args.content or "")
    old_text = (args.old_text or "").strip()

    if args.action in ("add", "replace") and not content:
        return ToolResult.error(f"content is required for action={args.action!r}.")
    if args.action in ("replace", "remove") and not old_text:
        return ToolResult.error(f"old_text is required for action={args.action!r}.")

    if args.action == "add":
        if content in entries:
            return ToolResult(
                content=f"That entry is already in the {LABELS[target]}; nothing changed.",
                data={"target": target, "entries": entries},
            )
        new_entries = [*entries, content]
        verb = "Added an entry to"
    else:
        found = _find_one(entries, old_text, target, limit)
        if isinstance(found, ToolResult):
            return found
        new_entries = list(entries)
        if args.action == "replace":
            new_entries[found] = content
            verb = "Replaced an entry in"
        else:
            del new_entries[found]
            verb = "Removed an entry from"

    size = len(join_entries(new_entries))
    if size > limit and args.action != "remove":
        used = len(join_entries(entries))
        return ToolResult.error(
            f"the {LABELS[target]} is limited to {limit:,} characters: {used:,} are used and this change "
            f"would make it {size:,}. Remove or shorten entries first (merge related ones), or keep only "
            "what will matter in future sessions."
        )

    path = memory_path(ctx.hermes_home, target)
    text = join_entries(new_entries)
    atomic_write(path, (text + "\n" if text else "").encode("utf-8"))
    effect = TAKES_EFFECT.format(file=FILES[target])
    return ToolResult(
        content=f"{verb} the {LABELS[target]}. {effect}\n{_listing(target, new_entries, limit)}",
        data={"target": target, "entries": new_entries, "path": str(path), "chars": size, "limit": limit},
    )


MEMORY_TOOL = Tool(
    name="memory",
    toolset="memory",
    description=(
        "Save durable notes that persist across sessions: a snapshot of them is loaded into the system "
        "prompt when a session starts (writes are saved at once and show there from the next session). "
        "target='memory' for facts about the environment, projects and lessons learned; target='user' for "
        "the user's preferences and details. Save only what will still matter later, not task progress. "
        "Space is small (memory 2,200 characters, user 1,375 by default): keep entries short, replace or "
        "remove stale ones."
    ),
    args_model=MemoryArgs,
    handler=memory,
    summary_arg="content",
)

TOOLS = [MEMORY_TOOL]

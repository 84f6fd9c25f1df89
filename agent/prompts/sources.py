"""What a new session's system prompt takes from $HERMES_HOME: SOUL.md, memory, the skills index; and the
connected MCP servers' instructions.

Read once, when the session's prompt is built (`agent/prompts/system.py` assembles it); the prompt is then
stored and replayed byte for byte, so edits to these files reach the next new session, never a running one.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.prompts.system import CONTEXT_FILE_CAP, read_capped_text

if TYPE_CHECKING:
    from agent.config.settings import Settings
    from agent.skills.library import SkillLibrary

SOUL_FILE = "SOUL.md"
MEMORY_GUIDANCE = (
    "You have persistent memory across sessions (the memory tool). Save durable facts: the user's "
    "preferences and recurring corrections, environment details, tool quirks, stable conventions. Do not "
    "save task progress or anything that will be stale in a week (session_search recalls past work). Write "
    "entries as declarative facts ('User prefers concise answers'), not as orders to yourself; procedures "
    "belong in skills."
)
SKILL_TOOLS = frozenset({"skills_list", "skill_view", "skill_manage"})


SERVER_INSTRUCTIONS_MAX = 2048
"""Characters of one MCP server's `instructions` the prompt takes (Claude Code's cap): a server cannot fill
the context with them; the rest is cut with a marker."""
SERVER_INSTRUCTIONS_TOTAL = 8192
"""Characters of every server's instructions together: the servers past it are left out, named."""


def server_instructions_section(found: Sequence[tuple[str, str]]) -> str:
    """The system prompt's section of the MCP servers' own instructions (`InitializeResult.instructions`),
    each under its server's name and capped, or "" when none gave any. `found` is (toolset, text), the
    toolset named `mcp-<server>`."""
    blocks: list[str] = []
    left_out: list[str] = []
    used = 0
    for toolset, text in found:
        server = toolset.removeprefix("mcp-")
        body = text.strip()
        if not body:
            continue
        if len(body) > SERVER_INSTRUCTIONS_MAX:
            body = body[:SERVER_INSTRUCTIONS_MAX].rstrip() + " [… cut at 2,048 characters]"
        if used + len(body) > SERVER_INSTRUCTIONS_TOTAL:
            left_out.append(server)
            continue
        used += len(body)
        blocks.append(f"### {server}\n{body}")
    if not blocks:
        return ""
    head = "## MCP server instructions\nWhat the connected MCP servers say about using their tools:"
    tail = (
        [f"(Left out, over {SERVER_INSTRUCTIONS_TOTAL:,} characters: {', '.join(left_out)}.)"]
        if left_out
        else []
    )
    return "\n\n".join([head, *blocks, *tail])


def load_soul(hermes_home: Path) -> str | None:
    """`$HERMES_HOME/SOUL.md`: the identity Hermes puts first in the prompt instead of its own, or None."""
    try:
        text = read_capped_text(hermes_home / SOUL_FILE).strip()
    except OSError:
        return None
    if len(text) > CONTEXT_FILE_CAP:
        text = text[:CONTEXT_FILE_CAP] + f"\n[... {SOUL_FILE} truncated at {CONTEXT_FILE_CAP} characters]"
    return text or None


def session_prompt_parts(
    settings: Settings,
    tool_names: Collection[str],
    skills: SkillLibrary,
    server_instructions: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """Keyword arguments for `build_system_prompt`: the identity (SOUL.md), the memory guidance (when the
    memory tool is offered), the skills index (when the skills tools are), the MCP servers' instructions
    (`server_instructions`: (toolset, text) of the enabled ones) and the memory snapshot."""
    from agent.prompts.memory_snapshot import memory_snapshot
    from agent.skills.index import skills_index

    sections: list[str] = []
    if "memory" in tool_names:
        sections.append(MEMORY_GUIDANCE)
    if SKILL_TOOLS & set(tool_names):
        try:
            sections.append(skills_index(skills.enabled()))
        except OSError:
            pass
    if section := server_instructions_section(server_instructions):
        sections.append(section)
    try:
        memory = memory_snapshot(
            settings.hermes_home,
            memory_enabled=settings.memory_enabled,
            user_enabled=settings.user_profile_enabled,
            memory_limit=settings.memory_char_limit,
            user_limit=settings.user_char_limit,
        )
    except OSError:
        memory = ""  # an unreadable memory file never stops a session
    return {"identity": load_soul(settings.hermes_home), "sections": sections, "memory": memory}

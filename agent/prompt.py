"""The system prompt: built once per session, stored with it, replayed byte for byte on resume.

Anything that changes per turn (plugin context, the date on a later day) must never leak in here: a
byte-stable prefix is what lets provider prompt caches hit on every call of a long session.
"""

from __future__ import annotations

import platform
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path

CONTEXT_FILES = (".hermes.md", "HERMES.md", "AGENTS.md", "CLAUDE.md")
CONTEXT_FILE_CAP = 20_000

IDENTITY = (
    "You are Hermes, a capable coding and terminal agent working inside the user's terminal. You help by "
    "reading and changing files, running commands and explaining what you do. Be direct and concise. "
    "Use the tools when they help; prefer reading a file over guessing its content. Ask with the clarify "
    "tool when a decision really needs the user. Never retry a command the user refused."
)


def find_context_file(cwd: Path) -> Path | None:
    """The first project instruction file present in the working directory, in priority order."""
    for name in CONTEXT_FILES:
        path = cwd / name
        if path.is_file():
            return path
    return None


def build_system_prompt(
    *,
    cwd: Path,
    tools: Iterable[tuple[str, str]],
    model: str,
    now: datetime | None = None,
    identity: str | None = None,
    sections: Sequence[str] = (),
    memory: str = "",
) -> str:
    now = now or datetime.now().astimezone()
    lines = [identity or IDENTITY, "", "## Environment"]
    lines.append(f"- Date: {now.strftime('%A, %Y-%m-%d')}")
    lines.append(f"- Working directory: {cwd}")
    lines.append(f"- OS: {platform.system()} {platform.release()} ({platform.machine()})")
    lines.append(f"- Model: {model}")
    tool_list = list(tools)
    if tool_list:
        lines += ["", "## Tools"]
        for name, description in tool_list:
            first = description.strip().splitlines()[0] if description.strip() else ""
            lines.append(f"- {name}: {first}")
    for section in sections:
        if section.strip():
            lines += ["", section.strip()]
    context = find_context_file(cwd)
    if context is not None:
        try:
            text = context.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        if text.strip():
            if len(text) > CONTEXT_FILE_CAP:
                text = (
                    text[:CONTEXT_FILE_CAP]
                    + f"\n[... {context.name} truncated at {CONTEXT_FILE_CAP} characters]"
                )
            lines += ["", f"## Project instructions ({context.name})", text.rstrip()]
    if memory.strip():
        lines += ["", memory.strip()]
    return "\n".join(lines) + "\n"

"""The system prompt: built once per session, stored with it, replayed byte for byte on resume.

Anything that changes per turn (plugin context, the date on a later day) must never leak in here: a
byte-stable prefix is what lets provider prompt caches hit on every call of a long session.
"""

from __future__ import annotations

import platform
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path

from agent.core.bounded_files import read_head

CONTEXT_FILE_CAP = 20_000
# Project instructions, Hermes' order: the first kind present is the one read.
HERMES_FILES = (".hermes.md", "HERMES.md")  # the working directory, then its parents up to the git root
AGENTS_FILES = ("AGENTS.md", "agents.md")  # the working directory only
CLAUDE_FILES = ("CLAUDE.md", "claude.md")
CURSOR_RULES = ".cursorrules"  # with .cursor/rules/*.mdc, all of them

IDENTITY = (
    "You are Hermes, a capable coding and terminal agent working inside the user's terminal. You help by "
    "reading and changing files, running commands and explaining what you do. Be direct and concise. "
    "Use the tools when they help; prefer reading a file over guessing its content. Ask with the clarify "
    "tool when a decision really needs the user. Never retry a command the user refused."
)


def _git_root(start: Path) -> Path | None:
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def _first_file(directory: Path, names: Sequence[str]) -> Path | None:
    for name in names:
        if (directory / name).is_file():
            return directory / name
    return None


def find_context_files(cwd: Path) -> list[Path]:
    """The project's instruction files, as Hermes finds them (one kind, the first present):
    `.hermes.md`/`HERMES.md` in the working directory or a parent up to the git root (outside a git
    repository, the working directory only); else `AGENTS.md`, else `CLAUDE.md` (either case); else
    `.cursorrules` and `.cursor/rules/*.mdc`."""
    try:
        here = cwd.resolve()
    except OSError:
        return []
    root = _git_root(here)
    for directory in (here, *here.parents) if root is not None else (here,):
        found = _first_file(directory, HERMES_FILES)
        if found is not None:
            return [found]
        if directory == root:
            break
    for names in (AGENTS_FILES, CLAUDE_FILES):
        found = _first_file(here, names)
        if found is not None:
            return [found]
    rules_dir = here / ".cursor" / "rules"
    rules = sorted(rules_dir.glob("*.mdc")) if rules_dir.is_dir() else []
    cursorrules = here / CURSOR_RULES
    return [cursorrules, *rules] if cursorrules.is_file() else rules


def read_capped_text(path: Path) -> str:
    """An instruction file's text, enough of it to hold CONTEXT_FILE_CAP characters (the caller truncates
    to that): a huge file is not read whole, a FIFO or a device is refused (FileRefused, an OSError)."""
    head, _more = read_head(path, limit=4 * CONTEXT_FILE_CAP + 4)  # UTF-8: at most 4 bytes a character
    return head.decode("utf-8", errors="replace")


def _strip_frontmatter(text: str) -> str:
    """A `---` YAML header (Cursor's rule metadata, Hermes' future settings) is not instructions."""
    body = text.lstrip("\ufeff")
    if body.startswith("---\n"):
        end = body.find("\n---", 4)
        if end >= 0:
            return body[end + 4 :].lstrip("\n")
    return text


def context_sections(cwd: Path) -> list[str]:
    """One prompt section per instruction file (capped at CONTEXT_FILE_CAP characters each)."""
    sections = []
    for path in find_context_files(cwd):
        try:
            text = _strip_frontmatter(read_capped_text(path))
        except OSError:
            continue
        if not text.strip():
            continue
        try:
            label = str(path.relative_to(cwd.resolve()))
        except ValueError:
            label = str(path)
        if len(text) > CONTEXT_FILE_CAP:
            text = text[:CONTEXT_FILE_CAP] + f"\n[... {label} truncated at {CONTEXT_FILE_CAP} characters]"
        sections.append(f"## Project instructions ({label})\n{text.rstrip()}")
    return sections


def build_system_prompt(
    *,
    cwd: Path,
    tools: Iterable[tuple[str, str]],
    model: str,
    now: datetime | None = None,
    identity: str | None = None,
    sections: Sequence[str] = (),
    memory: str = "",
    runs_in: str = "",
    tools_cwd: Path | None = None,
    sandbox: str = "",
) -> str:
    """`runs_in`: where the tools run when that is not this machine (`ssh user@host`, `docker image`), with
    the working directory there (`tools_cwd`); the project's instruction files are still read from `cwd`.
    `sandbox`: what the OS sandbox of this machine lets commands do, when they run in one."""
    now = now or datetime.now().astimezone()
    lines = [identity or IDENTITY, "", "## Environment"]
    lines.append(f"- Date: {now.strftime('%A, %Y-%m-%d')}")
    if runs_in:
        lines.append(f"- Commands and files: {runs_in} (every tool's paths are paths there)")
        lines.append(f"- Working directory: {tools_cwd or cwd}")
    else:
        lines.append(f"- Working directory: {cwd}")
        lines.append(f"- OS: {platform.system()} {platform.release()} ({platform.machine()})")
    if sandbox:
        lines.append(f"- Sandbox: {sandbox}")
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
    for section in context_sections(cwd):
        lines += ["", section]
    if memory.strip():
        lines += ["", memory.strip()]
    return "\n".join(lines) + "\n"

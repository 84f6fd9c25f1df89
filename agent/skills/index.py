"""The skills index of a new session's system prompt: name and short description per skill, by category.

Built once at session start and stored with the prompt (byte-stable for prompt caching): a skill created or
switched off later shows in the next session's index, while `skills_list`, `skill_view` and the slash
commands see it at once. The index is capped; what does not fit is counted, and `skills_list` lists all.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.skills.library import Skill

INDEX_DESCRIPTION_CHARS = 80
MAX_INDEX_CHARS = 6_000
MAX_INDEX_SKILLS = 150
INTRO = (
    "## Skills\n"
    "Skills are procedures you or the user saved for recurring tasks. Before replying, scan the list: when "
    "one matches the task, even partly, load it with skill_view(name) and follow it. If a skill you used was "
    "wrong or missing a step, fix it with skill_manage(action='patch'). After a difficult or iterative "
    "task, offer to save the approach as a skill."
)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= INDEX_DESCRIPTION_CHARS else text[: INDEX_DESCRIPTION_CHARS - 1] + "…"


def skills_index(skills: Sequence[Skill]) -> str:
    """The prompt section for these (enabled) skills, or "" when there are none."""
    if not skills:
        return ""
    lines: list[str] = []
    size = 0
    shown = 0
    category = None
    for skill in sorted(skills, key=lambda s: (s.category, s.name)):
        entry = (
            f"    - {skill.name}: {_short(skill.description)}" if skill.description else f"    - {skill.name}"
        )
        header = f"  {skill.category}:" if skill.category != category else None
        cost = len(entry) + 1 + (len(header) + 1 if header else 0)
        if shown >= MAX_INDEX_SKILLS or size + cost > MAX_INDEX_CHARS:
            break
        if header:
            lines.append(header)
            category = skill.category
        lines.append(entry)
        size += cost
        shown += 1
    if shown < len(skills):
        lines.append(f"  [{len(skills) - shown} more skills not listed here: skills_list shows them all]")
    return f"{INTRO}\n<available_skills>\n" + "\n".join(lines) + "\n</available_skills>"

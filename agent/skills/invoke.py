"""`/skill-name [instruction]`: the skill loaded into this turn's user message, on the wire only.

The stored user message stays what the user typed (search and the transcript show that); the request of
this turn carries the skill's instructions after it, in Hermes' wording, so the model follows them now.
"""

from __future__ import annotations

from agent.skills.library import Skill, SkillLibrary


def parse_invocation(text: str) -> tuple[str, str] | None:
    """(command, instruction) when the text starts with `/<word>`, else None."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    word, _, rest = stripped[1:].partition(" ")
    word = word.strip().lower()
    return (word, rest.strip()) if word else None


def invocation_block(skill: Skill) -> str:
    """The skill as this turn's wire-only context: activation note, instructions, folder, supporting files."""
    parts = [
        f'[IMPORTANT: The user has invoked the "{skill.name}" skill, indicating they want you to follow its '
        "instructions. The full skill content is loaded below.]",
        "",
        skill.body(),
        "",
        f"[Skill directory: {skill.directory}]",
        "Resolve any relative paths in this skill (e.g. `scripts/foo.sh`, `templates/config.yaml`) against "
        "that directory.",
    ]
    files = skill.supporting_files()
    if files:
        parts += ["", "[This skill has supporting files:]"]
        parts += [f"- {name}" for name in files]
        parts.append(f'Load any of these with skill_view(name="{skill.name}", file_path="<path>").')
    return "\n".join(parts)


def skill_invocation(
    text: str, library: SkillLibrary, reserved: set[str] | frozenset[str] = frozenset()
) -> str:
    """The wire-only context for a typed `/skill-name ...`, or "" when the text invokes no enabled skill."""
    parsed = parse_invocation(text)
    if parsed is None or parsed[0] in reserved:
        return ""
    skill = library.commands(reserved).get(parsed[0])
    if skill is None:
        return ""
    try:
        return invocation_block(skill)
    except OSError:
        return ""

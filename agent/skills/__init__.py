"""Skills: Hermes' procedural memory. `library` reads the folders, `index` writes the prompt's list,
`tools` are the model's `skills` toolset, `invoke` loads a skill for a `/skill-name` turn."""

from agent.skills.library import Skill, SkillLibrary, SkillProblem, SkillScan, scan_skills

__all__ = ["Skill", "SkillLibrary", "SkillProblem", "SkillScan", "scan_skills"]

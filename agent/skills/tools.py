"""The `skills` toolset: `skills_list`, `skill_view` and `skill_manage`, on Hermes' skill folders.

Reads never leave a skill's folder (paths are resolved, symlinks included, and checked). Every write of
`skill_manage` goes through the approval gate like a file write and returns its unified diff as
`data["diff"]`, which the tool panel shows. A written skill is usable at once by these tools and its slash
command; the system prompt's skills index lists it from the next session.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent.core.bounded_files import read_head, read_text
from agent.skills.library import (
    MAX_NAME_LENGTH,
    NAME_RE,
    SKILL_FILE,
    SUPPORT_DIRS,
    Skill,
    SkillFormatError,
    SkillLibrary,
    validate_skill_text,
)
from agent.toolkit.registry import Tool, ToolContext, ToolResult
from agent.tools.files import (
    MAX_DIFF_CHARS,
    MAX_DIFF_DATA_CHARS,
    _cap_diff,
    _review_write,
    atomic_write,
    unified_diff,
)

MAX_VIEW_CHARS = 100_000
MAX_WRITE_CHARS = 100_000  # a SKILL.md (Hermes' limit)
MAX_FILE_BYTES = 1_048_576  # a supporting file
TAKES_EFFECT = (
    "It is usable now by skills_list, skill_view and its slash command; the system prompt's skills index "
    "lists it from the next new session."
)


def library_of(ctx: ToolContext) -> SkillLibrary:
    """The session's skill library (it knows the disabled skills); a plain one when there is none."""
    library = ctx.state.skills
    return library if isinstance(library, SkillLibrary) else SkillLibrary(ctx.hermes_home)


def _shown(library: SkillLibrary, path: Path) -> str:
    try:
        return path.relative_to(library.hermes_home).as_posix()
    except ValueError:
        return str(path)


def _usable(library: SkillLibrary, name: str) -> Skill | ToolResult:
    skill = library.find(name)
    if skill is None:
        names = ", ".join(s.name for s in library.enabled()[:30]) or "(none yet)"
        return ToolResult.error(f"no skill named {name!r}. Skills: {names}. skills_list shows them all.")
    if library.is_disabled(skill):
        return ToolResult.error(
            f"the skill {skill.name!r} is disabled by the user (/skills or skills.disabled)."
        )
    if not skill.supported:
        return ToolResult.error(
            f"the skill {skill.name!r} is for {', '.join(skill.platforms)}, not this system."
        )
    return skill


# --------------------------------------------------------------------------------------------------------
# skills_list


class SkillsListArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")
    category: str | None = Field(default=None, description="Only the skills of this category.")


def skills_list(args: SkillsListArgs, ctx: ToolContext) -> ToolResult:
    library = library_of(ctx)
    scan = library.scan()
    skills = library.enabled(scan)
    if args.category:
        skills = [s for s in skills if s.category == args.category.strip()]
    if not skills:
        where = f" in category {args.category!r}" if args.category else ""
        return ToolResult(
            content=f"No skills{where} yet ({_shown(library, library.root)}/). Create one with skill_manage.",
            data={"skills": []},
        )
    lines = [f"{len(skills)} skills (load one with skill_view(name)):"]
    category = None
    for skill in sorted(skills, key=lambda s: (s.category, s.name)):
        if skill.category != category:
            category = skill.category
            lines.append(f"{category}:")
        lines.append(f"  - {skill.name}: {skill.description}")
    if scan.problems and not args.category:
        lines.append("Skipped (not valid skill files):")
        lines += [f"  - {_shown(library, p.path)}: {p.reason}" for p in scan.problems]
    return ToolResult(
        content="\n".join(lines),
        data={
            "skills": [{"name": s.name, "category": s.category, "description": s.description} for s in skills]
        },
    )


# --------------------------------------------------------------------------------------------------------
# skill_view


class SkillViewArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str = Field(description="The skill's name (as skills_list shows it).")
    file_path: str | None = Field(
        default=None,
        description="A supporting file inside the skill's folder, relative to it (e.g. 'references/api.md'). "
        "Omit to read SKILL.md.",
    )


def resolve_inside(skill: Skill, relative: str) -> Path | str:
    """The real path of a file inside the skill's folder, or why `relative` is refused."""
    raw = Path(relative.strip())
    if not relative.strip():
        return "file_path is empty"
    if raw.is_absolute() or relative.strip().startswith("~"):
        return "file_path must be relative to the skill's folder"
    if ".." in raw.parts:
        return "file_path may not contain '..'"
    root = skill.directory.resolve()
    target = (skill.directory / raw).resolve()
    if not target.is_relative_to(root):
        return "file_path leads outside the skill's folder (through a symlink)"
    return target


def _read_capped(path: Path) -> str:
    data, more = read_head(path, limit=MAX_FILE_BYTES)  # a FIFO or a device is refused (an OSError)
    if b"\x00" in data[:8192]:
        return f"[binary file, {path.stat().st_size:,} bytes]"
    text = data.decode("utf-8", errors="replace")
    if more:
        return text[:MAX_VIEW_CHARS] + f"\n[... truncated: the file is over {MAX_FILE_BYTES:,} bytes]"
    if len(text) > MAX_VIEW_CHARS:
        return text[:MAX_VIEW_CHARS] + f"\n[... truncated: {len(text) - MAX_VIEW_CHARS:,} more characters]"
    return text


def skill_view(args: SkillViewArgs, ctx: ToolContext) -> ToolResult:
    library = library_of(ctx)
    found = _usable(library, args.name)
    if isinstance(found, ToolResult):
        return found
    skill = found
    if args.file_path:
        target = resolve_inside(skill, args.file_path)
        if isinstance(target, str):
            return ToolResult.error(f"{target}: {args.file_path!r}.")
        if not target.exists():  # a FIFO or a device is refused by the read below, with its reason
            names = ", ".join(skill.supporting_files()) or "(none)"
            return ToolResult.error(f"{skill.name} has no file {args.file_path!r}. Its files: {names}.")
        try:
            text = _read_capped(target)
        except OSError as exc:
            return ToolResult.error(f"cannot read {args.file_path!r}: {exc.strerror or exc}.")
        return ToolResult(content=text, data={"path": str(target)})
    try:
        text = _read_capped(skill.skill_md)
    except OSError as exc:
        return ToolResult.error(f"cannot read {skill.name}: {exc.strerror or exc}.")
    lines = [f"Skill {skill.name} ({skill.category}) in {skill.directory}", "", text.rstrip()]
    files = skill.supporting_files()
    if files:
        lines += ["", "Supporting files (read one with skill_view(name, file_path=...)):"]
        lines += [f"- {f}" for f in files]
    return ToolResult(content="\n".join(lines), data={"path": str(skill.skill_md)})


# --------------------------------------------------------------------------------------------------------
# skill_manage


class SkillManageArgs(BaseModel):
    model_config = ConfigDict(extra="ignore")
    action: Literal["create", "edit", "patch", "delete", "write_file", "remove_file"] = Field(
        description="create a skill, edit (rewrite its SKILL.md), patch (replace a piece of text in SKILL.md "
        "or a supporting file), delete it, write_file / remove_file (a supporting file)."
    )
    name: str = Field(description="The skill's name: lowercase letters, digits, '-', '_' or '.', at most 64.")
    content: str | None = Field(
        default=None,
        description="For create and edit: the whole SKILL.md, YAML front matter (name, description) first, "
        "then the instructions. Read the skill first before an edit.",
    )
    category: str | None = Field(default=None, description="For create: a category folder, e.g. 'devops'.")
    file_path: str | None = Field(
        default=None,
        description="write_file / remove_file: a path under references/, templates/, scripts/ or assets/. "
        "patch: the supporting file to patch (SKILL.md when omitted).",
    )
    file_content: str | None = Field(default=None, description="For write_file: the file's content.")
    old_string: str | None = Field(default=None, description="For patch: the exact text to replace.")
    new_string: str | None = Field(default=None, description="For patch: the replacement (may be empty).")
    replace_all: bool = Field(default=False, description="For patch: replace every occurrence.")

    @field_validator("action", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value


def _check_segment(value: str, what: str) -> str | None:
    if not value or len(value) > MAX_NAME_LENGTH or not NAME_RE.match(value):
        return (
            f"invalid {what} {value!r}: use lowercase letters, digits, '-', '_' and '.', starting with a "
            f"letter or digit, at most {MAX_NAME_LENGTH} characters"
        )
    return None


def _write(
    ctx: ToolContext, library: SkillLibrary, path: Path, old: str, new: str, message: str
) -> ToolResult:
    """Gate, write atomically, and answer with the diff (UI) and a capped diff (model)."""
    denied = _review_write(ctx, path, "skill_manage")
    if denied:
        return denied
    try:
        atomic_write(path, new.encode("utf-8"))
    except OSError as exc:
        return ToolResult.error(f"cannot write {_shown(library, path)}: {exc.strerror or exc}.")
    diff = unified_diff(old, new, _shown(library, path))
    shown = f"\n{_cap_diff(diff, MAX_DIFF_CHARS)}" if old else ""
    return ToolResult(
        content=f"{message} {TAKES_EFFECT}{shown}",
        data={"diff": _cap_diff(diff, MAX_DIFF_DATA_CHARS), "path": str(path)},
    )


def _create(args: SkillManageArgs, ctx: ToolContext, library: SkillLibrary) -> ToolResult:
    if error := _check_segment(args.name, "skill name"):
        return ToolResult.error(error + ".")
    category = (args.category or "").strip()
    if category and (error := _check_segment(category, "category")):
        return ToolResult.error(error + " (one folder name).")
    content = args.content or ""
    if len(content) > MAX_WRITE_CHARS:
        return ToolResult.error(f"SKILL.md is {len(content):,} characters; the limit is {MAX_WRITE_CHARS:,}.")
    try:
        validate_skill_text(content)
    except SkillFormatError as exc:
        return ToolResult.error(f"{exc}.")
    existing = library.find(args.name)
    if existing is not None:
        return ToolResult.error(f"a skill named {args.name!r} already exists in {existing.directory}.")
    directory = library.root / category / args.name if category else library.root / args.name
    if directory.exists():
        return ToolResult.error(f"{_shown(library, directory)} already exists.")
    return _write(ctx, library, directory / SKILL_FILE, "", content, f"Created the skill {args.name}.")


def _edit(args: SkillManageArgs, ctx: ToolContext, skill: Skill, library: SkillLibrary) -> ToolResult:
    content = args.content or ""
    if len(content) > MAX_WRITE_CHARS:
        return ToolResult.error(f"SKILL.md is {len(content):,} characters; the limit is {MAX_WRITE_CHARS:,}.")
    try:
        validate_skill_text(content)
    except SkillFormatError as exc:
        return ToolResult.error(f"{exc}.")
    return _write(ctx, library, skill.skill_md, skill.read(), content, f"Rewrote {skill.name}'s SKILL.md.")


def _support_path(skill: Skill, file_path: str | None) -> Path | ToolResult:
    if not file_path:
        return ToolResult.error("file_path is required for this action.")
    parts = Path(file_path.strip()).parts
    if not parts or parts[0] not in SUPPORT_DIRS or len(parts) < 2:
        return ToolResult.error(
            f"file_path must be a file under one of {', '.join(SUPPORT_DIRS)}: {file_path!r}."
        )
    target = resolve_inside(skill, file_path)
    if isinstance(target, str):
        return ToolResult.error(f"{target}: {file_path!r}.")
    return target


def _patch(args: SkillManageArgs, ctx: ToolContext, skill: Skill, library: SkillLibrary) -> ToolResult:
    if not args.old_string:
        return ToolResult.error("old_string is required for patch.")
    if args.new_string is None:
        return ToolResult.error("new_string is required for patch (an empty string deletes the text).")
    if args.file_path and Path(args.file_path).name != SKILL_FILE:
        target = _support_path(skill, args.file_path)
        if isinstance(target, ToolResult):
            return target
    else:
        target = skill.skill_md
    if not target.is_file():
        return ToolResult.error(f"{_shown(library, target)} does not exist.")
    old = read_text(target, limit=MAX_FILE_BYTES)
    count = old.count(args.old_string)
    if count == 0:
        return ToolResult.error(
            f"old_string was not found in {_shown(library, target)}; read it with skill_view first."
        )
    if count > 1 and not args.replace_all:
        return ToolResult.error(
            f"old_string occurs {count} times in {_shown(library, target)}: add surrounding text to make it "
            "unique, or set replace_all."
        )
    new = old.replace(args.old_string, args.new_string)
    if target == skill.skill_md:
        try:
            validate_skill_text(new)
        except SkillFormatError as exc:
            return ToolResult.error(f"the patch would break SKILL.md: {exc}.")
    plural = "s" if count > 1 else ""
    return _write(
        ctx, library, target, old, new, f"Patched {_shown(library, target)} ({count} replacement{plural})."
    )


def _write_file(args: SkillManageArgs, ctx: ToolContext, skill: Skill, library: SkillLibrary) -> ToolResult:
    target = _support_path(skill, args.file_path)
    if isinstance(target, ToolResult):
        return target
    content = args.file_content if args.file_content is not None else ""
    if len(content.encode("utf-8")) > MAX_FILE_BYTES:
        return ToolResult.error(f"the file is over {MAX_FILE_BYTES:,} bytes.")
    if target.is_dir():
        return ToolResult.error(f"{_shown(library, target)} is a folder.")
    old = read_text(target, limit=MAX_FILE_BYTES) if target.is_file() else ""
    return _write(ctx, library, target, old, content, f"Wrote {_shown(library, target)}.")


def _remove(
    ctx: ToolContext, library: SkillLibrary, path: Path, old: str, what: str, folder: bool
) -> ToolResult:
    denied = _review_write(ctx, path, "skill_manage")
    if denied:
        return denied
    try:
        shutil.rmtree(path) if folder else path.unlink()
    except OSError as exc:
        return ToolResult.error(f"cannot remove {_shown(library, path)}: {exc.strerror or exc}.")
    diff = unified_diff(old, "", _shown(library, path / SKILL_FILE if folder else path))
    return ToolResult(
        content=f"{what} The system prompt's skills index of this session still lists what it started with.",
        data={"diff": _cap_diff(diff, MAX_DIFF_DATA_CHARS), "path": str(path)},
    )


def skill_manage(args: SkillManageArgs, ctx: ToolContext) -> ToolResult:
    library = library_of(ctx)
    if args.action == "create":
        return _create(args, ctx, library)
    skill = library.find(args.name)
    if skill is None:
        return ToolResult.error(f"no skill named {args.name!r}; create it first (action='create').")
    root = library.root.resolve()
    if not (skill.directory.resolve().is_relative_to(root) and skill.skill_md.resolve().is_relative_to(root)):
        return ToolResult.error(
            f"{skill.name} lives outside {library.root}; it is not changed by skill_manage."
        )
    if args.action == "edit":
        return _edit(args, ctx, skill, library)
    if args.action == "patch":
        return _patch(args, ctx, skill, library)
    if args.action == "write_file":
        return _write_file(args, ctx, skill, library)
    if args.action == "remove_file":
        target = _support_path(skill, args.file_path)
        if isinstance(target, ToolResult):
            return target
        if not target.is_file():
            return ToolResult.error(f"{_shown(library, target)} does not exist.")
        old = read_text(target, limit=MAX_FILE_BYTES)
        return _remove(ctx, library, target, old, f"Removed {_shown(library, target)}.", folder=False)
    return _remove(
        ctx, library, skill.directory, skill.read(), f"Deleted the skill {skill.name}.", folder=True
    )


SKILLS_LIST_TOOL = Tool(
    name="skills_list",
    toolset="skills",
    description="List the available skills (name and description, by category). Load one with skill_view.",
    args_model=SkillsListArgs,
    handler=skills_list,
    parallel_safe=True,
    summary_arg="category",
)

SKILL_VIEW_TOOL = Tool(
    name="skill_view",
    toolset="skills",
    description=(
        "Load a skill: its SKILL.md (instructions) and the list of its supporting files; with file_path, one "
        "of those files (references, templates, scripts)."
    ),
    args_model=SkillViewArgs,
    handler=skill_view,
    parallel_safe=True,
    summary_arg="name",
)

SKILL_MANAGE_TOOL = Tool(
    name="skill_manage",
    toolset="skills",
    description=(
        "Create, edit, patch or delete a skill (your procedural memory: a reusable approach for a recurring "
        "kind of task), or write / remove one of its supporting files. Create one after a complex task "
        "succeeded (5+ tool calls), a tricky error was overcome, or the user asks you to remember a "
        "procedure; patch one you used when it was wrong or missing a step. Good skills state when to use "
        "them, numbered steps with exact commands, pitfalls and how to verify. SKILL.md starts with YAML "
        "front matter:\n---\nname: my-skill\ndescription: One line saying when to use it\n---\n"
    ),
    args_model=SkillManageArgs,
    handler=skill_manage,
    summary_arg="name",
)

TOOLS = [SKILLS_LIST_TOOL, SKILL_VIEW_TOOL, SKILL_MANAGE_TOOL]

"""Skills on disk, in Hermes' layout: `$HERMES_HOME/skills/<category>/<name>/SKILL.md` plus supporting files.

A SKILL.md starts with YAML front matter (`name`, `description`, optional `platforms`, `metadata`, ...) and
continues with the instructions. A file that cannot be a skill (no front matter, bad YAML, too large, not
UTF-8 text) becomes a `SkillProblem` with the reason: listed for the user, skipped everywhere else, never
a failure of the prompt or a tool. Disabled skills (Hermes' `skills.disabled`) stay on disk and readable by
the `/skills` screen but leave the prompt index, the tools and the slash commands.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.config.yaml_files import YAML_ERRORS, load_yaml
from agent.core.bounded_files import FileRefused, read_bytes, read_text

SKILL_FILE = "SKILL.md"
MAX_SKILL_BYTES = 256_000  # a SKILL.md larger than this is refused (Hermes writes at most 100,000 chars)
MAX_SKILLS = 2_000
"""A scan stops after this many SKILL.md files (Hermes' own hub has a few hundred skills): a home holding
ten thousand costs seconds per scan and a prompt index nobody reads."""
MAX_SCAN_DIRS = 50_000
"""...and after walking this many folders (a skills folder that is a link to `/` or a huge tree)."""
SCAN_SECONDS = 5.0
"""...and after this long (a slow or network file system): the scan runs in a thread, never before the
first frame, but a turn waits for it."""
MAX_NAME_LENGTH = 64
MAX_DESCRIPTION_LENGTH = 1024
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
SUPPORT_DIRS = ("references", "templates", "scripts", "assets")
EXCLUDED_DIRS = frozenset(
    {".git", ".github", ".hub", ".archive", ".venv", "venv", "node_modules", "site-packages", "__pycache__"}
)
GENERAL = "general"  # the category of a skill directly under skills/
_PLATFORMS = {"macos": "darwin", "linux": "linux", "windows": "win32"}
_FENCE_END = re.compile(r"\n---[ \t]*(?:\n|$)")


class SkillFormatError(ValueError):
    """Why a SKILL.md text is not a valid skill (one line, for the user and the model)."""


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """(front matter, body) of a SKILL.md text; SkillFormatError when the front matter is missing or bad."""
    text = text.removeprefix("\ufeff")
    if not text.startswith("---"):
        raise SkillFormatError("no YAML front matter (the file must start with a line '---')")
    end = _FENCE_END.search(text, 3)
    if end is None:
        raise SkillFormatError("the YAML front matter is not closed by a line '---'")
    try:
        data = load_yaml(text[3 : end.start()])  # safe, with alias expansion bounded
    except YAML_ERRORS as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise SkillFormatError(
            f"bad YAML in the front matter{where}: {getattr(exc, 'problem', exc)}"
        ) from None
    if not isinstance(data, dict):
        raise SkillFormatError("the front matter is not a mapping of keys")
    return data, text[end.end() :]


def validate_skill_text(text: str) -> dict[str, Any]:
    """The checks a written SKILL.md must pass (Hermes' rules); returns the front matter."""
    if not text.strip():
        raise SkillFormatError("the content is empty")
    data, body = split_front_matter(text)
    for key in ("name", "description"):
        if not str(data.get(key) or "").strip():
            raise SkillFormatError(f"the front matter needs a '{key}'")
    if len(str(data["description"])) > MAX_DESCRIPTION_LENGTH:
        raise SkillFormatError(f"the description is over {MAX_DESCRIPTION_LENGTH} characters")
    if not body.strip():
        raise SkillFormatError("the instructions after the front matter are empty")
    return data


def platform_supported(platforms: Iterable[str]) -> bool:
    names = [str(p).strip().lower() for p in platforms if str(p).strip()]
    return not names or any(sys.platform.startswith(_PLATFORMS.get(n, n)) for n in names)


def command_name(name: str) -> str:
    """The slash command of a skill: its name as a lowercase hyphenated slug (Hermes' rule)."""
    slug = re.sub(r"[^a-z0-9-]", "", name.lower().replace(" ", "-").replace("_", "-"))
    return re.sub(r"-{2,}", "-", slug).strip("-")


def _first_line(body: str) -> str:
    for line in body.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return line
    return ""


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    category: str
    directory: Path
    platforms: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def skill_md(self) -> Path:
        return self.directory / SKILL_FILE

    @property
    def command(self) -> str:
        return command_name(self.name)

    @property
    def supported(self) -> bool:
        return platform_supported(self.platforms)

    def read(self) -> str:
        """The whole SKILL.md, front matter included (what an edit or patch works on)."""
        return read_text(self.skill_md, limit=MAX_SKILL_BYTES)

    def body(self) -> str:
        try:
            return split_front_matter(self.read())[1].strip()
        except SkillFormatError:
            return self.read().strip()

    def supporting_files(self) -> list[str]:
        """Files beside SKILL.md, relative to the skill's folder; links leading outside it are left out."""
        root = self.directory.resolve()
        out: list[str] = []
        for dirpath, dirnames, filenames in os.walk(self.directory):
            dirnames[:] = sorted(d for d in dirnames if d not in EXCLUDED_DIRS)
            for filename in sorted(filenames):
                path = Path(dirpath) / filename
                if path == self.skill_md or not path.resolve().is_relative_to(root):
                    continue
                out.append(path.relative_to(self.directory).as_posix())
        return out


@dataclass(frozen=True)
class SkillProblem:
    path: Path
    reason: str


@dataclass(frozen=True)
class SkillScan:
    skills: tuple[Skill, ...] = ()
    problems: tuple[SkillProblem, ...] = ()

    def categories(self) -> dict[str, list[Skill]]:
        grouped: dict[str, list[Skill]] = {}
        for skill in sorted(self.skills, key=lambda s: (s.category, s.name)):
            grouped.setdefault(skill.category, []).append(skill)
        return grouped


def _load_skill(skill_md: Path, root: Path) -> Skill:
    try:
        raw = read_bytes(skill_md, limit=MAX_SKILL_BYTES)
    except FileRefused as exc:
        raise SkillFormatError(exc.reason) from None
    except OSError as exc:
        raise SkillFormatError(f"cannot be read ({exc.strerror or exc})") from None
    if b"\x00" in raw:
        raise SkillFormatError("a binary file, not text")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SkillFormatError("not UTF-8 text") from None
    data, body = split_front_matter(text)
    name = str(data.get("name") or skill_md.parent.name).strip()[:MAX_NAME_LENGTH]
    description = " ".join(str(data.get("description") or _first_line(body)).split())
    if len(description) > MAX_DESCRIPTION_LENGTH:
        description = description[: MAX_DESCRIPTION_LENGTH - 1] + "…"
    platforms = data.get("platforms") or ()
    if isinstance(platforms, str):
        platforms = (platforms,)
    raw_metadata = data.get("metadata")
    metadata = raw_metadata if isinstance(raw_metadata, dict) else {}
    relative = skill_md.parent.relative_to(root).parts
    category = "/".join(relative[:-1]) or GENERAL
    return Skill(
        name=name,
        description=description,
        category=category,
        directory=skill_md.parent,
        platforms=tuple(str(p) for p in platforms) if isinstance(platforms, list | tuple) else (),
        metadata=metadata,
    )


def scan_skills(root: Path) -> SkillScan:
    """Every skill under `root` (sorted by path), and every SKILL.md that could not be read as one; bounded
    by MAX_SKILLS, MAX_SCAN_DIRS and SCAN_SECONDS, past which one problem says what was left unread."""
    skills: list[Skill] = []
    problems: list[SkillProblem] = []
    seen: dict[str, Path] = {}
    visited: set[str] = set()
    if not root.is_dir():
        return SkillScan()
    deadline = time.monotonic() + SCAN_SECONDS
    found = 0
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        stop = _scan_limit(found, len(visited), deadline)
        if stop:
            problems.append(SkillProblem(root, f"{stop}; the rest of the folder was not read"))
            break
        real = os.path.realpath(dirpath)
        if real in visited:  # a symlink loop
            dirnames[:] = []
            continue
        visited.add(real)
        has_skill = SKILL_FILE in filenames
        dirnames[:] = sorted(
            d for d in dirnames if d not in EXCLUDED_DIRS and not (has_skill and d in SUPPORT_DIRS)
        )
        if not has_skill:
            continue
        skill_md = Path(dirpath) / SKILL_FILE
        found += 1
        try:
            skill = _load_skill(skill_md, root)
        except SkillFormatError as exc:
            problems.append(SkillProblem(skill_md, str(exc)))
            continue
        if skill.name in seen:
            problems.append(
                SkillProblem(skill_md, f"another skill is already named {skill.name!r} ({seen[skill.name]})")
            )
            continue
        seen[skill.name] = skill_md
        skills.append(skill)
    return SkillScan(tuple(skills), tuple(problems))


def _scan_limit(found: int, walked: int, deadline: float) -> str:
    """Why a scan must stop here (one line), or ''."""
    if found >= MAX_SKILLS:
        return f"stopped after {MAX_SKILLS:,} skills (the limit)"
    if walked >= MAX_SCAN_DIRS:
        return f"stopped after {MAX_SCAN_DIRS:,} folders (the limit)"
    if time.monotonic() > deadline:
        return f"stopped after {SCAN_SECONDS:g} s (the limit)"
    return ""


class SkillLibrary:
    """One session's skills: the folder, the disabled names, and where a change to them is saved."""

    def __init__(self, hermes_home: Path, disabled: Iterable[str] = (), *, config_path: Path | None = None):
        self.hermes_home = hermes_home
        self.root = hermes_home / "skills"
        self.config_path = config_path or hermes_home / "config.yaml"
        self._lock = threading.Lock()
        self._disabled = frozenset(str(n) for n in disabled)

    @property
    def disabled(self) -> frozenset[str]:
        with self._lock:
            return self._disabled

    def is_disabled(self, skill: Skill) -> bool:
        names = self.disabled
        return skill.name in names or skill.directory.name in names

    def scan(self) -> SkillScan:
        return scan_skills(self.root)

    def enabled(self, scan: SkillScan | None = None) -> list[Skill]:
        """The skills the agent may use here: on this platform and not disabled."""
        scan = scan or self.scan()
        return [s for s in scan.skills if s.supported and not self.is_disabled(s)]

    def find(self, name: str, scan: SkillScan | None = None) -> Skill | None:
        """By front-matter name, folder name, `category/name` or slash command (any skill, even disabled)."""
        scan = scan or self.scan()
        wanted = name.strip().strip("/")
        for skill in scan.skills:
            relative = (
                skill.directory.relative_to(self.root).as_posix()
                if skill.directory.is_relative_to(self.root)
                else ""
            )
            if wanted in (skill.name, skill.directory.name, relative):
                return skill
        return next((s for s in scan.skills if s.command == command_name(wanted)), None)

    def commands(self, reserved: Iterable[str] = ()) -> dict[str, Skill]:
        """Slash command -> skill for the enabled skills; a name taken by a built-in command is skipped."""
        taken = set(reserved)
        out: dict[str, Skill] = {}
        for skill in self.enabled():
            slug = skill.command
            if slug and slug not in taken and slug not in out:
                out[slug] = skill
        return out

    def set_disabled(self, skill: Skill, disabled: bool) -> str | None:
        """Disable or enable a skill and save `skills.disabled` in config.yaml; an error line, or None."""
        from agent.skills.settings_file import save_disabled_skills

        with self._lock:
            names = set(self._disabled) - {skill.name, skill.directory.name}
            if disabled:
                names.add(skill.name)
            error = save_disabled_skills(self.config_path, sorted(names))
            if error is None:
                self._disabled = frozenset(names)
            return error

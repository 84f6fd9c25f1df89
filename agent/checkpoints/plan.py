"""What to copy before a batch of tool calls: the files each mutating call is about to change.

`write_file` and `patch` change the file named by their `path`. For a `terminal` command the plan reads the
command through `agent.shell` (the same model the approval gate uses, so a delete the gate sees through
`ionice`, `tcsh -c` or inline python is a delete the plan covers): every path it writes, deletes, moves or
copies over, relative to any `cd` it makes, plus a git snapshot when it discards work-tree state. `cp` and
`install` count as destructive only when their destination exists, and so does an append (`>>`, `tee -a`):
appending to an existing file changes it. A path that does not exist yet is still recorded (restore
deletes it if the call created it).
"""

from __future__ import annotations

import glob
import json
import logging
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agent.checkpoints.model import SnapshotPlan
from agent.core.messages import ToolCall
from agent.shell import analyze, join_cwd

log = logging.getLogger(__name__)

MAX_TARGETS = 50
# Tools whose calls mutate a file named by one argument: tool name -> the argument holding the path.
FILE_MUTATING_TOOLS: dict[str, str] = {"write_file": "path", "patch": "path"}
TERMINAL_TOOLS: dict[str, str] = {"terminal": "command"}

_GIT_DESTRUCTIVE = frozenset({"reset", "clean", "checkout", "restore", "stash", "rm", "mv", "switch_force"})
_SKIP_PREFIXES = ("/dev/", "/proc/", "/sys/")
_GLOB_CHARS = re.compile(r"[*?\[]")
_FALLBACK = re.compile(
    r"(^|[;&|(\s])(sudo\s+)?(rm|rmdir|unlink|mv|shred|truncate|dd)\s|sed\s+(-\w*\s+)*-\w*i|"
    r"git\s+(reset|clean|checkout|restore|stash)\b|[^>&2]>\s*[^>&\s/]"
)


@dataclass
class CommandPlan:
    """destructive: the command changes or removes existing files. targets: the paths, as written and
    relative to where the command starts. appends: the targets it only appends to (destructive when they
    exist). git: it discards git work-tree state (a git snapshot covers it); git_command: it runs git at all
    (the restore then says what git can bring back)."""

    destructive: bool = False
    targets: list[str] = field(default_factory=list)
    appends: list[str] = field(default_factory=list)
    git: bool = False
    git_command: bool = False

    def add(self, path: str) -> None:
        if path and path not in self.targets and not _is_device(path):
            self.targets.append(path)


def _is_device(target: str) -> bool:
    return target == "/dev/null" or target.startswith(_SKIP_PREFIXES)


def _abs(word: str, cwd: Path) -> Path:
    p = Path(os.path.expanduser(word))
    if not p.is_absolute():
        p = cwd / p
    return Path(os.path.normpath(str(p)))


def _homes(hermes_home: Path | None) -> list[tuple[str, str]]:
    """`$HOME` and `$HERMES_HOME` as the planner expands them (any other `$x` is unknowable)."""
    home = os.path.expanduser("~")
    hh = str(hermes_home) if hermes_home is not None else os.environ.get("HERMES_HOME") or home + "/.hermes"
    return [("${HERMES_HOME}", hh), ("$HERMES_HOME", hh), ("${HOME}", home), ("$HOME", home)]


def _expand_homes(word: str, homes: list[tuple[str, str]]) -> str:
    for prefix, value in homes:
        if word == prefix or word.startswith(prefix + "/"):
            return value + word[len(prefix) :]
    return word


def plan_command(command: str, cwd: Path | None = None, hermes_home: Path | None = None) -> CommandPlan:
    """The plan for one shell command. With `cwd`, `cp` onto a missing file and an append to one are not
    destructive, and a destination that is a directory gets the sources' names; without it, `cp` counts,
    appends do not, and both readings of a destination are kept."""
    plan = CommandPlan()
    homes = _homes(hermes_home)

    def exists(path: str) -> bool:
        return cwd is not None and os.path.lexists(_abs(_expand_homes(path, homes), cwd))

    for cmd in analyze(command).commands:
        fx = cmd.effects
        plan.git_command = plan.git_command or cmd.name == "git"
        for w in fx.writes:
            path = join_cwd(cmd.cwd, w.path)
            if _is_device(path) or not path or w.kind == "create":  # touch, mkdir: no contents to keep
                continue
            if w.kind == "maybe":  # `git checkout X`: a path only if it exists
                if cwd is None or exists(path):
                    plan.add(path)
                continue
            if w.kind == "append":
                if exists(path):
                    plan.destructive = True
                elif path not in plan.appends:
                    plan.appends.append(path)
            else:
                plan.destructive = True
            plan.add(path)
        for d in fx.deletes:
            plan.destructive = True
            plan.add(join_cwd(cmd.cwd, d.path))
        for c in fx.copies:
            dest = join_cwd(cmd.cwd, c.dest)
            if c.dest_is_dir is not None:
                readings = [c.dest_is_dir]
            elif cwd is not None:
                readings = [_abs(_expand_homes(dest, homes), cwd).is_dir()]
            else:
                readings = [False, True]
            dests = [join_cwd(cmd.cwd, t) for reading in readings for t in c.targets(reading)]
            if c.move:
                plan.destructive = True
                for src in c.sources:
                    plan.add(join_cwd(cmd.cwd, src))
            elif c.tool == "ln" and not c.force:
                continue
            elif cwd is None or c.tool == "ln" or any(exists(d) for d in dests):
                plan.destructive = True
            for target in dests:
                plan.add(target)
        if fx.git & _GIT_DESTRUCTIVE:
            plan.destructive = plan.git = True
    return plan


def is_destructive_command(command: str, cwd: Path | None = None, hermes_home: Path | None = None) -> bool:
    """Would this shell command change or remove existing files? Never raises.

    `cp`/`install` count when their destination exists; without `cwd` that cannot be checked and they count.
    """
    if not isinstance(command, str) or not command.strip():
        return False
    try:
        return plan_command(command, cwd, hermes_home).destructive
    except Exception:
        log.debug("is_destructive_command fell back to a regex for %r", command, exc_info=True)
        return bool(_FALLBACK.search(command))


def is_git_command(command: str | None) -> bool:
    if not command:
        return False
    try:
        return plan_command(command).git_command
    except Exception:
        return "git" in command


def _resolve_word(word: str, cwd: Path, homes: list[tuple[str, str]]) -> list[Path]:
    word = _expand_homes(word, homes)
    if not word or word in ("{}", "-") or "$" in word or "\x00" in word:
        return []
    if _GLOB_CHARS.search(word):
        matches = sorted(glob.glob(str(_abs(word, cwd))))[:MAX_TARGETS]
        return [Path(os.path.normpath(m)) for m in matches if not _is_device(m)]
    path = _abs(word, cwd)
    if _is_device(str(path)) or str(path) in ("/dev", "/proc", "/sys"):
        return []
    if os.path.lexists(path) or path.parent.is_dir():
        return [path]
    return []


def targets_for_terminal(command: str, cwd: Path, hermes_home: Path | None = None) -> list[Path]:
    """The plausible files/dirs a destructive command touches, absolute: each exists or its parent does.

    Globs are expanded against `cwd`; `~`, `$HOME` and `$HERMES_HOME` are expanded, words with any other
    `$` expansion are skipped. At most MAX_TARGETS paths.
    """
    out: list[Path] = []
    seen: set[str] = set()
    homes = _homes(hermes_home)
    try:
        cwd = Path(cwd)
        for word in plan_command(command, cwd, hermes_home).targets:
            for path in _resolve_word(word, cwd, homes):
                if str(path) in seen:
                    continue
                seen.add(str(path))
                out.append(path)
                if len(out) >= MAX_TARGETS:
                    return out
    except Exception:
        log.debug("targets_for_terminal failed for %r", command, exc_info=True)
    return out


def plan_checkpoint(
    calls: Iterable[ToolCall], cwd: Path, *, hermes_home: Path | None = None
) -> SnapshotPlan | None:
    """What to snapshot before a batch of tool calls: the targets of every mutating call, or None."""
    paths: list[Path] = []
    first: tuple[str, str] | None = None
    command: str | None = None
    snap_cwd = Path(cwd)
    mutating = 0
    for call in calls:
        try:
            args = json.loads(call.arguments or "{}")
        except (ValueError, TypeError):
            continue
        if not isinstance(args, dict):
            continue
        if call.name in FILE_MUTATING_TOOLS:
            raw = args.get(FILE_MUTATING_TOOLS[call.name])
            if not isinstance(raw, str) or not raw:
                continue
            paths.append(_abs(raw, Path(cwd)))
            mutating += 1
            first = first or (call.name, raw)
        elif call.name in TERMINAL_TOOLS:
            cmd = args.get(TERMINAL_TOOLS[call.name])
            if not isinstance(cmd, str):
                continue
            workdir = args.get("workdir")
            wd = _abs(workdir, Path(cwd)) if isinstance(workdir, str) and workdir else Path(cwd)
            if not is_destructive_command(cmd, wd, hermes_home):
                continue
            paths.extend(targets_for_terminal(cmd, wd, hermes_home))
            mutating += 1
            if command is None:
                command, snap_cwd = cmd, wd
            first = first or (call.name, " ".join(cmd.split())[:80])
    if first is None:
        return None
    label = f"{first[0]} {first[1]}" + (f" (+{mutating - 1} more)" if mutating > 1 else "")
    unique = list(dict.fromkeys(paths))[: MAX_TARGETS * 2]
    return SnapshotPlan(paths=unique, cwd=snap_cwd, label=label, tool_name=first[0], command=command)

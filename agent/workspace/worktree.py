"""`-w NAME`: the session runs in a git worktree of its own, `<repo>/.worktrees/NAME` on branch
`hermes/NAME`, as Hermes lays them out, so parallel agents never trample one checkout.

`open_worktree` creates it (from the checkout's HEAD) or reuses it (the same name again: the folder, or
the branch alone); `finish_worktree` says where it is at the end and removes it when the session left it as
it found it (nothing uncommitted, no new commit). Unlike Hermes, a worktree holding uncommitted changes is
kept: nothing the agent wrote is deleted unasked. `.worktrees/` is kept out of `git status` through the
repository's own `info/exclude`, never by editing the project's `.gitignore` (the main checkout stays clean).
A new worktree gets the ignored files `.worktreeinclude` lists, as in Hermes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Worktree", "WorktreeError", "finish_worktree", "open_worktree"]

FOLDER = ".worktrees"
BRANCH_PREFIX = "hermes/"
GIT_TIMEOUT = 30.0
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class WorktreeError(Exception):
    """Why the worktree cannot be used: one line for the user."""


@dataclass(frozen=True)
class Worktree:
    name: str
    path: Path
    branch: str
    repo_root: Path
    cwd: Path  # where the session runs: the same subfolder of the worktree the user started in
    base: str  # the worktree's HEAD when the session started
    created: bool  # this session made it (else it was reused)
    included: tuple[str, ...] = ()  # what `.worktreeinclude` put there: not the session's changes


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=GIT_TIMEOUT, check=False
        )
    except FileNotFoundError as exc:
        raise WorktreeError("-w needs git, which is not on PATH") from exc
    except subprocess.TimeoutExpired as exc:
        raise WorktreeError(f"git {args[0]} did not finish within {GIT_TIMEOUT:g} s") from exc


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1].removeprefix("fatal: ") if lines else "git failed"


def open_worktree(cwd: Path, name: str | None) -> Worktree:
    """Create or reuse the worktree `name` (None or "": a fresh `hermes-XXXXXXXX`) of the repository `cwd`
    is in. Raises `WorktreeError` outside a repository or when git refuses."""
    if not name:
        name = f"hermes-{uuid.uuid4().hex[:8]}"
    if not _NAME.fullmatch(name):
        raise WorktreeError(
            f"-w {name!r}: a worktree name is letters, digits, '.', '_' and '-' (up to 64); "
            "put the prompt elsewhere or name the worktree"
        )
    top = _git(cwd, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise WorktreeError(f"-w needs a git repository: {cwd} is not in one")
    root = Path(top.stdout.strip())
    common = _git(root, "rev-parse", "--git-common-dir")
    common_dir = (root / common.stdout.strip()).resolve()
    main_root = (
        common_dir.parent if common_dir.name == ".git" else root
    )  # started inside a worktree: its main
    if _git(main_root, "rev-parse", "--verify", "-q", "HEAD").returncode != 0:
        raise WorktreeError("-w needs a commit to branch from: this repository has none yet")
    path = main_root / FOLDER / name
    branch = BRANCH_PREFIX + name
    _exclude(common_dir)
    created = new_folder = False
    if not (path / ".git").exists():
        _git(main_root, "worktree", "prune")  # a folder deleted by hand leaves its registration behind
        has_branch = _git(main_root, "rev-parse", "--verify", "-q", f"refs/heads/{branch}").returncode == 0
        args = (
            ["worktree", "add", str(path), branch]
            if has_branch
            else ["worktree", "add", "-b", branch, str(path), "HEAD"]
        )
        added = _git(main_root, *args)
        if added.returncode != 0:
            raise WorktreeError(f"cannot create the worktree {path}: {_first_line(added.stderr)}")
        created, new_folder = not has_branch, True
    included = _include(main_root, path, copy=new_folder)
    lock = _git(main_root, "worktree", "lock", "--reason", f"hermes-tui pid={os.getpid()}", str(path))
    if lock.returncode != 0 and "already locked" in lock.stderr:
        raise WorktreeError(f"the worktree {path} is in use by another session ({_first_line(lock.stderr)})")
    head = _git(path, "rev-parse", "HEAD").stdout.strip()
    try:
        inside = Path(cwd).resolve().relative_to(root.resolve())
    except ValueError:
        inside = Path()
    session_cwd = path / inside if (path / inside).is_dir() else path
    return Worktree(name, path, branch, main_root, session_cwd, head, created, tuple(included))


def _include(root: Path, tree: Path, *, copy: bool) -> list[str]:
    """Hermes' `.worktreeinclude`: files git ignores that the session needs (`.env`, a local config) are
    copied into a new worktree (`copy`), folders linked; an entry that leaves the repository or the
    worktree (`..`, a symlink out) is skipped. The entries present in the worktree, copied now or before."""
    try:
        lines = (root / ".worktreeinclude").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    real_root, real_tree = root.resolve(), tree.resolve()
    present: list[str] = []
    for line in lines:
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        src = (root / entry).resolve()
        dst = Path(os.path.normpath(real_tree / entry))  # not resolved: it may be a link made earlier
        if not src.is_relative_to(real_root) or not dst.is_relative_to(real_tree) or dst == real_tree:
            continue
        if dst.exists() or dst.is_symlink():
            present.append(dst.relative_to(real_tree).as_posix())
            continue
        if not copy:
            continue
        try:
            dst.parent.mkdir(parents=True, exist_ok=True)
            if not dst.parent.resolve().is_relative_to(real_tree):
                continue  # a linked folder on the way would write outside the worktree
            if src.is_file():
                shutil.copy2(src, dst)
            elif src.is_dir():
                dst.symlink_to(src, target_is_directory=True)
            else:
                continue
        except OSError:
            continue  # the worktree works without it; the session can copy it itself
        present.append(dst.relative_to(real_tree).as_posix())
    return present


def _exclude(common_dir: Path) -> None:
    """`.worktrees/` out of `git status` through `info/exclude` (untracked, unlike `.gitignore`)."""
    exclude = common_dir / "info" / "exclude"
    entry = f"/{FOLDER}/"
    try:
        text = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
        if entry not in text.splitlines():
            exclude.parent.mkdir(parents=True, exist_ok=True)
            with exclude.open("a", encoding="utf-8") as fh:
                fh.write(("" if not text or text.endswith("\n") else "\n") + entry + "\n")
    except OSError:
        pass  # then `git status` lists .worktrees/: shown to the user, nothing lost


def finish_worktree(worktree: Worktree) -> str:
    """The session is over: remove the worktree if it is as the session found it, else keep it. The line
    that says which (never raises)."""
    path, branch = worktree.path, worktree.branch
    try:
        _git(worktree.repo_root, "worktree", "unlock", str(path))
        if not path.exists():
            return f"Worktree {path} is gone (removed during the session)."
        status = _git(path, "status", "--porcelain")
        head = _git(path, "rev-parse", "HEAD").stdout.strip()
        ours = set(worktree.included)
        lines = [line for line in status.stdout.splitlines() if line[3:].strip('"').rstrip("/") not in ours]
        changes = len(lines) if status.returncode == 0 else -1
        if changes == 0 and head == worktree.base:
            force = ["--force"] if worktree.included else []  # what .worktreeinclude put there goes too
            removed = _git(worktree.repo_root, "worktree", "remove", *force, str(path))
            if removed.returncode == 0:
                if worktree.created:
                    _git(worktree.repo_root, "branch", "-D", branch)
                    return f"Worktree {path} removed: the session changed nothing (branch {branch} deleted)."
                return f"Worktree {path} removed: the session changed nothing (branch {branch} kept)."
        what = []
        if changes != 0:
            what.append(
                "uncommitted changes"
                if changes < 0
                else f"{changes} uncommitted change{'s' * (changes != 1)}"
            )
        if head != worktree.base:
            count = _git(path, "rev-list", "--count", f"{worktree.base}..HEAD").stdout.strip() or "new"
            what.append(f"{count} new commit{'s' * (count != '1')}")
        detail = ", ".join(what) or "git would not remove it"
        return f"Worktree kept: {path} (branch {branch}; {detail}). Merge it with: git merge {branch}"
    except (OSError, WorktreeError) as exc:
        return f"Worktree kept: {path} (branch {branch}); could not check it: {exc}"

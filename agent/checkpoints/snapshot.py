"""Copying the files a tool call is about to change into a checkpoint directory.

A snapshot stores each target's bytes and mode (a directory recursively, up to a size cap), records targets
that do not exist yet (a restore deletes them), and, for a destructive command in a git work tree, also
records a `git stash create` commit and HEAD and copies the untracked files.

Layout: `<root>/<session_id>/<checkpoint_id>/manifest.json` plus `files/<n>` (dirs 0700, files 0600).

A note on git: the `git stash create` commit is not referenced by any ref (we never touch the user's stash
list), so `git gc` may prune it after `gc.pruneExpire` (two weeks by default, longer than our max age).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import stat
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

from agent.checkpoints.model import Checkpoint, CheckpointFile
from agent.checkpoints.plan import is_destructive_command, is_git_command
from agent.core.humanize import format_size

log = logging.getLogger(__name__)

MB = 1024 * 1024
MAX_SNAPSHOT_BYTES = 50 * MB
MAX_SNAPSHOT_FILES = 20_000
MAX_UNTRACKED_FILES = 1_000
GIT_TIMEOUT = 20.0


class Budget:
    def __init__(self, max_bytes: int, max_files: int) -> None:
        self.bytes_left = max_bytes
        self.files_left = max_files


class SnapshotState:
    def __init__(self, files_dir: Path, budget: Budget) -> None:
        self.files_dir = files_dir
        self.budget = budget
        self.entries: list[CheckpointFile] = []
        self.seen: set[str] = set()
        self.stored_bytes = 0
        self._n = 0

    def capture(self, path: Path, *, top: bool = False) -> None:
        key = str(path)
        if key in self.seen:
            return
        self.seen.add(key)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            self.entries.append(CheckpointFile(path=path, existed=False))
            return
        except NotADirectoryError:
            self.entries.append(CheckpointFile(path=path, existed=False))
            return
        except OSError as exc:
            self._skip(path, f"cannot stat: {type(exc).__name__}: {exc.strerror or exc}")
            return
        if stat.S_ISLNK(st.st_mode):
            self._symlink(path)
            if top:  # write_file through a link changes the file it points to: keep that one too
                real = Path(os.path.realpath(path))
                if real != path and real.is_file():
                    self.capture(real)
        elif stat.S_ISREG(st.st_mode):
            self._file(path, st)
        elif stat.S_ISDIR(st.st_mode):
            if top:
                self._directory(path, st)
        else:
            self._skip(path, "not a regular file")

    def _skip(self, path: Path, note: str) -> None:
        log.info("checkpoint: %s not copied (%s)", path, note)
        self.entries.append(CheckpointFile(path=path, existed=True, kind="skipped", note=note))

    def _symlink(self, path: Path) -> None:
        try:
            link = os.readlink(path)
        except OSError as exc:
            self._skip(path, f"unreadable link: {exc.strerror or exc}")
            return
        self.entries.append(CheckpointFile(path=path, existed=True, kind="symlink", link=link))

    def _file(self, path: Path, st: os.stat_result) -> None:
        if st.st_size > self.budget.bytes_left or self.budget.files_left <= 0:
            self._skip(path, f"too large to copy ({format_size(st.st_size)})")
            return
        self._n += 1
        stored = f"files/{self._n:06d}"
        dest = self.files_dir / f"{self._n:06d}"
        try:
            mkdir_private(self.files_dir)
            with open(path, "rb") as src:
                fd = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as out:
                    shutil.copyfileobj(src, out, 1024 * 1024)
        except OSError as exc:
            try:
                dest.unlink()
            except OSError:
                pass
            self._skip(path, f"unreadable: {type(exc).__name__}: {exc.strerror or exc}")
            return
        size = dest.stat().st_size
        self.budget.bytes_left -= size
        self.budget.files_left -= 1
        self.stored_bytes += size
        self.entries.append(
            CheckpointFile(
                path=path,
                existed=True,
                kind="file",
                mode=stat.S_IMODE(st.st_mode),
                size=size,
                stored_as=stored,
            )
        )

    def _directory(self, path: Path, st: os.stat_result) -> None:
        walk = scan_tree(path, self.budget.bytes_left, self.budget.files_left)
        if walk is None:
            limit = f"{format_size(self.budget.bytes_left)} or {self.budget.files_left} files"
            self._skip(path, f"directory larger than {limit}: not copied")
            return
        errors = {str(p): err for p, _, err in walk if err is not None}
        self.entries.append(
            CheckpointFile(
                path=path, existed=True, kind="dir", mode=stat.S_IMODE(st.st_mode), complete=not errors
            )
        )
        for child, child_st, error in walk:
            key = str(child)
            if error is not None or key in self.seen:
                continue
            if key in errors:
                self.seen.add(key)
                self._skip(child, errors[key])
            elif stat.S_ISDIR(child_st.st_mode):
                self.seen.add(key)
                mode = stat.S_IMODE(child_st.st_mode)
                self.entries.append(CheckpointFile(path=child, existed=True, kind="dir", mode=mode))
            else:
                self.capture(child)


_NO_STAT = os.stat_result((0,) * 10)


def scan_tree(
    root: Path, max_bytes: int, max_files: int
) -> list[tuple[Path, os.stat_result, str | None]] | None:
    """Every entry under root (not following links), or None as soon as it exceeds the caps."""
    out: list[tuple[Path, os.stat_result, str | None]] = []
    total = 0
    stack = [root]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as it:
                children = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            if current != root:
                out.append((Path(current), _NO_STAT, f"unreadable directory: {exc.strerror or exc}"))
            continue
        for entry in children:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                out.append((Path(entry.path), _NO_STAT, f"cannot stat: {exc.strerror or exc}"))
                continue
            out.append((Path(entry.path), st, None))
            if stat.S_ISREG(st.st_mode):
                total += st.st_size
            if total > max_bytes or len(out) > max_files:
                return None
            if stat.S_ISDIR(st.st_mode):
                stack.append(Path(entry.path))
    return out


def run_git(cwd: Path, *args: str) -> str | None:
    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"})
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=str(cwd),
            capture_output=True,
            timeout=GIT_TIMEOUT,
            env=env,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        log.debug("git %s failed: %s", " ".join(args), exc)
        return None
    if proc.returncode != 0:
        log.debug("git %s exited %s: %s", " ".join(args), proc.returncode, proc.stderr[-500:])
        return None
    return proc.stdout.decode("utf-8", "surrogateescape")


def git_snapshot(
    cwd: Path, checkpoint_id: str, state: SnapshotState, targets: list[Path]
) -> dict[str, Any] | None:
    if not cwd.is_dir():
        return None
    top = run_git(cwd, "rev-parse", "--show-toplevel")
    if not top or not top.strip():
        return None
    repo = Path(top.strip())
    head = (run_git(repo, "rev-parse", "--verify", "-q", "HEAD") or "").strip() or None
    stash = None
    if head:
        out = run_git(
            repo,
            "-c",
            "user.email=hermes-tui@localhost",
            "-c",
            "user.name=hermes-tui",
            "stash",
            "create",
            f"hermes-tui checkpoint {checkpoint_id}",
        )
        stash = (out or "").strip() or None
    untracked: list[str] = []
    skipped = 0
    listing = run_git(repo, "ls-files", "--others", "--exclude-standard", "-z")
    names = [n for n in (listing or "").split("\0") if n]
    for name in names:
        if len(untracked) >= MAX_UNTRACKED_FILES:
            skipped += 1
            continue
        path = Path(os.path.normpath(str(repo / name)))
        before = len(state.entries)
        state.capture(path)
        added = state.entries[before:]
        if any(e.kind in ("file", "symlink") for e in added):
            untracked.append(name)
            targets.append(path)
        elif added:
            skipped += 1
    return {
        "repo": str(repo),
        "head": head,
        "stash": stash,
        "untracked": untracked,
        "untracked_skipped": skipped,
    }


def take_snapshot(
    root: Path,
    session_id: str,
    session_dir: Path,
    paths: list[Path],
    *,
    cwd: Path,
    label: str,
    tool_name: str,
    command: str | None,
    max_bytes: int,
) -> Checkpoint | None:
    """Copy the targets' current state into a new checkpoint directory of `session_dir` (written under a
    temp name, renamed when complete). Raises on failure; the caller decides that a snapshot never fails a
    tool call. None when there was nothing to save."""
    cwd = Path(cwd)
    created = time.time()
    checkpoint_id = time.strftime("%Y%m%d-%H%M%S", time.localtime(created)) + f"-{uuid.uuid4().hex[:6]}"
    mkdir_private(root)
    mkdir_private(session_dir)
    tmp = session_dir / f".tmp-{checkpoint_id}"
    mkdir_private(tmp)
    try:
        state = SnapshotState(tmp / "files", Budget(max_bytes, MAX_SNAPSHOT_FILES))
        root_real = os.path.realpath(root)
        targets: list[Path] = []
        for raw in paths:
            path = Path(os.path.normpath(str(cwd / os.path.expanduser(str(raw)))))
            if str(path) in state.seen:
                continue
            real = os.path.realpath(path)
            if (
                real == root_real
                or real.startswith(root_real + os.sep)
                or root_real.startswith(real + os.sep)
            ):
                log.info("checkpoint: not copying %s (it holds the checkpoints themselves)", path)
                continue
            targets.append(path)
            state.capture(path, top=True)
        git = None
        if command and is_destructive_command(command, cwd):
            git = git_snapshot(cwd, checkpoint_id, state, targets)
            if git is not None:
                complete = bool(paths) and all(f.kind != "skipped" for f in state.entries)
                git["covered_by_files"] = complete and not is_git_command(command)
        if not state.entries and git is None:
            log.info("checkpoint: nothing to save for %s", label)
            shutil.rmtree(tmp, ignore_errors=True)
            return None
        manifest = {
            "id": checkpoint_id,
            "session_id": session_id,
            "created_at": created,
            "label": label,
            "tool_name": tool_name,
            "command": command,
            "cwd": str(cwd),
            "targets": [str(t) for t in targets],
            "files": [f.to_json() for f in state.entries],
            "git": git,
            "total_bytes": state.stored_bytes,
        }
        write_private(tmp / "manifest.json", json.dumps(manifest, indent=1).encode("utf-8"))
        final = session_dir / checkpoint_id
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    manifest["total_bytes"] = state.stored_bytes + (final / "manifest.json").stat().st_size
    return Checkpoint.from_manifest(manifest, final)


# ---- small helpers


def mkdir_private(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        os.chmod(path, 0o700)
    except OSError:
        pass


def write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)

"""Putting a checkpoint's files back: deleted what did not exist, directories, files and links byte for
byte with their modes, extras removed from complete directories; and what git can bring back."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterable
from pathlib import Path

from agent.checkpoints.model import Checkpoint, CheckpointFile, RestoreReport
from agent.checkpoints.snapshot import run_git
from agent.core.fileio import atomic_copy


def restore_files(checkpoint: Checkpoint, report: RestoreReport) -> None:
    """In this order: what did not exist deleted, directories made, files and links put back, what appeared
    inside complete directories removed, then directory modes (a read-only one must not block the rest)."""
    entries = checkpoint.files
    _delete_new_paths(entries, report)
    _make_directories(entries, report)
    for entry in entries:
        try:
            if entry.kind == "file" and entry.stored_as:
                _restore_file(entry, checkpoint.path / entry.stored_as, report)
            elif entry.kind == "symlink" and entry.link is not None:
                _restore_link(entry, report)
            elif entry.kind == "skipped":
                report.skipped.append(f"{entry.path} ({entry.note or 'not copied'})")
        except OSError as exc:
            report.errors.append(f"{entry.path}: {type(exc).__name__}: {exc.strerror or exc}")
    recorded = {str(e.path) for e in entries}
    for entry in entries:
        if entry.kind == "dir" and entry.complete is True:
            _remove_extras(entry.path, recorded, report)
    _directory_modes(entries, report)


def _deepest_first(entries: Iterable[CheckpointFile]) -> list[CheckpointFile]:
    return sorted(entries, key=lambda e: len(e.path.parts), reverse=True)


def _delete_new_paths(entries: list[CheckpointFile], report: RestoreReport) -> None:
    """Paths that did not exist when the checkpoint was taken, deepest first."""
    for entry in _deepest_first(e for e in entries if not e.existed):
        try:
            if os.path.lexists(entry.path):
                _remove(entry.path)
                report.deleted.append(entry.path)
        except OSError as exc:
            report.errors.append(f"{entry.path}: could not delete: {exc.strerror or exc}")


def _make_directories(entries: list[CheckpointFile], report: RestoreReport) -> None:
    for entry in entries:
        if entry.kind == "dir":
            try:
                if os.path.lexists(entry.path) and not (entry.path.is_dir() and not entry.path.is_symlink()):
                    _remove(entry.path)
                entry.path.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                report.errors.append(f"{entry.path}: could not create directory: {exc.strerror or exc}")


def _directory_modes(entries: list[CheckpointFile], report: RestoreReport) -> None:
    for entry in _deepest_first(e for e in entries if e.kind == "dir"):
        if entry.mode is not None:
            try:
                os.chmod(entry.path, entry.mode)
            except OSError as exc:
                report.errors.append(f"{entry.path}: could not set mode: {exc.strerror or exc}")


def _restore_file(entry: CheckpointFile, stored: Path, report: RestoreReport) -> None:
    path = entry.path
    mode = entry.mode if entry.mode is not None else 0o644
    if path.is_file() and not path.is_symlink():
        try:
            if stat.S_IMODE(path.stat().st_mode) == mode and _same_bytes(path, stored):
                report.unchanged.append(path)
                return
        except OSError:
            pass
    if os.path.lexists(path) and (path.is_symlink() or not path.is_file()):
        _remove(path)
    atomic_copy(stored, path, mode=mode, suffix=".hermes-restore")
    report.restored.append(path)


def _restore_link(entry: CheckpointFile, report: RestoreReport) -> None:
    path = entry.path
    assert entry.link is not None
    if path.is_symlink() and os.readlink(path) == entry.link:
        report.unchanged.append(path)
        return
    if os.path.lexists(path):
        _remove(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(entry.link, path)
    report.restored.append(path)


def _remove_extras(root: Path, recorded: set[str], report: RestoreReport) -> None:
    if not root.is_dir() or root.is_symlink():
        return
    for current, dirs, files in os.walk(root):
        for name in list(dirs):
            p = os.path.join(current, name)
            if p not in recorded:
                try:
                    _remove(Path(p))
                    report.deleted.append(Path(p))
                except OSError as exc:
                    report.errors.append(f"{p}: could not delete: {exc.strerror or exc}")
                dirs.remove(name)
        for name in files:
            p = os.path.join(current, name)
            if p not in recorded:
                try:
                    os.unlink(p)
                    report.deleted.append(Path(p))
                except OSError as exc:
                    report.errors.append(f"{p}: could not delete: {exc.strerror or exc}")


def git_note(checkpoint: Checkpoint) -> str | None:
    git = checkpoint.git
    if not git or git.get("covered_by_files"):
        return None
    repo = git.get("repo")
    head = git.get("head")
    stash = git.get("stash")
    if not repo or not head:
        return None
    lines: list[str] = []
    current = (run_git(Path(repo), "rev-parse", "--verify", "-q", "HEAD") or "").strip() or None
    if current and current != head:
        lines.append(
            f"HEAD moved from {head[:12]} to {current[:12]} since this checkpoint: git checkout {head}"
        )
    if stash:
        lines.append(
            f"Uncommitted changes to tracked files were saved; to bring them back (in {repo}): "
            f"git stash apply {stash}"
        )
    else:
        rel = []
        for t in checkpoint.targets:
            try:
                rel.append(os.path.relpath(t, repo))
            except ValueError:
                continue
        rel = [r for r in rel if not r.startswith("..")] or ["."]
        lines.append(
            f"Tracked files were clean at {head[:12]}; to restore them (in {repo}): "
            f"git checkout {head} -- {' '.join(rel)}"
        )
    return "\n".join(lines)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        os.unlink(path)


def _same_bytes(a: Path, b: Path) -> bool:
    if a.stat().st_size != b.stat().st_size:
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            ca, cb = fa.read(1024 * 1024), fb.read(1024 * 1024)
            if ca != cb:
                return False
            if not ca:
                return True

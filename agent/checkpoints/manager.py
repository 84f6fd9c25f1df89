"""The checkpoint manager, and the once-per-batch checkpoint the agent loop hands to its tools.

The loop takes at most one checkpoint per batch of tool calls, right before the first mutating call
actually runs: a tool calls `ctx.checkpoint()` after its approval and before it changes anything, so a
denied command leaves no checkpoint of something that never happened. Old checkpoints are pruned by age,
then by total size; the root is `$HERMES_HOME/tui/checkpoints/`.
"""

from __future__ import annotations

import builtins
import json
import logging
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from agent.checkpoints.model import Checkpoint, RestoreReport
from agent.checkpoints.plan import plan_checkpoint
from agent.checkpoints.restore import git_note, restore_files
from agent.checkpoints.snapshot import MAX_SNAPSHOT_BYTES, MB, take_snapshot
from agent.core.messages import ToolCall

if TYPE_CHECKING:
    from agent.environments import Environment

log = logging.getLogger(__name__)


class CheckpointManager:
    """One session's checkpoints under `root`: snapshot, list, restore, prune. A snapshot never fails the
    tool call: any problem is logged and the snapshot is skipped (or the one file noted)."""

    def __init__(
        self,
        root: Path,
        session_id: str,
        *,
        max_age_days: float = 7,
        max_total_bytes: int = 200 * MB,
        max_snapshot_bytes: int = MAX_SNAPSHOT_BYTES,
        hermes_home: Path | None = None,
        environment: Callable[[], Environment] | None = None,
    ) -> None:
        """`environment`: where the files live when that is not this machine (the session's, asked for
        when a checkpoint is taken or restored): the checkpoint is then an archive made there."""
        self.environment = environment
        self.root = Path(root)
        self.hermes_home = hermes_home
        self.session_id = session_id
        self.max_age_days = max_age_days
        self.max_total_bytes = max_total_bytes
        self.max_snapshot_bytes = max_snapshot_bytes
        self._lock = threading.RLock()

    @property
    def session_dir(self) -> Path:
        return self.root / _safe_name(self.session_id)

    # ----------------------------------------------------------------- snapshot

    def snapshot_calls(self, calls: Iterable[ToolCall], *, cwd: Path) -> Checkpoint | None:
        """Snapshot before a batch of tool calls if any of them mutates files (see `plan_checkpoint`)."""
        try:
            plan = plan_checkpoint(calls, cwd, hermes_home=self.hermes_home)
        except Exception:
            log.warning("checkpoint planning failed", exc_info=True)
            return None
        if plan is None:
            return None
        return self.snapshot(
            plan.paths, cwd=plan.cwd, label=plan.label, tool_name=plan.tool_name, command=plan.command
        )

    def snapshot(
        self,
        paths: list[Path],
        *,
        cwd: Path,
        label: str,
        tool_name: str,
        command: str | None = None,
    ) -> Checkpoint | None:
        """Copy the targets' current state. Returns None (and logs why) when nothing was or could be saved."""
        with self._lock:
            try:
                checkpoint = self._snapshot(paths, cwd=cwd, label=label, tool_name=tool_name, command=command)
            except Exception as exc:
                log.warning("checkpoint skipped (%s: %s)", type(exc).__name__, exc, exc_info=True)
                return None
            if checkpoint is not None:
                self._prune(keep={checkpoint.id})
            return checkpoint

    def _snapshot(
        self, paths: list[Path], *, cwd: Path, label: str, tool_name: str, command: str | None
    ) -> Checkpoint | None:
        if self.environment is not None:
            from agent.checkpoints.remote import take_remote_snapshot

            return take_remote_snapshot(
                self.environment(),
                self.session_id,
                self.session_dir,
                paths,
                cwd=cwd,
                label=label,
                tool_name=tool_name,
                command=command,
                max_bytes=self.max_snapshot_bytes,
            )
        return take_snapshot(
            self.root,
            self.session_id,
            self.session_dir,
            paths,
            cwd=cwd,
            label=label,
            tool_name=tool_name,
            command=command,
            max_bytes=self.max_snapshot_bytes,
        )

    # ----------------------------------------------------------------- list / get

    def list(self) -> list[Checkpoint]:
        """This session's checkpoints, newest first."""
        out = []
        try:
            dirs = list(self.session_dir.iterdir())
        except OSError:
            return []
        for d in dirs:
            if d.name.startswith(".") or not d.is_dir():
                continue
            checkpoint = _load(d)
            if checkpoint is not None:
                out.append(checkpoint)
        out.sort(key=lambda c: (c.created_at, c.id), reverse=True)
        return out

    def get(self, checkpoint_id: str) -> Checkpoint | None:
        """By id or unique id prefix (or 1-based position in `list()` given as "1", "2", ...)."""
        items = self.list()
        for c in items:
            if c.id == checkpoint_id:
                return c
        if checkpoint_id.isdigit() and 1 <= int(checkpoint_id) <= len(items) and len(checkpoint_id) <= 4:
            return items[int(checkpoint_id) - 1]
        matches = [c for c in items if c.id.startswith(checkpoint_id)] if checkpoint_id else []
        return matches[0] if len(matches) == 1 else None

    # ----------------------------------------------------------------- restore

    def restore(self, checkpoint_id: str, *, backup: bool = True) -> RestoreReport:
        """Put the checkpoint's files back; with `backup`, first snapshot the current state of its paths."""
        with self._lock:
            report = RestoreReport()
            checkpoint = self.get(checkpoint_id)
            if checkpoint is None:
                report.errors.append(f"No checkpoint {checkpoint_id!r} in this session.")
                return report
            keep = {checkpoint.id}
            if backup and checkpoint.targets:
                try:
                    before = self._snapshot(
                        list(checkpoint.targets),
                        cwd=checkpoint.cwd,
                        label=f"rollback to {checkpoint.id}",
                        tool_name="rollback",
                        command=None,
                    )
                except Exception as exc:
                    log.warning("backup before rollback failed: %s", exc, exc_info=True)
                    before = None
                if before is not None:
                    report.backup_id = before.id
                    keep.add(before.id)
            try:
                if checkpoint.where and self.environment is not None:
                    from agent.checkpoints.remote import restore_remote

                    restore_remote(self.environment(), checkpoint, report)
                elif checkpoint.where:
                    report.errors.append(f"it was taken in {checkpoint.where}, not on this machine")
                else:
                    restore_files(checkpoint, report)
            except Exception as exc:
                report.errors.append(f"restore stopped: {type(exc).__name__}: {exc}")
            try:
                report.git_note = git_note(checkpoint)
            except Exception as exc:
                report.errors.append(f"git: {type(exc).__name__}: {exc}")
            self._prune(keep=keep)
            return report

    def restore_all(self, checkpoint_ids: Iterable[str]) -> tuple[RestoreReport, builtins.list[str]]:
        """Put files back as they were before the oldest of these checkpoints (a rewind past several steps):
        the current state of all their paths saved first as one checkpoint, then each restored newest
        first, so a path ends as the earliest checkpoint that holds it recorded it. Returns the merged
        report and the ids that are gone (pruned, deleted): their files could not be restored."""
        with self._lock:
            found: list[Checkpoint] = []
            missing: list[str] = []
            for checkpoint_id in dict.fromkeys(checkpoint_ids):
                checkpoint = self.get(checkpoint_id)
                if checkpoint is None or checkpoint.id != checkpoint_id:
                    missing.append(checkpoint_id)
                else:
                    found.append(checkpoint)
            found.sort(key=lambda c: (c.created_at, c.id), reverse=True)
            report = RestoreReport()
            keep = {c.id for c in found}
            targets = list(dict.fromkeys(t for c in found for t in c.targets))
            if targets:
                try:
                    before = self._snapshot(
                        targets, cwd=found[-1].cwd, label="rewind", tool_name="rewind", command=None
                    )
                except Exception as exc:
                    log.warning("backup before rewind failed: %s", exc, exc_info=True)
                    before = None
                if before is not None:
                    report.backup_id = before.id
                    keep.add(before.id)
            final: dict[Path, str] = {}  # path -> what the last (oldest) restore touching it did
            for checkpoint in found:
                step = RestoreReport()
                try:
                    restore_files(checkpoint, step)
                except Exception as exc:
                    step.errors.append(f"restore stopped: {type(exc).__name__}: {exc}")
                for path in step.unchanged:
                    final.setdefault(path, "unchanged")
                for path in step.restored:
                    final[path] = "restored"
                for path in step.deleted:
                    final[path] = "deleted"
                report.errors += step.errors
                report.skipped += step.skipped
            for path, what in final.items():
                {"restored": report.restored, "deleted": report.deleted, "unchanged": report.unchanged}[
                    what
                ].append(path)
            if found:
                try:
                    report.git_note = git_note(found[-1])
                except Exception as exc:
                    report.errors.append(f"git: {type(exc).__name__}: {exc}")
            self._prune(keep=keep)
            return report, missing

    # ----------------------------------------------------------------- prune

    def prune(self) -> builtins.list[str]:  # `list` here is the method above
        """Remove checkpoints (all sessions) older than max_age, then the oldest until the total size fits."""
        with self._lock:
            return self._prune(keep=set())

    def _prune(self, *, keep: set[str]) -> builtins.list[str]:
        removed: list[str] = []
        try:
            session_dirs = [d for d in self.root.iterdir() if d.is_dir()]
        except OSError:
            return removed
        now = time.time()
        items: list[tuple[float, str, Path, int]] = []
        for sdir in session_dirs:
            try:
                children = list(sdir.iterdir())
            except OSError:
                continue
            for d in children:
                if not d.is_dir():
                    continue
                if d.name.startswith(".tmp-"):
                    if _mtime(d) < now - 3600:  # a snapshot interrupted by a crash
                        shutil.rmtree(d, ignore_errors=True)
                    continue
                created, size = _created_and_size(d)
                items.append((created, d.name, d, size))
        max_age = self.max_age_days * 86400
        fresh = []
        for item in items:
            created, cid, d, _ = item
            if now - created > max_age and cid not in keep:
                shutil.rmtree(d, ignore_errors=True)
                removed.append(cid)
            else:
                fresh.append(item)
        fresh.sort(key=lambda t: (t[0], t[1]))
        total = sum(t[3] for t in fresh)
        for _created, cid, d, size in list(fresh):
            if total <= self.max_total_bytes:
                break
            if cid in keep:
                continue
            shutil.rmtree(d, ignore_errors=True)
            removed.append(cid)
            total -= size
        for sdir in session_dirs:
            try:
                sdir.rmdir()  # only when empty
            except OSError:
                pass
        if removed:
            log.info("pruned %d checkpoint(s)", len(removed))
        return removed


def _load(d: Path) -> Checkpoint | None:
    try:
        data = json.loads((d / "manifest.json").read_text(encoding="utf-8"))
        return Checkpoint.from_manifest(data, d)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.debug("unreadable checkpoint %s: %s", d, exc)
        return None


def _created_and_size(d: Path) -> tuple[float, int]:
    checkpoint = _load(d)
    if checkpoint is not None and checkpoint.size_bytes > 0:
        return checkpoint.created_at, checkpoint.size_bytes + _size(d / "manifest.json")
    size = _tree_size(d)
    return (checkpoint.created_at if checkpoint is not None else _mtime(d)), size


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0


def _tree_size(d: Path) -> int:
    total = 0
    for current, _, files in os.walk(d):
        for name in files:
            try:
                total += os.lstat(os.path.join(current, name)).st_size
            except OSError:
                pass
    return total


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0


def _safe_name(name: str) -> str:
    cleaned = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name).strip(".")
    return cleaned or "session"


class BatchCheckpoint:
    """At most one checkpoint for a batch of tool calls, taken when the first call that changes files is
    about to run (after its approval). Thread-safe: calls running in parallel wait for the one snapshot,
    so each finds its file saved before it writes.

    The plan covers every call of the batch that has not finished yet (a call refused earlier is done and
    left out); a call a plugin rewrote is planned as rewritten (`note`)."""

    def __init__(
        self,
        manager: CheckpointManager,
        calls: list[ToolCall],
        *,
        cwd: Path,
        on_saved: Callable[[Checkpoint], None] | None = None,
    ) -> None:
        self.manager = manager
        self.cwd = Path(cwd)
        self.on_saved = on_saved
        self.checkpoint: Checkpoint | None = None
        self._calls: dict[str, ToolCall] = {c.id: c for c in calls}
        self._order = [c.id for c in calls]
        self._finished: set[str] = set()
        self._taken = False
        self._lock = threading.Lock()

    def note(self, call: ToolCall) -> None:
        """The call as it will run (plugins may rewrite a call before it runs)."""
        with self._lock:
            if call.id in self._calls:
                self._calls[call.id] = call

    def finished(self, call_id: str) -> None:
        with self._lock:
            self._finished.add(call_id)

    def before_mutation(self, call: ToolCall) -> None:
        """`call` is approved and about to change files: snapshot once, before it does."""
        with self._lock:
            if self._taken:
                return
            try:
                if plan_checkpoint([call], self.cwd, hermes_home=self.manager.hermes_home) is None:
                    return  # nothing this call changes is ours to save (a read-only command)
            except Exception:
                log.warning("checkpoint planning failed", exc_info=True)
                return
            self._taken = True
            pending = [self._calls[i] for i in self._order if i not in self._finished]
            if call.id not in self._calls:
                pending.insert(0, call)
            self.checkpoint = self.manager.snapshot_calls(pending, cwd=self.cwd)
        if self.checkpoint is not None and self.on_saved is not None:
            self.on_saved(self.checkpoint)

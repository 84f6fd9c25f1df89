"""A checkpoint's data: the entries it recorded, its manifest form, and what a restore did."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.core.humanize import format_age


@dataclass
class CheckpointFile:
    path: Path
    existed: bool
    kind: str | None = None  # file | symlink | dir | skipped (None when it did not exist)
    mode: int | None = None
    size: int = 0
    stored_as: str | None = None
    link: str | None = None
    note: str | None = None
    # Top-level directory targets: True when every entry beneath was recorded, so on restore whatever appeared
    # inside since is removed; False when some of it could not be read (extras are then left alone).
    complete: bool | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": str(self.path),
            "existed": self.existed,
            "kind": self.kind,
            "mode": self.mode,
            "size": self.size,
            "stored_as": self.stored_as,
        }
        for key in ("link", "note", "complete"):
            value = getattr(self, key)
            if value is not None:
                data[key] = value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckpointFile:
        return cls(
            path=Path(data["path"]),
            existed=bool(data.get("existed")),
            kind=data.get("kind"),
            mode=data.get("mode"),
            size=int(data.get("size") or 0),
            stored_as=data.get("stored_as"),
            link=data.get("link"),
            note=data.get("note"),
            complete=data.get("complete"),
        )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


@dataclass
class Checkpoint:
    id: str
    session_id: str
    created_at: float
    label: str
    tool_name: str
    command: str | None
    cwd: Path
    files: list[CheckpointFile]
    git: dict[str, Any] | None
    targets: list[Path]
    size_bytes: int
    path: Path  # the checkpoint's directory
    where: str = ""  # the environment it was taken in when not this machine (`ssh user@host`), else ""

    @property
    def file_count(self) -> int:
        """Files and links whose content was saved (a path that did not exist is not a saved file)."""
        return sum(1 for f in self.files if f.kind in ("file", "symlink"))

    @property
    def new_count(self) -> int:
        """Paths that did not exist: a restore deletes them if they were created since."""
        return sum(1 for f in self.files if not f.existed)

    @property
    def summary(self) -> str:
        parts = []
        if self.file_count or not self.new_count:
            parts.append(_plural(self.file_count, "file"))
        if self.new_count:
            parts.append(_plural(self.new_count, "new path"))
        text = f"{' and '.join(parts)} before {self.label}"
        extras = []
        if self.git and self.git.get("stash"):
            extras.append(f"git stash {str(self.git['stash'])[:10]}")
        elif self.git and self.git.get("head"):
            extras.append(f"git HEAD {str(self.git['head'])[:10]}")
        skipped = sum(1 for f in self.files if f.kind == "skipped")
        if skipped:
            extras.append(f"{skipped} not copied")
        return text + (f" ({', '.join(extras)})" if extras else "")

    def age_text(self, now: float | None = None) -> str:
        return format_age(self.created_at, time.time() if now is None else now)

    def describe(self, now: float | None = None) -> str:
        return f"{self.summary}, {self.age_text(now)}"

    @classmethod
    def from_manifest(cls, data: dict[str, Any], path: Path) -> Checkpoint:
        return cls(
            id=str(data["id"]),
            session_id=str(data.get("session_id") or path.parent.name),
            created_at=float(data.get("created_at") or 0.0),
            label=str(data.get("label") or ""),
            tool_name=str(data.get("tool_name") or ""),
            command=data.get("command"),
            cwd=Path(data.get("cwd") or "."),
            files=[CheckpointFile.from_json(f) for f in data.get("files") or []],
            git=data.get("git"),
            targets=[Path(p) for p in data.get("targets") or []],
            size_bytes=int(data.get("total_bytes") or 0),
            path=path,
            where=str(data.get("where") or ""),
        )


@dataclass
class RestoreReport:
    restored: list[Path] = field(default_factory=list)
    deleted: list[Path] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    git_note: str | None = None
    unchanged: list[Path] = field(default_factory=list)  # already identical: not rewritten
    skipped: list[str] = field(default_factory=list)  # recorded but not copied at snapshot time (reason)
    backup_id: str | None = None  # the checkpoint of the state just before this restore

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        parts = [f"restored {_plural(len(self.restored), 'file')}"]
        if self.unchanged:
            parts.append(f"{len(self.unchanged)} unchanged")
        if self.deleted:
            parts.append(f"deleted {len(self.deleted)}")
        if self.skipped:
            parts.append(f"{len(self.skipped)} not in the checkpoint")
        if self.errors:
            parts.append(_plural(len(self.errors), "error"))
        return ", ".join(parts)


@dataclass
class SnapshotPlan:
    paths: list[Path]
    cwd: Path
    label: str
    tool_name: str
    command: str | None = None

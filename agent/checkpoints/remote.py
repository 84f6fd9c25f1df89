"""Checkpoints of files that live in another environment (a container, an ssh host): the targets as one
`tar` archive made there and kept here, beside a manifest like a local checkpoint's; a restore deletes
what did not exist, removes what did (a directory's later additions with it) and unpacks the archive there
(modes and links as they were). It needs `sh` and `tar` there; without them the checkpoint is skipped (and
logged), as a local snapshot that cannot read a file is.
"""

from __future__ import annotations

import json
import logging
import os
import shlex
import shutil
import subprocess
import threading
import time
import uuid
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from agent.checkpoints.model import Checkpoint, CheckpointFile, RestoreReport
from agent.checkpoints.snapshot import mkdir_private, write_private

if TYPE_CHECKING:
    from agent.environments import Environment

__all__ = ["restore_remote", "take_remote_snapshot"]

log = logging.getLogger(__name__)

ARCHIVE = "files/archive.tar"
TIMEOUT = 120.0  # seconds for one archive, either way


def _run(
    environment: Environment, script: str, args: list[str], *, data: bytes | None = None, limit: int
) -> bytes:
    """stdout of `sh -c script args` there, at most `limit` bytes (OSError past it, on a non-zero exit or
    after TIMEOUT). stderr is the script's to silence: the environment merges it into stdout."""
    command = " ".join(shlex.quote(part) for part in ["sh", "-c", script, "sh", *args])
    stdin = subprocess.PIPE if data is not None else subprocess.DEVNULL
    proc = environment.spawn(command, cwd=Path("/"), label="checkpoint", stdin=stdin, stdout=subprocess.PIPE)
    if data is not None:
        assert proc.stdin is not None

        def feed() -> None:
            try:
                assert proc.stdin is not None
                proc.stdin.write(data)
                proc.stdin.close()
            except OSError:
                pass

        threading.Thread(target=feed, name="checkpoint-feed", daemon=True).start()
    assert proc.stdout is not None
    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + TIMEOUT
    too_big = False
    while chunk := proc.stdout.read(1 << 20):
        size += len(chunk)
        if size > limit or time.monotonic() > deadline:
            too_big = size > limit
            break
        chunks.append(chunk)
    if proc.poll() is None and (too_big or time.monotonic() > deadline):
        environment.stop([proc], 2.0)
        environment.finished(proc, "checkpoint")
        raise OSError("too large to copy" if too_big else f"no answer within {TIMEOUT:.0f} s")
    proc.stdout.close()
    code = proc.wait()
    environment.finished(proc, "checkpoint")
    if code != 0:
        raise OSError(f"exit code {code}: {b''.join(chunks)[-300:].decode('utf-8', 'replace').strip()}")
    return b"".join(chunks)


_EXISTS = 'for p in "$@"; do if [ -e "$p" ] || [ -L "$p" ]; then printf y; else printf n; fi; done'
_PACK = 'cd / && exec tar -cf - -- "$@" 2>/dev/null'
_UNPACK = 'for p in "$@"; do rm -rf -- "/$p"; done; cd / && exec tar -xpf - 2>&1'
_DELETE = 'for p in "$@"; do if [ -e "$p" ] || [ -L "$p" ]; then rm -rf -- "$p" && echo "$p"; fi; done'


def take_remote_snapshot(
    environment: Environment,
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
    """The targets' current state there, archived into a new checkpoint of `session_dir`. Raises on
    failure (the manager logs it and goes on without one)."""
    targets = list(dict.fromkeys(Path(os.path.normpath(str(PurePosixPath(cwd) / str(p)))) for p in paths))
    if not targets:
        return None
    flags = _run(environment, _EXISTS, [str(t) for t in targets], limit=len(targets) + 16).decode()
    existing = [t for t, flag in zip(targets, flags, strict=False) if flag == "y"]
    archive = b""
    if existing:
        archive = _run(environment, _PACK, [str(t).lstrip("/") for t in existing], limit=max_bytes)
    created = time.time()
    checkpoint_id = time.strftime("%Y%m%d-%H%M%S", time.localtime(created)) + f"-{uuid.uuid4().hex[:6]}"
    mkdir_private(session_dir)
    tmp = session_dir / f".tmp-{checkpoint_id}"
    mkdir_private(tmp / "files")
    try:
        if existing:
            write_private(tmp / ARCHIVE, archive)
        files = [
            CheckpointFile(path=t, existed=t in existing, kind="file" if t in existing else None,
                           size=0, stored_as=ARCHIVE if t in existing else None)
            for t in targets
        ]  # fmt: skip
        manifest = {
            "id": checkpoint_id,
            "session_id": session_id,
            "created_at": created,
            "label": label,
            "tool_name": tool_name,
            "command": command,
            "cwd": str(cwd),
            "targets": [str(t) for t in targets],
            "files": [f.to_json() for f in files],
            "git": None,
            "total_bytes": len(archive),
            "where": environment.label,
        }
        write_private(tmp / "manifest.json", json.dumps(manifest, indent=1).encode("utf-8"))
        final = session_dir / checkpoint_id
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Checkpoint.from_manifest(manifest, final)


def restore_remote(environment: Environment, checkpoint: Checkpoint, report: RestoreReport) -> None:
    """Put a remote checkpoint back where it was taken."""
    new = [str(f.path) for f in checkpoint.files if not f.existed]
    if new:
        try:
            gone = _run(environment, _DELETE, new, limit=1 << 20).decode("utf-8", "replace").split("\n")
            report.deleted.extend(Path(p) for p in gone if p)
        except OSError as exc:
            report.errors.append(f"could not delete what was new: {exc}")
    kept = [f for f in checkpoint.files if f.existed]
    if not kept:
        return
    try:
        data = (checkpoint.path / ARCHIVE).read_bytes()
        relative = [str(f.path).lstrip("/") for f in kept]
        _run(environment, _UNPACK, relative, data=data, limit=1 << 20)
    except OSError as exc:
        report.errors.append(
            f"could not put the files back in {checkpoint.where or 'the environment'}: {exc}"
        )
        return
    report.restored.extend(f.path for f in kept)

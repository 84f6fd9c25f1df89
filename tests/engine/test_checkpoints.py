"""Checkpoints: snapshot/restore byte for byte, created files deleted, directories, pruning, command analysis,
terminal targets, git work trees, and failures that must never reach the tool call."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import time
from pathlib import Path

import pytest

from agent import checkpoints as ck
from agent.checkpoints import (
    CheckpointManager,
    is_destructive_command,
    plan_checkpoint,
    targets_for_terminal,
)
from agent.checkpoints import plan as ck_plan
from agent.checkpoints import snapshot as ck_snapshot
from agent.core.messages import ToolCall


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "home" / "tui" / "checkpoints"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    d = tmp_path / "work"
    d.mkdir()
    return d


def mode_of(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


# --------------------------------------------------------------------- snapshot / restore


def test_snapshot_and_restore_byte_for_byte_with_mode(root: Path, work: Path) -> None:
    text = work / "src" / "app.py"
    text.parent.mkdir()
    text.write_bytes(b"print('hello')\r\n\xef\xbb\xbf unicode \xe2\x9c\x93\n")
    binary = work / "blob.bin"
    binary.write_bytes(bytes(range(256)) * 40 + b"\x00\xff")
    script = work / "run.sh"
    script.write_bytes(b"#!/bin/sh\necho hi\n")
    os.chmod(script, 0o751)
    originals = {p: p.read_bytes() for p in (text, binary, script)}

    mgr = CheckpointManager(root, "sess1")
    cp = mgr.snapshot(
        [Path("src/app.py"), binary, script], cwd=work, label="write_file src/app.py", tool_name="write_file"
    )
    assert cp is not None

    text.write_text("clobbered")
    binary.unlink()
    script.write_bytes(b"")
    os.chmod(script, 0o600)

    report = mgr.restore(cp.id)
    assert report.errors == []
    assert sorted(report.restored) == sorted([text, binary, script])
    for p, data in originals.items():
        assert p.read_bytes() == data
    assert mode_of(script) == 0o751
    assert not [p for p in text.parent.iterdir() if p.name.endswith(".hermes-restore")]
    # the state just before the restore was saved, so a rollback can itself be undone
    assert report.backup_id is not None
    backup = mgr.get(report.backup_id)
    assert backup is not None and backup.label == f"rollback to {cp.id}"


def test_storage_layout_manifest_and_permissions(root: Path, work: Path) -> None:
    f = work / "a.txt"
    f.write_text("one")
    mgr = CheckpointManager(root, "sess1")
    cp = mgr.snapshot([f, work / "new.txt"], cwd=work, label="write_file a.txt", tool_name="write_file")
    assert cp is not None
    assert cp.path == root / "sess1" / cp.id
    manifest = json.loads((cp.path / "manifest.json").read_text())
    assert {"id", "created_at", "label", "tool_name", "command", "cwd", "files", "git"} <= set(manifest)
    assert manifest["git"] is None
    entries = {e["path"]: e for e in manifest["files"]}
    assert entries[str(f)]["existed"] is True and entries[str(f)]["size"] == 3
    assert (cp.path / entries[str(f)]["stored_as"]).read_text() == "one"
    assert entries[str(work / "new.txt")]["existed"] is False
    for d in (root, root / "sess1", cp.path, cp.path / "files"):
        assert mode_of(d) == 0o700, d
    for p in (cp.path / "manifest.json", cp.path / entries[str(f)]["stored_as"]):
        assert mode_of(p) == 0o600, p


def test_file_created_after_the_snapshot_is_deleted_on_restore(root: Path, work: Path) -> None:
    mgr = CheckpointManager(root, "s")
    new = work / "sub" / "new.txt"
    cp = mgr.snapshot([new], cwd=work, label="write_file sub/new.txt", tool_name="write_file")
    assert cp is not None
    new.parent.mkdir()
    new.write_text("created by the tool")
    report = mgr.restore(cp.id, backup=False)
    assert report.deleted == [new]
    assert not new.exists()
    assert report.errors == []


def test_directory_target_is_copied_recursively_and_restored_exactly(root: Path, work: Path) -> None:
    d = work / "build"
    (d / "sub").mkdir(parents=True)
    (d / "a.txt").write_text("A")
    (d / "sub" / "b.bin").write_bytes(b"\x00\x01")
    os.symlink("a.txt", d / "link")
    mgr = CheckpointManager(root, "s")
    cp = mgr.snapshot(
        [d], cwd=work, label="terminal rm -rf build", tool_name="terminal", command="rm -rf build"
    )
    assert cp is not None
    assert cp.summary == "3 files before terminal rm -rf build"

    shutil.rmtree(d)
    d.mkdir()
    (d / "stray.txt").write_text("appeared later")
    report = mgr.restore(cp.id, backup=False)
    assert report.errors == []
    assert (d / "a.txt").read_text() == "A"
    assert (d / "sub" / "b.bin").read_bytes() == b"\x00\x01"
    assert os.readlink(d / "link") == "a.txt"
    assert not (d / "stray.txt").exists()
    assert d / "stray.txt" in report.deleted


def test_symlink_target_keeps_the_link_and_the_file_it_points_to(root: Path, work: Path) -> None:
    real = work / "real.txt"
    real.write_text("original")
    link = work / "link.txt"
    os.symlink("real.txt", link)
    mgr = CheckpointManager(root, "s")
    cp = mgr.snapshot([link], cwd=work, label="write_file link.txt", tool_name="write_file")
    assert cp is not None
    assert [(f.path.name, f.kind) for f in cp.files] == [("link.txt", "symlink"), ("real.txt", "file")]
    link.write_text("written through the link")
    report = mgr.restore(cp.id, backup=False)
    assert real.read_text() == "original" and os.readlink(link) == "real.txt"
    assert report.restored == [real] and report.unchanged == [link]


def test_directory_over_the_cap_is_skipped_with_a_note(root: Path, work: Path) -> None:
    d = work / "big"
    d.mkdir()
    (d / "x.bin").write_bytes(b"x" * 5000)
    small = work / "small.txt"
    small.write_text("s")
    mgr = CheckpointManager(root, "s", max_snapshot_bytes=4000)
    cp = mgr.snapshot([d, small], cwd=work, label="terminal rm -rf big small.txt", tool_name="terminal")
    assert cp is not None
    big = next(f for f in cp.files if f.path == d)
    assert big.kind == "skipped" and "directory larger than" in (big.note or "")
    assert "1 not copied" in cp.summary
    small.write_text("changed")
    report = mgr.restore(cp.id, backup=False)
    assert small.read_text() == "s"
    assert report.skipped and str(d) in report.skipped[0]


def test_list_is_newest_first_with_summary_and_age(root: Path, work: Path) -> None:
    mgr = CheckpointManager(root, "s")
    for i in range(3):
        f = work / f"f{i}.txt"
        f.write_text(str(i))
        assert mgr.snapshot([f], cwd=work, label=f"write_file f{i}.txt", tool_name="write_file") is not None
        time.sleep(0.01)
    items = mgr.list()
    assert [c.label for c in items] == ["write_file f2.txt", "write_file f1.txt", "write_file f0.txt"]
    assert items[0].summary == "1 file before write_file f2.txt"
    assert items[0].age_text() == "just now"
    assert items[0].age_text(now=items[0].created_at + 3 * 60) == "3 min ago"  # the rest: test_humanize
    assert items[0].describe().startswith("1 file before write_file f2.txt, ")
    assert mgr.get("1") == items[0]
    assert mgr.get(items[2].id[:-2]) == items[2]  # a unique prefix
    assert CheckpointManager(root, "other-session").list() == []
    bad = mgr.restore("nope")
    assert bad.errors == ["No checkpoint 'nope' in this session."]


def _age(cp_dir: Path, seconds: float) -> None:
    manifest = cp_dir / "manifest.json"
    data = json.loads(manifest.read_text())
    data["created_at"] -= seconds
    manifest.write_text(json.dumps(data))


def test_prune_by_age(root: Path, work: Path) -> None:
    f = work / "f.txt"
    f.write_text("x")
    old_session = CheckpointManager(root, "old", max_age_days=7)
    old = old_session.snapshot([f], cwd=work, label="old", tool_name="write_file")
    mgr = CheckpointManager(root, "s", max_age_days=7)
    recent = mgr.snapshot([f], cwd=work, label="recent", tool_name="write_file")
    assert old is not None and recent is not None
    _age(old.path, 8 * 86400)
    assert mgr.prune() == [old.id]
    assert not old.path.exists() and not (root / "old").exists()
    assert [c.id for c in mgr.list()] == [recent.id]


def test_prune_by_total_size_drops_the_oldest_first(root: Path, work: Path) -> None:
    f = work / "f.bin"
    f.write_bytes(b"z" * 10_000)
    mgr = CheckpointManager(root, "s", max_total_bytes=10**9)
    made = []
    for i in range(4):
        cp = mgr.snapshot([f], cwd=work, label=f"n{i}", tool_name="write_file")
        assert cp is not None
        _age(cp.path, 100 - i)  # strictly increasing creation times
        made.append(cp.id)
    mgr.max_total_bytes = 25_000  # room for two
    removed = mgr.prune()
    assert removed == made[:2]
    assert [c.label for c in mgr.list()] == ["n3", "n2"]
    # snapshot() prunes too, and never drops the checkpoint it just made
    mgr.max_total_bytes = 1
    cp = mgr.snapshot([f], cwd=work, label="newest", tool_name="write_file")
    assert cp is not None and [c.id for c in mgr.list()] == [cp.id]


# --------------------------------------------------------------------- command analysis

DESTRUCTIVE = [
    "rm -rf build",
    "rm file.txt",
    "/bin/rm -f x",
    "sudo rm /etc/hosts.bak",
    "rmdir empty",
    "unlink x",
    "mv a.txt b.txt",
    "cp a.txt b.txt",
    "sed -i 's/a/b/' f.txt",
    "sed -i.bak -e 's/a/b/' f.txt",
    "sed --in-place=.orig s/a/b/ f.txt",
    "sed -Ei 's/x/y/' f",
    "perl -pi -e 's/x/y/' a.txt",
    "perl -i.bak -pe 's/x/y/' a.txt",
    "truncate -s 0 app.log",
    "dd if=/dev/zero of=disk.img bs=1M count=1",
    "shred -u secret.key",
    "git reset --hard HEAD~1",
    "git clean -fdx",
    "git checkout -- src/app.py",
    "git checkout main",
    "git restore --staged --worktree .",
    "git stash",
    "git stash pop",
    "git -C repo reset --hard",
    "echo hi > out.txt",
    "echo hi >| out.txt",
    "echo hi 2> err.log",
    "cmd &> all.log",
    "> empty.txt",
    "cat <<EOF > config.ini\n[a]\nx = 1\nEOF",
    "make 2>&1 | tee build.log",
    "find . -name '*.pyc' -delete",
    "find . -name '*.tmp' -exec rm {} \\;",
    "ls && rm -rf dist",
    "true; mv x y",
    "FOO=1 bash -c 'rm -f x'",
    'nohup sh -c "sed -i s/a/b/ f" &',
    "echo $(rm x)",
    "xargs rm < list.txt",
    "timeout 5 rm big",
    "env -i PATH=/bin rm x",
    "ln -sf target name",
    "rsync -a --delete src/ dst/",
]

SAFE = [
    "",
    "   ",
    "ls -la",
    "cat file.txt",
    "grep -r 'rm -rf' .",
    "echo 'rm -rf /'",
    'echo "a > b"',
    "echo hi >> log.txt",
    "cmd >/dev/null 2>&1",
    "cmd 2>/dev/null",
    "make 2>&1 | tee -a build.log",
    "sed -n '1,5p' f.txt",
    "sed 's/a/b/' f.txt",
    "perl -MList::Util -e 'print 1'",
    "perl -ne 'print if /x/' f",
    "git status",
    "git diff HEAD",
    "git log --oneline",
    "git stash list",
    "git checkout -b feature",
    "find . -name '*.py' -print",
    "python - <<EOF\nprint(1 > 2)\nEOF",
    "dd if=disk.img bs=1M count=1",
    "command -v rm",
    "ln -s a b",
    "tee",
    "echo 'unterminated",
    "pytest -x -q tests/  # > not a redirect",
    "docker run --rm image",
]


@pytest.mark.parametrize("command", DESTRUCTIVE)
def test_destructive_commands(command: str) -> None:
    assert is_destructive_command(command) is True


@pytest.mark.parametrize("command", SAFE)
def test_safe_commands(command: str) -> None:
    assert is_destructive_command(command) is False


def test_cp_counts_only_onto_an_existing_file_when_cwd_is_known(work: Path) -> None:
    (work / "a.txt").write_text("a")
    (work / "dir").mkdir()
    assert is_destructive_command("cp a.txt new.txt", work) is False
    (work / "new.txt").write_text("existing")
    assert is_destructive_command("cp a.txt new.txt", work) is True
    assert is_destructive_command("cp a.txt dir/", work) is False
    (work / "dir" / "a.txt").write_text("existing")
    assert is_destructive_command("cp a.txt dir/", work) is True


def test_command_analysis_never_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    weird = [
        "'",
        '"',
        "\\",
        "$(",
        "`",
        "<<",
        "<<EOF",
        ">",
        "2>&",
        "a" * 10_000 + " > x",
        "\x00rm x",
        "((",
        "|||;;&&",
    ]
    for command in weird:
        is_destructive_command(command)
        targets_for_terminal(command, Path("/nonexistent"))

    def boom(*a: object, **k: object) -> None:
        raise RuntimeError("parser bug")

    monkeypatch.setattr(ck_plan, "analyze", boom)
    assert is_destructive_command("rm -rf x") is True  # the regex fallback
    assert is_destructive_command("ls") is False
    assert targets_for_terminal("rm x", Path("/tmp")) == []


def test_targets_for_terminal(work: Path) -> None:
    (work / "build").mkdir()
    (work / "a.log").write_text("")
    (work / "b.log").write_text("")
    (work / "f.txt").write_text("")
    (work / "dir").mkdir()
    (work / "src.txt").write_text("")

    def t(cmd: str) -> list[Path]:
        return targets_for_terminal(cmd, work)

    assert t("rm -rf build *.log") == [work / "build", work / "a.log", work / "b.log"]
    assert t("sed -i -e 's/a/b/' f.txt") == [work / "f.txt"]
    assert t("sed -i 's/a/b/' f.txt") == [work / "f.txt"]
    assert t("echo x > out.txt 2>&1") == [work / "out.txt"]  # new, but its parent exists
    assert t("mv src.txt dir") == [work / "src.txt", work / "dir" / "src.txt"]
    assert t("cp f.txt copy.txt") == [work / "copy.txt"]
    assert t("cmd | tee one.txt two.txt") == [work / "one.txt", work / "two.txt"]
    assert t("find build -name '*.o' -delete") == [work / "build"]
    assert t("rm missing/deep/file $UNSET_VARIABLE/x /dev/null") == []
    assert t("dd if=/dev/zero of=img.bin") == [work / "img.bin"]
    assert t("git checkout -- f.txt") == [work / "f.txt"]
    assert t("cd sub && rm ~/../../nonexistent-dir-xyz/x") == []
    many = " ".join(f"f{i}" for i in range(200))
    assert len(t("rm " + many)) == ck.MAX_TARGETS


def test_plan_checkpoint_for_a_batch(work: Path) -> None:
    (work / "build").mkdir()
    calls = [
        ToolCall(id="1", name="read_file", arguments='{"path": "x"}'),
        ToolCall(id="2", name="write_file", arguments='{"path": "src/app.py", "content": ""}'),
        ToolCall(id="3", name="terminal", arguments='{"command": "ls"}'),
        ToolCall(id="4", name="terminal", arguments='{"command": "rm -rf build"}'),
        ToolCall(id="5", name="patch", arguments="not json"),
    ]
    plan = plan_checkpoint(calls, work)
    assert plan is not None
    assert plan.paths == [work / "src" / "app.py", work / "build"]
    assert plan.label == "write_file src/app.py (+1 more)"
    assert plan.tool_name == "write_file"
    assert plan.command == "rm -rf build"
    assert plan_checkpoint(calls[:1] + calls[2:3], work) is None

    mgr = CheckpointManager(work.parent / "cps", "s")
    cp = mgr.snapshot_calls(calls, cwd=work)
    # src/app.py does not exist yet: recorded (restore deletes it) but not counted as a saved file
    assert cp is not None and cp.summary.startswith("1 new path before write_file src/app.py (+1 more)")


# --------------------------------------------------------------------- git


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q")
    (r / "tracked.txt").write_text("v1\n")
    git(r, "add", "tracked.txt")
    git(r, "commit", "-q", "-m", "init")
    return r


def test_git_dirty_tree_records_a_stash_commit_and_the_restore_command(root: Path, repo: Path) -> None:
    (repo / "tracked.txt").write_text("v2 uncommitted\n")
    (repo / "notes.txt").write_text("untracked\n")
    head = git(repo, "rev-parse", "HEAD")
    mgr = CheckpointManager(root, "s")
    command = "git reset --hard && git clean -fd"
    assert targets_for_terminal(command, repo) == []
    cp = mgr.snapshot([], cwd=repo, label="terminal git reset --hard", tool_name="terminal", command=command)
    assert cp is not None and cp.git is not None
    stash = cp.git["stash"]
    assert stash and len(stash) == 40
    assert cp.git["head"] == head and cp.git["repo"] == str(repo)
    assert cp.git["untracked"] == ["notes.txt"]
    assert git(repo, "stash", "list") == ""  # the user's stash list is untouched
    assert git(repo, "status", "--porcelain") != ""  # and so is the work tree
    assert git(repo, "show", f"{stash}:tracked.txt") == "v2 uncommitted"

    subprocess.run(["sh", "-c", command], cwd=repo, check=True, capture_output=True)
    assert not (repo / "notes.txt").exists()
    report = mgr.restore(cp.id, backup=False)
    assert (repo / "notes.txt").read_text() == "untracked\n"
    assert report.git_note is not None
    assert f"git stash apply {stash}" in report.git_note
    git(repo, "stash", "apply", stash)
    assert (repo / "tracked.txt").read_text() == "v2 uncommitted\n"


def test_git_clean_tree_has_no_stash_and_suggests_checkout(root: Path, repo: Path) -> None:
    mgr = CheckpointManager(root, "s")
    cp = mgr.snapshot(
        [], cwd=repo, label="terminal git checkout main", tool_name="terminal", command="git stash"
    )
    assert cp is not None and cp.git is not None
    assert cp.git["stash"] is None
    head = cp.git["head"]
    report = mgr.restore(cp.id, backup=False)
    assert (
        report.git_note
        == f"Tracked files were clean at {head[:12]}; to restore them (in {repo}): git checkout {head} -- ."
    )


def test_git_note_is_omitted_when_the_copied_files_cover_the_command(root: Path, repo: Path) -> None:
    (repo / "tracked.txt").write_text("dirty\n")
    mgr = CheckpointManager(root, "s")
    targets = targets_for_terminal("rm tracked.txt", repo)
    cp = mgr.snapshot(
        targets, cwd=repo, label="terminal rm tracked.txt", tool_name="terminal", command="rm tracked.txt"
    )
    assert cp is not None and cp.git is not None and cp.git["stash"]
    (repo / "tracked.txt").unlink()
    report = mgr.restore(cp.id, backup=False)
    assert report.git_note is None
    assert (repo / "tracked.txt").read_text() == "dirty\n"


def test_not_a_git_tree_and_write_tools_take_no_git_snapshot(root: Path, work: Path, repo: Path) -> None:
    mgr = CheckpointManager(root, "s")
    f = work / "x"
    f.write_text("x")
    cp = mgr.snapshot([f], cwd=work, label="terminal rm x", tool_name="terminal", command="rm x")
    assert cp is not None and cp.git is None
    cp2 = mgr.snapshot(
        [repo / "tracked.txt"], cwd=repo, label="write_file tracked.txt", tool_name="write_file"
    )
    assert cp2 is not None and cp2.git is None


# --------------------------------------------------------------------- failures never reach the caller


def test_unreadable_and_special_files_are_noted_not_fatal(
    root: Path, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = work / "good.txt"
    good.write_text("good")
    locked = work / "locked.txt"
    locked.write_text("secret")
    fifo = work / "pipe"
    os.mkfifo(fifo)  # reading it would block forever
    real_open = open

    def guarded_open(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(file) == str(locked):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", guarded_open)
    mgr = CheckpointManager(root, "s")
    cp = mgr.snapshot([good, locked, fifo], cwd=work, label="terminal rm *", tool_name="terminal")
    monkeypatch.undo()
    assert cp is not None
    kinds = {f.path.name: (f.kind, f.note) for f in cp.files}
    assert kinds["good.txt"][0] == "file"
    assert kinds["locked.txt"][0] == "skipped" and "PermissionError" in (kinds["locked.txt"][1] or "")
    assert kinds["pipe"] == ("skipped", "not a regular file")
    good.write_text("bad")
    report = mgr.restore(cp.id, backup=False)
    assert good.read_text() == "good"
    assert locked.read_text() == "secret"  # left alone
    assert len(report.skipped) == 2


def test_snapshot_returns_none_instead_of_raising(
    root: Path, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    f = work / "f"
    f.write_text("x")
    blocker = work / "not-a-dir"
    blocker.write_text("a file where the checkpoint root should be")
    mgr = CheckpointManager(blocker / "checkpoints", "s")
    assert mgr.snapshot([f], cwd=work, label="l", tool_name="write_file") is None
    assert mgr.list() == []
    assert mgr.snapshot([], cwd=work, label="nothing", tool_name="write_file") is None

    mgr2 = CheckpointManager(root, "s")
    monkeypatch.setattr(
        ck_snapshot, "write_private", lambda *a: (_ for _ in ()).throw(OSError(28, "No space left"))
    )
    assert mgr2.snapshot([f], cwd=work, label="l", tool_name="write_file") is None
    leftovers = list((root / "s").iterdir()) if (root / "s").exists() else []
    assert leftovers == []  # the half-written checkpoint was removed


def test_checkpoint_root_itself_is_never_copied(root: Path, work: Path) -> None:
    mgr = CheckpointManager(root, "s")
    f = work / "f"
    f.write_text("x")
    assert mgr.snapshot([f], cwd=work, label="one", tool_name="write_file") is not None
    cp = mgr.snapshot([root.parent.parent], cwd=work, label="rm -rf home", tool_name="terminal")
    assert cp is None

"""`hermes-tui -w NAME` end to end (a subprocess, the scripted server, a temp git repository): the session
runs in `<repo>/.worktrees/NAME` on branch `hermes/NAME`, a file the model writes is only there, the main
checkout stays clean; a session that changed nothing leaves no worktree; outside a repository, one line."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.app.test_headless import _run


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    (root / "README.md").write_text("hello\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "first")
    return root


def scenario(tmp_path: Path, *calls: str) -> Path:
    path = tmp_path / "scenario.yaml"
    path.write_text("name: wt\ncalls:\n" + "".join(f"  - {c}\n" for c in calls))
    return path


def test_the_session_writes_only_in_its_worktree(hermes_home: Path, tmp_path: Path) -> None:
    root = repo(tmp_path)
    play = scenario(
        tmp_path,
        "tool_calls: [{name: write_file, arguments: {path: notes.txt, content: 'from the agent'}}]",
        "tool_calls: [{name: terminal, arguments: {command: 'git worktree list > wt.txt; pwd > where.txt'}}]",
        "text: written",
    )
    proc = _run(["-w", "feat", "-z", "write notes", "--scenario", str(play), "--yolo"], root, hermes_home)
    assert proc.returncode == 0, proc.stderr
    tree = root / ".worktrees" / "feat"
    assert (tree / "notes.txt").read_text() == "from the agent"
    assert not (root / "notes.txt").exists()
    assert (tree / "where.txt").read_text().strip() == str(tree)
    listed = (tree / "wt.txt").read_text()
    assert str(tree) in listed and "[hermes/feat]" in listed  # `git worktree list` during the session
    assert git(root, "status", "--porcelain") == ""  # the main checkout stays clean (.worktrees/ excluded)
    assert "[hermes/feat]" in git(root, "worktree", "list")  # kept: it holds the agent's work
    last = proc.stderr.strip().splitlines()[-1]
    assert f"Worktree kept: {tree}" in last and "git merge hermes/feat" in last
    # the same name again reuses it
    play = scenario(tmp_path, "text: nothing to do")
    proc = _run(["-w", "feat", "-z", "again", "--scenario", str(play)], root, hermes_home)
    assert proc.returncode == 0, proc.stderr
    assert "reused" in proc.stderr and (tree / "notes.txt").exists()


def test_a_worktree_the_session_did_not_change_is_removed(hermes_home: Path, tmp_path: Path) -> None:
    root = repo(tmp_path)
    proc = _run(
        ["-w", "idle", "-z", "hi", "--scenario", str(scenario(tmp_path, "text: hi"))], root, hermes_home
    )
    assert proc.returncode == 0, proc.stderr
    assert "removed: the session changed nothing" in proc.stderr.strip().splitlines()[-1]
    assert not (root / ".worktrees" / "idle").exists()
    assert "hermes/idle" not in git(root, "worktree", "list") + git(root, "branch")
    assert git(root, "status", "--porcelain") == ""


def test_outside_a_repository_is_one_line(hermes_home: Path, tmp_path: Path) -> None:
    proc = _run(["-w", "feat", "-z", "hi", "--demo"], tmp_path, hermes_home)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"hermes-tui: -w needs a git repository: {tmp_path} is not in one"

"""`agent.workspace.worktree` on a temp repository: `.worktreeinclude` brings ignored files into a new
worktree (never from outside the repository), and what it brought is not counted as the session's change;
a reused worktree keeps its branch; a change keeps the worktree."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent.workspace.worktree import finish_worktree, open_worktree


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    (root / ".gitignore").write_text(".env\nnode_modules/\n")
    (root / "src" / "app.py").write_text("print('hi')\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "first")
    (root / ".env").write_text("TOKEN=local\n")
    (root / "node_modules" / "left-pad").mkdir(parents=True)
    (tmp_path / "outside.txt").write_text("not the repository's\n")
    (root / ".worktreeinclude").write_text("# what a session needs\n.env\nnode_modules\n../outside.txt\n")
    return root


def test_worktreeinclude_is_brought_in_and_not_counted_as_a_change(tmp_path: Path) -> None:
    root = repo(tmp_path)
    tree = open_worktree(root / "src", "feat")
    assert tree.cwd == root / ".worktrees" / "feat" / "src"  # the same subfolder
    assert (tree.path / ".env").read_text() == "TOKEN=local\n"
    assert (tree.path / "node_modules").is_symlink()
    assert not (tree.path.parent / "outside.txt").exists() and not (tree.path / "outside.txt").exists()
    assert set(tree.included) == {".env", "node_modules"}
    assert "removed: the session changed nothing" in finish_worktree(tree)
    assert not tree.path.exists() and "hermes/feat" not in git(root, "branch")
    assert (root / "node_modules" / "left-pad").is_dir()  # the link went, not what it pointed to


def test_a_change_keeps_the_worktree_and_a_reuse_keeps_the_branch(tmp_path: Path) -> None:
    root = repo(tmp_path)
    tree = open_worktree(root, "feat")
    (tree.path / "src" / "app.py").write_text("print('changed')\n")
    line = finish_worktree(tree)
    assert line.startswith(f"Worktree kept: {tree.path}") and "1 uncommitted change" in line
    (tree.path / "src" / "app.py").write_text("print('hi')\n")  # undone by hand
    again = open_worktree(root, "feat")
    assert not again.created and again.path == tree.path
    assert "branch hermes/feat kept" in finish_worktree(again)  # it was not this session's to delete
    assert "hermes/feat" in git(root, "branch")

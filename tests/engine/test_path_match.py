"""`@` completion's ranking and the working-tree index behind it."""

from __future__ import annotations

import threading
from pathlib import Path

from agent.workspace.file_tree import FileIndex
from agent.workspace.path_match import rank_paths

PATHS = [
    "README.md",
    "src/",
    "src/app.py",
    "src/widgets/",
    "src/widgets/option_list.py",
    "src/widgets/_option_list.py",
    "tests/test_app.py",
    "docs/appendix/applied.md",
]


def test_name_start_beats_inside_beats_spread() -> None:
    ranked = rank_paths("app", PATHS)
    assert ranked[:2] == ["src/app.py", "docs/appendix/applied.md"]  # names starting with it, fewest folders
    assert ranked.index("tests/test_app.py") > ranked.index("docs/appendix/applied.md")
    assert rank_paths("optlist", PATHS)[:2] == ["src/widgets/option_list.py", "src/widgets/_option_list.py"]
    assert rank_paths("zzz", PATHS) == []
    assert rank_paths("", PATHS, limit=2) == ["src/", "README.md"]


def test_index_lists_in_the_background_and_honours_gitignore(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "keep.py").write_text("x")
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "dep.js").write_text("x")
    (tmp_path / ".gitignore").write_text("node_modules/\n")
    ready = threading.Event()
    index = FileIndex(tmp_path, on_ready=ready.set)
    assert index.paths() == []  # never blocks: the first listing runs in a thread
    assert ready.wait(10)
    assert index.paths() == ["a/", ".gitignore", "a/keep.py"]

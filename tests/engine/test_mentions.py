"""`@` mentions: what they name is attached after the typed text, capped, cuts said; prose stays prose."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent.workspace.mentions import ATTACHED_HEADER, expand_mentions, find_mentions, split_attached


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("".join(f"line {i}\n" for i in range(1, 121)))
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n```py\nx\n```\n")
    (tmp_path / "docs" / "b.md").write_text("b\n")
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00" + bytes(100))
    (tmp_path / "my notes.txt").write_text("quoted path\n")
    return tmp_path


def test_mention_shapes() -> None:
    found = find_mentions(
        "see @src/app.py#L20-45, @docs/ and @file:src/app.py:3-4 plus @diff; mail bob@example.com @"
    )
    assert [(m.kind, m.target, m.start, m.end) for m in found] == [
        ("path", "src/app.py", 20, 45),
        ("path", "docs/", None, None),
        ("file", "src/app.py", 3, 4),
        ("diff", "", None, None),
    ]
    assert find_mentions('open @"my notes.txt" now')[0].target == "my notes.txt"
    assert find_mentions("end of sentence @src/app.py.")[0].target == "src/app.py"


def test_a_line_range_is_attached_and_the_text_kept(tree: Path) -> None:
    expansion = expand_mentions("explain @src/app.py#L20-22 please", tree)
    assert expansion.text.startswith("explain @src/app.py#L20-22 please\n\n" + ATTACHED_HEADER)
    assert "line 20\nline 21\nline 22\n" in expansion.text and "line 23" not in expansion.text
    (attachment,) = expansion.attachments
    assert attachment.label == "src/app.py L20-22 · 3 lines" and not attachment.problem
    assert split_attached(expansion.text) == ("explain @src/app.py#L20-22 please", [attachment.label])


def test_prose_is_left_alone_and_a_missing_file_is_said(tree: Path) -> None:
    expansion = expand_mentions("thanks @someone, ping @nobody.md", tree)
    assert expansion.text == "thanks @someone, ping @nobody.md"  # nothing attached, the text as typed
    assert all(not a.block for a in expansion.attachments)
    assert split_attached(expansion.text) == (expansion.text, [])
    assert expansion.problems == ["@nobody.md: no such file or folder"]  # a typo is not silent


def test_folder_binary_and_quoted(tree: Path) -> None:
    expansion = expand_mentions('@docs/ @logo.png @"my notes.txt"', tree)
    labels = [a.label for a in expansion.attachments]
    assert labels[0] == "docs/ · 2 files" and "a.md" in expansion.text and "b.md" in expansion.text
    assert labels[1].startswith("logo.png · binary") and "\x00" not in expansion.text
    assert "quoted path" in expansion.text
    # A fence inside the attached file cannot close the attachment's fence.
    md = expand_mentions("@docs/a.md", tree).text
    assert "````\n" in md


def test_a_big_file_is_cut_and_the_cut_is_said(tree: Path) -> None:
    (tree / "big.txt").write_text("".join(f"{i:06d} " + "x" * 93 + "\n" for i in range(5000)))
    expansion = expand_mentions("@big.txt", tree, max_file_chars=10_000)
    (attachment,) = expansion.attachments
    assert attachment.truncated and "(first 99 attached)" in attachment.label
    assert "read_file offset=100" in expansion.text
    assert expansion.problems == ["@big.txt: only the first 99 of 5000 lines attached (size cap)"]
    assert len(expansion.text) < 12_000


def test_outside_the_working_directory_and_bad_ranges_are_refused(tree: Path, tmp_path_factory) -> None:
    other = tmp_path_factory.mktemp("other")
    (other / "secret.txt").write_text("nope\n")
    expansion = expand_mentions(f"@{other}/secret.txt @src/app.py#L500-510", tree)
    assert "nope" not in expansion.text and ATTACHED_HEADER not in expansion.text
    assert any("outside the working directory" in p for p in expansion.problems)
    assert any("has 120 lines" in p for p in expansion.problems)


def test_diff_attaches_the_working_tree_changes(tree: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tree, check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.email=a@b", "-c", "user.name=a", "add", "src/app.py")
    git("-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "x")
    (tree / "src" / "app.py").write_text("changed\n")
    expansion = expand_mentions("review @diff", tree)
    (attachment,) = expansion.attachments
    assert attachment.label == "git diff · 1 file" and "+changed" in expansion.text

"""Hermes' context references `@url:https://...` (fetched through the web tools' policy and limits, from a
loopback server this test starts) and `@git:N` (the last N commits' diffs, from a temp repository); a
reference that cannot be read is one line and nothing is attached for it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent.workspace.mentions import ATTACHED_HEADER, expand_mentions, fetch_remote, find_mentions
from tests.web_standins import WebStandIn


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=True)


def repo(tmp_path: Path, commits: int) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.email", "t@example.com")
    git(tmp_path, "config", "user.name", "t")
    for i in range(1, commits + 1):
        (tmp_path / f"f{i}.txt").write_text(f"content of change {i}\n")
        git(tmp_path, "add", ".")
        git(tmp_path, "commit", "-qm", f"change number {i}")
    return tmp_path


def test_reference_shapes() -> None:
    found = find_mentions('read @url:https://example.com/a?b=1, then @git:3. and @url:"https://x.org/a b"')
    assert [(m.kind, m.target) for m in found] == [
        ("url", "https://example.com/a?b=1"),
        ("git", "3"),
        ("url", "https://x.org/a b"),
    ]


def test_at_url_attaches_the_page_as_web_extract_reads_it(tmp_path: Path) -> None:
    with WebStandIn() as web:
        url = f"{web.url}/pages/article"
        expansion = expand_mentions(f"summarize @url:{url}.", tmp_path, web=web.settings())
    [attached] = expansion.attachments
    assert expansion.problems == [] and attached.block
    assert "Octopuses and squid recode their proteins" in attached.block  # the article, as Markdown
    assert "Subscribe to our newsletter" not in attached.block  # the navigation left out, as web_extract does
    assert attached.label.startswith(url) and "How octopuses edit their RNA" in attached.block
    assert expansion.text.startswith(f"summarize @url:{url}.\n\n{ATTACHED_HEADER}")


def test_at_url_keeps_to_the_url_policy_and_says_why_in_one_line(tmp_path: Path) -> None:
    with WebStandIn() as web:
        refused = expand_mentions(
            f"@url:{web.url}/pages/article", tmp_path, web=web.settings(allow_private_urls=False)
        )
        missing = expand_mentions(f"@url:{web.url}/pages/nothing-here", tmp_path, web=web.settings())
        metadata = expand_mentions(
            "@url:http://169.254.169.254/latest/meta-data", tmp_path, web=web.settings()
        )
        loop = expand_mentions(f"@url:{web.url}/pages/loop-a", tmp_path, web=web.settings())
    for expansion in (refused, missing, metadata, loop):
        [problem] = expansion.problems
        assert "\n" not in problem and problem.startswith("@url:")
        assert expansion.text == expansion.typed  # nothing attached
    assert "private" in refused.problems[0] or "loopback" in refused.problems[0]
    assert "404" in missing.problems[0]


def test_at_url_is_cut_to_its_share_and_says_so(tmp_path: Path) -> None:
    with WebStandIn() as web:
        expansion = expand_mentions(
            f"@url:{web.url}/pages/big", tmp_path, web=web.settings(), max_file_chars=5_000
        )
    [attached] = expansion.attachments
    assert "cut" in attached.label and attached.truncated
    assert "[cut: the page has" in attached.block and len(attached.block) < 6_000
    assert expansion.problems == ["@url:" + f"{web.url}/pages/big: the page was cut to fit (size cap)"]


def test_without_web_settings_the_pages_wait_for_fetch_remote(tmp_path: Path) -> None:
    """The TUI expands on its UI thread: the page is fetched later, in the turn's worker."""
    with WebStandIn() as web:
        url = f"{web.url}/pages/notes.txt"
        expansion = expand_mentions(f"@url:{url}", tmp_path)
        assert expansion.attachments == [] and [m.target for m in expansion.remote] == [url]
        assert web.requests == []  # nothing fetched yet
        [fetched] = fetch_remote(expansion.remote, web.settings())
    assert "plain notes\nline two" in fetched.block


def test_at_git_attaches_the_last_commits_with_their_diffs(tmp_path: Path) -> None:
    root = repo(tmp_path, 4)
    expansion = expand_mentions("what changed? @git:2", root)
    [attached] = expansion.attachments
    assert attached.label == "git log -2 -p · 2 commits"
    assert "change number 4" in attached.block and "change number 3" in attached.block
    assert "change number 2" not in attached.block
    assert "+content of change 4" in attached.block  # the diff, not just the message


def test_at_git_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    outside = expand_mentions("@git:2", tmp_path)  # not a repository
    (tmp_path / "r").mkdir()
    root = repo(tmp_path / "r", 1)
    bad = expand_mentions("@git:x @git:11", root)
    [problem] = outside.problems
    assert problem.startswith("@git:2: ") and "not a git repository" in problem and "\n" not in problem
    assert bad.problems == [
        "@git:x: expected a number of commits from 1 to 10 (@git:3)",
        "@git:11: expected a number of commits from 1 to 10 (@git:3)",
    ]
    assert bad.text == bad.typed

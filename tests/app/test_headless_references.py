"""`-z` with Hermes' context references: `@git:N` and `@url:` are attached before the turn (one `┊ @` line
each on stderr), with the web settings of config.yaml; one that cannot be read is one line."""

from __future__ import annotations

from pathlib import Path

from tests.app.test_headless import _run
from tests.app.test_worktree_cli import repo, scenario
from tests.web_standins import WebStandIn


def test_git_and_url_references_go_with_the_prompt(hermes_home: Path, tmp_path: Path) -> None:
    root = repo(tmp_path)
    (hermes_home / "config.yaml").write_text("security:\n  allow_private_urls: true\n")
    play = scenario(tmp_path, "text: seen")
    with WebStandIn() as web:
        prompt = f"compare @git:1 with @url:{web.url}/pages/notes.txt and @url:{web.url}/pages/gone"
        proc = _run(["-z", prompt, "--scenario", str(play)], root, hermes_home)
    assert proc.returncode == 0, proc.stderr
    assert "┊ @ git log -1 -p · 1 commit" in proc.stderr
    assert f"┊ @ {web.url}/pages/notes.txt" in proc.stderr
    assert f"hermes-tui: @url:{web.url}/pages/gone: HTTP 404" in proc.stderr
    assert "Traceback" not in proc.stderr

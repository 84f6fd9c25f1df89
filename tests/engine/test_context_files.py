"""Project instruction files a new session's prompt takes, found as Hermes finds them."""

from __future__ import annotations

from pathlib import Path

from agent.prompts.system import build_system_prompt, find_context_files
from scripted import ScriptedServer
from tests.engine.helpers import make_agent, system_text


def prompt(cwd: Path) -> str:
    return build_system_prompt(cwd=cwd, tools=[], model="m")


def test_cursorrules_is_read(tmp_path: Path) -> None:
    (tmp_path / ".cursorrules").write_text("Prefer tabs.\n")
    assert "## Project instructions (.cursorrules)\nPrefer tabs." in prompt(tmp_path)


def test_cursor_rules_mdc_files_are_read_in_order_without_their_frontmatter(tmp_path: Path) -> None:
    rules = tmp_path / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "b-style.mdc").write_text("---\ndescription: style\nglobs: '*.py'\n---\nUse black.\n")
    (rules / "a-tests.mdc").write_text("Write a test first.\n")
    (rules / "notes.txt").write_text("not a rule\n")
    text = prompt(tmp_path)
    assert text.index("Write a test first.") < text.index("Use black.")
    assert "(.cursor/rules/a-tests.mdc)" in text and "globs:" not in text and "not a rule" not in text


def test_cursorrules_and_mdc_rules_go_together(tmp_path: Path) -> None:
    (tmp_path / ".cursorrules").write_text("Rule one.\n")
    (tmp_path / ".cursor" / "rules").mkdir(parents=True)
    (tmp_path / ".cursor" / "rules" / "x.mdc").write_text("Rule two.\n")
    assert [p.name for p in find_context_files(tmp_path)] == [".cursorrules", "x.mdc"]


def test_hermes_md_at_the_git_root_is_found_from_a_subdirectory(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".hermes.md").write_text("Repository rules.\n")
    sub = tmp_path / "src" / "pkg"
    sub.mkdir(parents=True)
    (sub / "AGENTS.md").write_text("Lower priority.\n")
    text = prompt(sub)
    assert "Repository rules." in text and "Lower priority." not in text
    assert f"({tmp_path / '.hermes.md'})" in text


def test_hermes_md_above_the_git_root_is_not_read(tmp_path: Path) -> None:
    (tmp_path / ".hermes.md").write_text("Outside the repository.\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    assert "Outside the repository." not in prompt(repo)


def test_outside_a_repository_a_parents_hermes_md_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "HERMES.md").write_text("Planted in a parent.\n")
    sub = tmp_path / "work"
    sub.mkdir()
    assert "Planted in a parent." not in prompt(sub)


def test_lower_case_claude_md_is_read(tmp_path: Path) -> None:
    (tmp_path / "claude.md").write_text("Be brief.\n")
    assert "## Project instructions (claude.md)\nBe brief." in prompt(tmp_path)


def test_lower_case_agents_md_is_read(tmp_path: Path) -> None:
    (tmp_path / "agents.md").write_text("Run the tests.\n")
    assert "Run the tests." in prompt(tmp_path)


def test_only_the_first_kind_present_is_read(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("agents\n")
    (tmp_path / "CLAUDE.md").write_text("claude\n")
    (tmp_path / ".cursorrules").write_text("cursor\n")
    text = prompt(tmp_path)
    assert "agents" in text and "claude" not in text and "cursor\n" not in text


def test_the_git_root_hermes_md_reaches_the_model(hermes_home: Path, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "HERMES.md").write_text("Answer in French.\n")
    sub = tmp_path / "docs"
    sub.mkdir()
    with ScriptedServer({"name": "ctx", "calls": [{"text": "oui"}]}) as server:
        agent, _store, _ui = make_agent(server, hermes_home, sub)
        agent.run_conversation("hello")
        assert "Answer in French." in system_text(server.requests[0].body, "openai")

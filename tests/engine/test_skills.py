"""Skills in Hermes' format: the prompt index, the three tools, `/skill-name` turns, bad files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml

from agent.core.events import ToolFinished
from agent.core.ui import ApprovalDecision
from agent.session.session import Session
from agent.skills.index import MAX_INDEX_CHARS, skills_index
from agent.skills.library import GENERAL, Skill, SkillLibrary, split_front_matter
from agent.skills.tools import SkillManageArgs, SkillViewArgs, skill_manage, skill_view
from agent.toolkit.registry import ToolContext
from agent.toolkit.state import SessionState
from scripted import ScriptedServer
from tests.engine.helpers import last_user_text, make_agent, make_settings, system_text, tool_results
from tests.hermes_home_fixture import ZEBRA_SKILL, write_hermes_home
from tests.recording_ui import RecordingUI


def scenario(*calls: dict) -> str:
    return json.dumps({"name": "test", "calls": list(calls)})


def call(name: str, args: dict, call_id: str = "c1") -> dict:
    return {"tool_calls": [{"name": name, "arguments": args, "id": call_id}]}


def ctx_for(home: Path, cwd: Path, library: SkillLibrary | None = None) -> ToolContext:
    import threading

    state = SessionState(skills=library)
    return ToolContext(
        cwd=cwd, session_id="s", call_id="c", interrupt=threading.Event(), hermes_home=home, state=state
    )


NEW_SKILL = """---
name: lint-fix
description: Fix lint errors with ruff before committing
---

1. Run `ruff check --fix .`
2. Run `ruff format .`
"""


# ------------------------------------------------------------------------------------------------ library


def test_a_real_hermes_home_is_picked_up_unchanged(hermes_home: Path) -> None:
    write_hermes_home(hermes_home)
    before = {p: p.read_bytes() for p in hermes_home.rglob("*") if p.is_file()}
    library = SkillLibrary(hermes_home, ["note-taking"])
    scan = library.scan()
    by_name = {s.name: s for s in scan.skills}
    assert set(by_name) == {"zebra-deploy", "axolotl", "imessage", "note-taking"}
    assert scan.problems == ()
    zebra = by_name["zebra-deploy"]
    assert zebra.category == "devops" and zebra.description.startswith("Deploy the zebra service")
    assert zebra.metadata["hermes"]["tags"] == ["deploy", "zebra"]
    assert zebra.supporting_files() == [
        "references/dashboards.md",
        "references/v1/SKILL.md",
        "scripts/preflight.sh",
        "templates/release-notes.md",
    ]
    assert by_name["axolotl"].category == "mlops/training"
    assert by_name["note-taking"].category == GENERAL
    enabled = {s.name for s in library.enabled()}
    assert "note-taking" not in enabled  # skills.disabled
    assert ("imessage" in enabled) == (os.uname().sysname == "Darwin")  # platforms: [macos]
    assert {p: p.read_bytes() for p in hermes_home.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("# Just a heading\nno front matter\n", "no YAML front matter"),
        ("---\nname: [unclosed\n---\nbody\n", "bad YAML"),
        ("---\nname: x\ndescription: y\n", "not closed"),
        ("---\n- a list\n---\nbody\n", "not a mapping"),
    ],
)
def test_bad_skill_files_are_listed_with_a_reason_and_skipped(
    hermes_home: Path, text: str, reason: str
) -> None:
    good = hermes_home / "skills" / "ok" / "good"
    good.mkdir(parents=True)
    (good / "SKILL.md").write_text(NEW_SKILL.replace("lint-fix", "good"))
    bad = hermes_home / "skills" / "ok" / "bad"
    bad.mkdir()
    (bad / "SKILL.md").write_text(text)
    scan = SkillLibrary(hermes_home).scan()
    assert [s.name for s in scan.skills] == ["good"]
    assert len(scan.problems) == 1 and reason in scan.problems[0].reason
    assert "good" in skills_index(list(scan.skills))


def test_huge_and_binary_skill_files_are_skipped(hermes_home: Path) -> None:
    root = hermes_home / "skills"
    (root / "huge").mkdir(parents=True)
    (root / "huge" / "SKILL.md").write_text("---\nname: huge\ndescription: x\n---\n" + "x" * 300_000)
    (root / "bin").mkdir()
    (root / "bin" / "SKILL.md").write_bytes(b"---\nname: bin\x00\x01\n---\n")
    (root / "latin").mkdir()
    (root / "latin" / "SKILL.md").write_bytes("---\nname: caf\xe9\n---\n".encode("latin-1"))
    reasons = sorted(p.reason for p in SkillLibrary(hermes_home).scan().problems)
    assert len(reasons) == 3
    assert any("binary" in r for r in reasons) and any("too large" in r for r in reasons)
    assert any("UTF-8" in r for r in reasons)


def test_index_groups_by_category_and_is_capped() -> None:
    skills = [
        Skill(f"skill-{i:03d}", "does a thing " * 20, f"cat{i % 3}", Path(f"/s/cat{i % 3}/skill-{i:03d}"))
        for i in range(400)
    ]
    text = skills_index(skills)
    assert len(text) < MAX_INDEX_CHARS + 1_000
    assert "  cat0:" in text and "    - skill-000: does a thing" in text
    assert "more skills not listed here: skills_list shows them all" in text
    assert skills_index([]) == ""


# ----------------------------------------------------------------------------------------------- session


def test_skill_name_and_description_are_in_the_prompt_index(hermes_home: Path, tmp_path: Path) -> None:
    write_hermes_home(hermes_home)
    with ScriptedServer(scenario({"text": "hi"})) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, skills_disabled=["note-taking"])
        agent.run_conversation("hello")
        prompt = system_text(server.requests[0].body, "openai")
    assert "<available_skills>" in prompt
    assert "  devops:\n    - zebra-deploy: Deploy the zebra service to staging and production" in prompt
    assert "axolotl: Fine-tune LLMs with Axolotl" in prompt
    assert "note-taking" not in prompt
    assert prompt.startswith("You are Hermes, Ada's patient pair programmer.")  # SOUL.md is the identity


def test_skill_view_returns_the_body_and_refuses_paths_outside(hermes_home: Path, tmp_path: Path) -> None:
    write_hermes_home(hermes_home)
    secret = hermes_home / "skills" / "devops" / "secret.txt"
    secret.write_text("top secret")
    (hermes_home / "skills" / "devops" / "zebra-deploy" / "references" / "link.md").symlink_to(secret)
    calls = [
        call("skill_view", {"name": "zebra-deploy"}, "v1"),
        call("skill_view", {"name": "zebra-deploy", "file_path": "../secret.txt"}, "v2"),
        call("skill_view", {"name": "zebra-deploy", "file_path": "references/link.md"}, "v3"),
        call("skill_view", {"name": "zebra-deploy", "file_path": "references/dashboards.md"}, "v4"),
        {"text": "read it"},
    ]
    with ScriptedServer(scenario(*calls)) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("how do I deploy zebra?")
        results = dict(tool_results(server.requests[-1].body, "openai"))
    assert "Never deploy on Fridays." in results["v1"] and "name: zebra-deploy" in results["v1"]
    assert "references/dashboards.md" in results["v1"]
    assert results["v2"].startswith("Error:") and "'..'" in results["v2"]
    assert results["v3"].startswith("Error:") and "outside the skill's folder" in results["v3"]
    assert "top secret" not in results["v2"] + results["v3"]
    assert results["v4"] == "# Dashboards\nGrafana: zebra-overview\n"
    assert [e.status for e in ui.of_type(ToolFinished)] == ["ok", "error", "error", "ok"]


def test_skill_view_refuses_absolute_paths_and_disabled_skills(hermes_home: Path, tmp_path: Path) -> None:
    write_hermes_home(hermes_home)
    library = SkillLibrary(hermes_home, ["note-taking"])
    ctx = ctx_for(hermes_home, tmp_path, library)
    absolute = skill_view(SkillViewArgs(name="zebra-deploy", file_path="/etc/passwd"), ctx)
    assert absolute.status == "error" and "relative" in absolute.content
    disabled = skill_view(SkillViewArgs(name="note-taking"), ctx)
    assert disabled.status == "error" and "disabled" in disabled.content


def test_skill_manage_create_then_skills_list_shows_it(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        call(
            "skill_manage", {"action": "create", "name": "lint-fix", "category": "dev", "content": NEW_SKILL}
        ),
        call("skills_list", {}, "l1"),
        {"text": "saved"},
    ]
    with ScriptedServer(scenario(*calls)) as server:
        agent, _store, ui = make_agent(
            server, hermes_home, tmp_path, ui=RecordingUI(approval=ApprovalDecision.ONCE)
        )
        agent.run_conversation("save that as a skill")
        results = dict(tool_results(server.requests[-1].body, "openai"))
    path = hermes_home / "skills" / "dev" / "lint-fix" / "SKILL.md"
    assert path.read_text() == NEW_SKILL
    front, body = split_front_matter(path.read_text())
    assert front == {"name": "lint-fix", "description": "Fix lint errors with ruff before committing"}
    assert "ruff check --fix" in body
    assert "lint-fix: Fix lint errors with ruff" in results["l1"] and "dev:" in results["l1"]
    assert "next new session" in results["c1"]
    created = next(e for e in ui.of_type(ToolFinished) if e.name == "skill_manage")
    assert created.data["diff"].startswith("--- a/skills/dev/lint-fix/SKILL.md")
    assert "+description: Fix lint errors with ruff before committing" in created.data["diff"]
    assert len(ui.approval_requests) == 1  # gated like a file write


def test_skill_manage_write_is_denied_without_approval(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        call("skill_manage", {"action": "create", "name": "lint-fix", "content": NEW_SKILL}),
        {"text": "ok"},
    ]
    with ScriptedServer(scenario(*calls)) as server:
        agent, _store, ui = make_agent(server, hermes_home, tmp_path)  # RecordingUI denies
        agent.run_conversation("save it")
    assert not (hermes_home / "skills" / "lint-fix").exists()
    assert ui.of_type(ToolFinished)[0].status == "denied"


def test_skill_manage_patch_edit_files_and_delete(hermes_home: Path, tmp_path: Path) -> None:
    write_hermes_home(hermes_home)
    ctx = ctx_for(hermes_home, tmp_path)
    zebra = hermes_home / "skills" / "devops" / "zebra-deploy"

    patched = skill_manage(
        SkillManageArgs(
            action="patch", name="zebra-deploy", old_string="Fridays", new_string="Fridays or holidays"
        ),
        ctx,
    )
    assert patched.status == "ok", patched.content
    assert "Never deploy on Fridays or holidays." in (zebra / "SKILL.md").read_text()
    assert "+- Never deploy on Fridays or holidays." in patched.data["diff"]

    broken = skill_manage(
        SkillManageArgs(action="patch", name="zebra-deploy", old_string="---\nname", new_string="name"), ctx
    )
    assert broken.status == "error" and "break SKILL.md" in broken.content

    edited = skill_manage(SkillManageArgs(action="edit", name="zebra-deploy", content="no front matter"), ctx)
    assert edited.status == "error" and "front matter" in edited.content

    written = skill_manage(
        SkillManageArgs(
            action="write_file", name="zebra-deploy", file_path="references/oncall.md", file_content="x\n"
        ),
        ctx,
    )
    assert written.status == "ok" and (zebra / "references" / "oncall.md").read_text() == "x\n"
    outside = skill_manage(
        SkillManageArgs(action="write_file", name="zebra-deploy", file_path="../evil.md", file_content="x"),
        ctx,
    )
    assert outside.status == "error" and not (zebra.parent / "evil.md").exists()
    wrong_dir = skill_manage(
        SkillManageArgs(action="write_file", name="zebra-deploy", file_path="notes.md", file_content="x"), ctx
    )
    assert wrong_dir.status == "error" and "references" in wrong_dir.content

    deleted = skill_manage(SkillManageArgs(action="delete", name="zebra-deploy"), ctx)
    assert deleted.status == "ok" and not zebra.exists()
    assert "-name: zebra-deploy" in deleted.data["diff"]


def test_skill_manage_validates_names_and_duplicates(hermes_home: Path, tmp_path: Path) -> None:
    write_hermes_home(hermes_home)
    ctx = ctx_for(hermes_home, tmp_path)
    bad_name = skill_manage(SkillManageArgs(action="create", name="Bad Name", content=NEW_SKILL), ctx)
    assert bad_name.status == "error" and "invalid skill name" in bad_name.content
    bad_category = skill_manage(
        SkillManageArgs(action="create", name="x", category="a/b", content=NEW_SKILL), ctx
    )
    assert bad_category.status == "error" and "category" in bad_category.content
    duplicate = skill_manage(SkillManageArgs(action="create", name="zebra-deploy", content=ZEBRA_SKILL), ctx)
    assert duplicate.status == "error" and "already exists" in duplicate.content
    no_description = skill_manage(
        SkillManageArgs(action="create", name="x", content="---\nname: x\n---\nbody\n"), ctx
    )
    assert no_description.status == "error" and "description" in no_description.content


def test_slash_skill_text_stays_in_the_conversation_of_later_turns(hermes_home: Path, tmp_path: Path) -> None:
    write_hermes_home(hermes_home)
    with ScriptedServer(
        scenario({"text": "deploying"}, {"text": "next"}, {"text": "after resume"})
    ) as server:
        agent, store, ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("/zebra-deploy do it now")
        agent.run_conversation("status?")
        resumed = Session(agent.settings, ui=ui, store=store, session_id=agent.session_id)  # as `-c` does
        resumed.run_conversation("and now?")
        first = last_user_text(server.requests[0].body, "openai")
        later = [m["content"] for m in server.requests[1].body["messages"] if m["role"] == "user"]
        resumed_users = [m["content"] for m in server.requests[2].body["messages"] if m["role"] == "user"]
    assert first.startswith("/zebra-deploy do it now\n\n")
    assert '[IMPORTANT: The user has invoked the "zebra-deploy" skill' in first
    assert "Never deploy on Fridays." in first and "scripts/preflight.sh" in first
    stored = [m.content for m in store.load(agent.session_id).messages if m.role == "user"]
    assert stored == ["/zebra-deploy do it now", "status?", "and now?"]
    assert later == [first, "status?"]
    assert resumed_users == [first, "status?", "and now?"]


def test_slash_of_a_disabled_or_unknown_skill_is_plain_text(hermes_home: Path, tmp_path: Path) -> None:
    write_hermes_home(hermes_home)
    with ScriptedServer(scenario({"text": "a"}, {"text": "b"})) as server:
        agent, _store, _ui = make_agent(server, hermes_home, tmp_path, skills_disabled=["note-taking"])
        agent.run_conversation("/note-taking go")
        agent.run_conversation("/nope go")
        users = [last_user_text(r.body, "openai") for r in server.requests]
    assert users == ["/note-taking go", "/nope go"]


def test_disabling_a_skill_saves_hermes_config_and_leaves_the_next_index(
    hermes_home: Path, tmp_path: Path
) -> None:
    write_hermes_home(hermes_home)
    with ScriptedServer(scenario({"text": "a"}, {"text": "b"})) as server:
        settings = make_settings(server, hermes_home, tmp_path, skills_disabled=["note-taking"])
        agent = Session(settings)
        zebra = agent.skills.find("zebra-deploy")
        assert zebra is not None
        assert agent.skills.set_disabled(zebra, True) is None
        agent.run_conversation("hi")
        assert "zebra-deploy" not in system_text(server.requests[0].body, "openai")
        note = agent.skills.find("note-taking")
        assert note is not None and agent.skills.set_disabled(note, False) is None
    config = (hermes_home / "config.yaml").read_text()
    assert config.startswith("# Hermes configuration\n")  # the rest of the file is kept as written
    assert yaml.safe_load(config)["skills"] == {"disabled": ["zebra-deploy"], "creation_nudge_interval": 15}

"""The ephemeral system prompt (personality) on the wire only, and the todo list rebuilt on resume."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agent.config.settings import PersonalitySpec, load_settings
from agent.prompts.personality import BUILTIN_PERSONALITIES, choose, listing, personalities
from agent.session.session import Session
from scripted import ScriptedServer
from tests.engine.helpers import API_PARAMS, api_overrides, make_agent, system_text

PIRATE = BUILTIN_PERSONALITIES["pirate"]


def scenario(*calls: dict) -> str:
    return json.dumps({"name": "test", "calls": list(calls)})


def db_text(path: Path) -> str:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT system_prompt FROM sessions").fetchall()
        rows += db.execute("SELECT content FROM messages").fetchall()
    return "\n".join(str(r[0]) for r in rows)


@pytest.mark.parametrize("api", API_PARAMS)
def test_personality_is_on_the_wire_and_absent_from_the_db(
    hermes_home: Path, tmp_path: Path, api: str
) -> None:
    with ScriptedServer(scenario({"text": "Arr."}, {"text": "Plain."})) as server:
        agent, _store, _ui = make_agent(
            server, hermes_home, tmp_path, ephemeral_system_prompt="Be terse.", **api_overrides(server, api)
        )
        agent.run_conversation("hi")
        agent.ephemeral_prompt = PIRATE  # what /personality pirate does
        agent.run_conversation("again")
        first, second = (system_text(r.body, api) for r in server.requests)
    assert first.endswith("\n\nBe terse.") and second.endswith("\n\n" + PIRATE)
    base = first.removesuffix("\n\nBe terse.")
    assert second.removesuffix("\n\n" + PIRATE) == base  # the stored prompt itself never changes
    stored = db_text(hermes_home / "tui" / "state.db")
    assert "Be terse." not in stored and PIRATE not in stored
    assert agent.system_prompt.rstrip() == base.rstrip()


def test_config_personality_and_custom_table(hermes_home: Path) -> None:
    (hermes_home / "config.yaml").write_text(
        "agent:\n  system_prompt: You are a pirate.\n  personalities:\n"
        "    reviewer: {system_prompt: Review code strictly., tone: blunt, style: bullet points}\n"
        "personalities:\n  poet: Answer in verse.\n"
    )
    loaded = load_settings(env={"HERMES_HOME": str(hermes_home)})
    assert loaded.problems == []
    settings = loaded.settings
    assert settings.ephemeral_system_prompt == "You are a pirate."
    table = personalities(settings.personalities)
    assert table["reviewer"] == "Review code strictly.\nTone: blunt\nStyle: bullet points"
    assert table["poet"] == "Answer in verse." and table["pirate"] == PIRATE
    assert isinstance(settings.personalities["reviewer"], PersonalitySpec)


def test_choose_and_listing() -> None:
    table = personalities({})
    assert choose("Pirate", table).text == PIRATE
    assert choose("none", table).text == "" and choose("default", table).name == "none"
    free = choose("Answer only in haiku.", table)
    assert free.name is None and free.text == "Answer only in haiku."
    text = listing(table, PIRATE)
    assert "* pirate" in text and "  concise" in text and "  none" in text
    assert "* (custom)     Answer only in haiku." in listing(table, "Answer only in haiku.")


def test_resumed_session_rebuilds_the_todo_list(hermes_home: Path, tmp_path: Path) -> None:
    items = [{"id": "1", "content": "read the code", "status": "completed"}, {"id": "2", "content": "fix it"}]
    calls = [
        {"tool_calls": [{"name": "todo", "arguments": {"todos": items}, "id": "td1"}]},
        {
            "tool_calls": [
                {
                    "name": "todo",
                    "arguments": {"todos": [{"id": "2", "status": "in_progress"}], "merge": True},
                    "id": "td2",
                }
            ]
        },
        {"text": "working on it"},
        {"text": "resumed"},
    ]
    with ScriptedServer(scenario(*calls)) as server:
        agent, store, _ui = make_agent(server, hermes_home, tmp_path)
        agent.run_conversation("plan it")
        resumed = Session(agent.settings, store=store, session_id=agent.session_id)
        assert resumed.state.todos == [
            {"id": "1", "content": "read the code", "status": "completed"},
            {"id": "2", "content": "fix it", "status": "in_progress"},
        ]
        resumed.run_conversation("read the list back")
    fresh = Session(agent.settings, store=store)
    assert fresh.state.todos == []


def test_config_report_shows_the_new_keys(hermes_home: Path) -> None:
    import io

    from hermes_tui.config_report import print_config

    (hermes_home / "config.yaml").write_text(
        "agent:\n  system_prompt: " + "Speak like a ship's captain at all times. " * 4 + "\n"
        "  disabled_toolsets: [terminal]\n  personalities: {reviewer: Review strictly.}\n"
        "memory:\n  nudge_interval: 0\n  user_char_limit: nope\nskills:\n  creation_nudge_interval: 5\n"
    )
    out = io.StringIO()
    print_config(load_settings(env={"HERMES_HOME": str(hermes_home)}), out)
    lines = {line.split()[0]: line for line in out.getvalue().splitlines() if line.strip()}
    assert "terminal" in lines["disabled_toolsets"] and "config.yaml" in lines["disabled_toolsets"]
    assert "reviewer" in lines["personalities"] and "Review strictly" not in lines["personalities"]
    assert "…" in lines["ephemeral_system_prompt"]
    assert lines["memory_nudge_interval"].split()[1] == "0"
    assert lines["skill_nudge_interval"].split()[1] == "5"
    assert "memory.user_char_limit = 'nope': expected int" in out.getvalue()

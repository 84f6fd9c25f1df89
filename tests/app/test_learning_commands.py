"""`/skills`, `/tools`, `/personality`, skill slash commands and a resumed todo list, driven by Pilot."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import yaml
from textual.pilot import Pilot
from textual.widgets import OptionList

from agent.core.messages import Message
from agent.prompts.personality import BUILTIN_PERSONALITIES
from agent.session.session import Session
from agent.store import SessionStore
from hermes_tui.app import HermesApp
from hermes_tui.chat.screen import ChatScreen
from hermes_tui.screens.personality import PersonalityPicker
from hermes_tui.screens.skills import SkillsScreen
from hermes_tui.screens.tools import ToolsScreen
from scripted import ScriptedServer
from tests.app.harness import chat, chat_settings, run_chat, screen_text, shown, submit, wait_for
from tests.hermes_home_fixture import write_hermes_home
from widgets.transcript.entries.notice import NoticeEntry
from widgets.transcript.entries.tool_call import ToolCallEntry


def _notices(app: HermesApp) -> list[str]:
    return [n.text for n in chat(app).transcript.entries_of(NoticeEntry)]


def _offered(body: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools", [])}


async def _highlight(pilot: Pilot, options: OptionList, option_id: str) -> None:
    options.highlighted = options.get_option_index(option_id)
    await pilot.pause()


async def test_skills_screen_browses_and_disables_a_skill(hermes_home: Path, tmp_path: Path) -> None:
    write_hermes_home(hermes_home)

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await wait_for(pilot, lambda: "zebra-deploy" in screen.commands.skills, what="skill commands")
        await submit(pilot, "/skills")
        skills = await wait_for(pilot, lambda: isinstance(app.screen, SkillsScreen) and app.screen)
        options = skills.query_one("#skills-list", OptionList)
        await _highlight(pilot, options, "skill:zebra-deploy")
        text = screen_text(app)
        assert "devops" in text and "mlops/training" in text
        assert "Never deploy on Fridays." in text and "skills/devops/zebra-deploy/" in text
        await pilot.press("space")
        await pilot.pause()
        assert "disabled" in str(options.get_option("skill:zebra-deploy").prompt)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back to chat")
        config = yaml.safe_load((hermes_home / "config.yaml").read_text())
        assert config["skills"]["disabled"] == ["note-taking", "zebra-deploy"]
        await wait_for(pilot, lambda: "zebra-deploy" not in screen.commands.skills, what="rescan")
        assert "axolotl" in screen.commands.skills
        assert all(name != "/zebra-deploy" for name, _ in screen.prompt_input.commands)
        assert any("Skills switched" in n for n in _notices(app))
        await submit(pilot, "/zebra-deploy now")  # read again first (it might have been added since)
        await wait_for(pilot, lambda: any("Unknown command /zebra-deploy" in n for n in _notices(app)))
        assert not server.requests

    await run_chat(
        {"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path, skills_disabled=["note-taking"]
    )


async def test_skill_slash_command_loads_the_skill_for_this_turn(hermes_home: Path, tmp_path: Path) -> None:
    write_hermes_home(hermes_home)

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        zebra = ("/zebra-deploy", "Deploy the zebra service to staging and production with make ship")
        await wait_for(pilot, lambda: zebra in screen.prompt_input.commands, what="skill completions")
        await submit(pilot, "/zebra-deploy do it now")
        await wait_for(pilot, lambda: len(server.requests) == 1 and not screen.busy, what="turn end")
        user = [m for m in server.requests[0].body["messages"] if m["role"] == "user"][-1]["content"]
        assert user.startswith(
            '/zebra-deploy do it now\n\n[IMPORTANT: The user has invoked the "zebra-deploy"'
        )
        await shown(pilot, "/zebra-deploy do it now")
        stored = SessionStore(hermes_home / "tui" / "state.db").load(screen.agent.session_id).messages
        assert stored[0].content == "/zebra-deploy do it now"

    await run_chat({"name": "t", "calls": [{"text": "Deploying."}]}, body, home=hermes_home, cwd=tmp_path)


CODE_REVIEW = """---
name: code-review
description: Review the change for bugs before it ships
---

# Code review
Read the diff twice.
"""


async def test_a_skill_added_or_removed_while_the_app_runs_is_a_command_or_not(
    hermes_home: Path, tmp_path: Path
) -> None:
    """A skill written while the app runs (by hand, or the agent's skill_manage) is `/code-review` at once,
    as `/skills` lists it (it was an unknown command until a restart); a removed one stops completing after
    the next turn or `/skills`."""
    write_hermes_home(hermes_home)
    folder = hermes_home / "skills" / "software" / "code-review"

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await wait_for(pilot, lambda: "zebra-deploy" in screen.commands.skills, what="skill commands")
        assert "code-review" not in screen.commands.skills
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(CODE_REVIEW, encoding="utf-8")
        await submit(pilot, "/code-review the last commit")
        await wait_for(pilot, lambda: len(server.requests) == 1 and not screen.busy, what="turn end")
        user = [m for m in server.requests[0].body["messages"] if m["role"] == "user"][-1]["content"]
        assert user.startswith(
            '/code-review the last commit\n\n[IMPORTANT: The user has invoked the "code-review"'
        )
        assert not any("Unknown command" in n for n in _notices(app))
        review = ("/code-review", "Review the change for bugs before it ships")
        await wait_for(pilot, lambda: review in screen.prompt_input.commands, what="completed too")

        (folder / "SKILL.md").unlink()
        folder.rmdir()
        await submit(pilot, "/skills")
        await wait_for(pilot, lambda: isinstance(app.screen, SkillsScreen), what="the skills screen")
        await wait_for(pilot, lambda: "code-review" not in screen.commands.skills, what="removed")
        assert review not in screen.prompt_input.commands
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back to chat")

        folder.mkdir(parents=True)  # written by a turn (skill_manage): a command once the turn ends
        (folder / "SKILL.md").write_text(CODE_REVIEW, encoding="utf-8")
        await submit(pilot, "thanks")
        await wait_for(pilot, lambda: len(server.requests) == 2 and not screen.busy, what="second turn")
        await wait_for(pilot, lambda: review in screen.prompt_input.commands, what="listed after the turn")

    calls = [{"text": "Reviewed."}, {"text": "Welcome."}]
    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_tools_screen_toggle_changes_the_next_request(hermes_home: Path, tmp_path: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "first")
        await wait_for(pilot, lambda: len(server.requests) == 1 and not screen.busy, what="first turn")
        await submit(pilot, "/tools")
        tools = await wait_for(pilot, lambda: isinstance(app.screen, ToolsScreen) and app.screen)
        text = screen_text(app)
        assert "● on" in text and "prompt caching" in text
        await _highlight(pilot, tools.options, "terminal")
        await shown(pilot, "terminal")
        await pilot.press("enter")
        await pilot.pause()
        await shown(pilot, "off for this session")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back to chat")
        assert any("terminal off, from the next request" in n for n in _notices(app))
        await submit(pilot, "second")
        await wait_for(pilot, lambda: len(server.requests) == 2 and not screen.busy, what="second turn")
        first, second = (r.body for r in server.requests)
        assert "terminal" in _offered(first) and "terminal" not in _offered(second)
        assert first["messages"][0]["content"] == second["messages"][0]["content"]

    await run_chat(
        {"name": "t", "calls": [{"text": "one"}, {"text": "two"}]}, body, home=hermes_home, cwd=tmp_path
    )


async def test_tools_screen_shows_why_a_toolset_is_unavailable(hermes_home: Path, tmp_path: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/tools")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolsScreen))
        await pilot.pause()
        text = screen_text(app)
        assert "n/a" in text and "unavailable: memory.memory_enabled and memory.user_profile_enabled" in text
        assert "config: agent.disabled_toolsets: unknown toolset 'termnal'" in text

    await run_chat(
        {"name": "t", "calls": []},
        body,
        home=hermes_home,
        cwd=tmp_path,
        memory_enabled=False,
        user_profile_enabled=False,
        disabled_toolsets=["termnal"],
    )


async def test_personality_picker_and_free_text_reach_the_wire_only(
    hermes_home: Path, tmp_path: Path
) -> None:
    pirate = BUILTIN_PERSONALITIES["pirate"]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "/personality")
        picker = await wait_for(pilot, lambda: isinstance(app.screen, PersonalityPicker) and app.screen)
        assert "pirate" in screen_text(app) and "shakespeare" in screen_text(app)
        await _highlight(pilot, picker.query_one(OptionList), "pirate")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen, what="back to chat")
        assert any("Personality pirate" in n for n in _notices(app))
        await submit(pilot, "ahoy")
        await wait_for(pilot, lambda: len(server.requests) == 1 and not screen.busy, what="first turn")
        await submit(pilot, "/personality Answer only in haiku.")
        await submit(pilot, "and now")
        await wait_for(pilot, lambda: len(server.requests) == 2 and not screen.busy, what="second turn")
        await submit(pilot, "/personality none")
        await submit(pilot, "plain")
        await wait_for(pilot, lambda: len(server.requests) == 3 and not screen.busy, what="third turn")
        systems = [r.body["messages"][0]["content"] for r in server.requests]
        assert systems[0].endswith("\n\n" + pirate)
        assert systems[1].endswith("\n\nAnswer only in haiku.")
        assert pirate not in systems[2] and "haiku" not in systems[2]
        with sqlite3.connect(hermes_home / "tui" / "state.db") as db:
            stored = " ".join(str(r[0]) for r in db.execute("SELECT system_prompt FROM sessions"))
            stored += " ".join(str(r[0]) for r in db.execute("SELECT content FROM messages"))
        assert pirate not in stored and "Answer only in haiku." not in stored

    calls = [{"text": "Arr."}, {"text": "Old pond."}, {"text": "Plain."}]
    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_resumed_session_shows_the_previous_todos(hermes_home: Path, tmp_path: Path) -> None:
    items = [
        {"id": "1", "content": "read the migration", "status": "completed"},
        {"id": "2", "content": "write the fix", "status": "in_progress"},
        {"id": "3", "content": "run the tests", "status": "pending"},
    ]
    calls = [
        {"tool_calls": [{"name": "todo", "arguments": {"todos": items}, "id": "td"}]},
        {"text": "Planned."},
    ]
    with ScriptedServer(json.dumps({"name": "t", "calls": calls})) as server:
        settings = chat_settings(server, hermes_home, tmp_path)
        store = SessionStore(settings.state_db)
        agent = Session(settings, store=store)
        agent.run_conversation("plan the fix")
        for i in range(20):  # push the todo call far up the transcript
            store.append_message(agent.session_id, Message("user", f"question {i}"))
            store.append_message(agent.session_id, Message("assistant", f"answer {i}"))
        session_id = agent.session_id
        store.close()

        app = HermesApp(settings, resume_id=session_id)
        async with app.run_test(size=(100, 32)) as pilot:
            screen = await wait_for(pilot, lambda: any(isinstance(s, ChatScreen) for s in app.screen_stack))
            screen = chat(app)
            await wait_for(pilot, lambda: screen.transcript.tool_panel("resumed-todos") is not None)
            await pilot.pause()
            assert screen.agent.state.todos == items
            panel = screen.transcript.tool_panel("resumed-todos")
            assert isinstance(panel, ToolCallEntry) and panel.expanded
            text = screen_text(app)
            assert "write the fix" in text and "run the tests" in text


async def test_skill_manage_panel_shows_its_diff(hermes_home: Path, tmp_path: Path) -> None:
    content = "---\nname: lint-fix\ndescription: Fix lint errors with ruff\n---\n\nRun `ruff check --fix .`\n"
    calls = [
        {
            "tool_calls": [
                {
                    "name": "skill_manage",
                    "arguments": {"action": "create", "name": "lint-fix", "content": content},
                    "id": "sm",
                }
            ]
        },
        {"text": "Saved the skill."},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "save it as a skill")
        await wait_for(pilot, lambda: len(server.requests) == 2 and not screen.busy, what="turn end")
        panel = screen.transcript.tool_panel("sm")
        assert isinstance(panel, ToolCallEntry)
        panel.set_expanded(True)
        # the diff is drawn at the next layout, which a loaded machine can delay past any fixed pause
        await wait_for(
            pilot,
            lambda: (
                "+description: Fix lint errors with ruff" in (text := screen_text(app))
                and "skills/lint-fix/SKILL.md" in text
            ),
            what="the diff on screen",
        )
        assert (hermes_home / "skills" / "lint-fix" / "SKILL.md").read_text() == content

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path, yolo=True)


async def test_skills_empty_state_names_the_absolute_folder(hermes_home: Path, tmp_path: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/skills")
        await wait_for(pilot, lambda: isinstance(app.screen, SkillsScreen), what="the skills screen")
        folder = str((hermes_home / "skills").resolve())

        def empty_state() -> str | None:
            """The skills screen's text once it says it is empty, with every space and card border taken
            out: a long path wraps anywhere (where depends on the tmp dir's length)."""
            text = screen_text(app)
            squeezed = "".join(ch for ch in "".join(text.split()) if ch not in "│▕▏")  # borders off
            return squeezed if isinstance(app.screen, SkillsScreen) and "No skills yet" in text else None

        squeezed = await wait_for(pilot, empty_state, what="the empty state")
        assert folder.replace(" ", "") in squeezed

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path)

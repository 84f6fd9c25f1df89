"""Slash commands in the chat screen driven by Pilot: /plugins, /steer, /rollback, /sessions, /export."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from hermes_tui.app import HermesApp
from hermes_tui.screens.modals import ConfirmModal
from hermes_tui.screens.rollback import RollbackScreen
from hermes_tui.screens.sessions import ExportPathModal, SessionsScreen
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, screen_text, shown, submit, wait_for
from widgets.queued_messages import QueuedMessages
from widgets.transcript.entries.notice import NoticeEntry


def _notices(app: HermesApp) -> list[str]:
    return [n.text for n in chat(app).transcript.entries_of(NoticeEntry)]


async def test_plugins_command_lists_plugins_and_errors(hermes_home: Path, tmp_path: Path) -> None:
    (hermes_home / "plugins").mkdir()
    (hermes_home / "plugins" / "good.py").write_text("def pre_llm_call(**kw):\n    return None\n")
    (hermes_home / "plugins" / "bad.py").write_text("import does_not_exist_anywhere\n")

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/plugins")
        text = "\n".join(_notices(app))
        assert "good" in text and "bad" in text
        assert "does_not_exist_anywhere" in text

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path)


async def test_steer_command_reaches_the_running_turn(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "sleep 0.8; echo first"}, "id": "a"}]},
        {"text": "switching to plan B"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "start")
        await wait_for(pilot, lambda: screen.busy and screen.transcript.tool_panel("a") is not None)
        await submit(pilot, "/steer use plan B instead")
        await wait_for(pilot, lambda: not screen.busy, what="turn end")
        tool = next(m for m in server.requests[1].body["messages"] if m["role"] == "tool")
        assert "use plan B instead" in tool["content"]
        assert any("Steer delivered" in n for n in _notices(app))

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_queued_message_can_become_a_steer(hermes_home: Path, tmp_path: Path) -> None:
    go = tmp_path / "go"
    wait_for_go = f"while [ ! -e '{go}' ]; do sleep 0.05; done; echo first"
    calls = [
        # The command runs until the test lets it finish: the steer is made while it surely still runs.
        {"tool_calls": [{"name": "terminal", "arguments": {"command": wait_for_go}, "id": "a"}]},
        {"text": "ok"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "start")
        await wait_for(pilot, lambda: screen.transcript.tool_panel("a") is not None, what="command running")
        await submit(pilot, "also check the logs")
        queue = screen.query_one(QueuedMessages)
        assert queue.items == ("also check the logs",)
        queue.focus()
        queue.highlighted = 0
        await pilot.press("s")
        await wait_for(pilot, lambda: queue.items == (), what="steer taken")
        go.touch()
        await wait_for(pilot, lambda: not screen.busy, what="turn end")
        assert queue.items == ()
        tool = next(m for m in server.requests[1].body["messages"] if m["role"] == "tool")
        assert "also check the logs" in tool["content"]
        assert len(server.requests) == 2  # delivered as a steer, not sent as a new turn

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_rollback_restores_a_patched_file(hermes_home: Path, tmp_path: Path) -> None:
    target = tmp_path / "app.py"
    target.write_text("VALUE = 1\n")
    calls = [
        {
            "tool_calls": [
                {
                    "name": "patch",
                    "arguments": {"path": "app.py", "old_string": "VALUE = 1", "new_string": "VALUE = 2"},
                }
            ]
        },
        {"text": "changed"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "change it")
        await wait_for(pilot, lambda: not screen.busy and target.read_text() == "VALUE = 2\n", what="patched")
        await submit(pilot, "/rollback")
        rollback = await wait_for(pilot, lambda: isinstance(app.screen, RollbackScreen) and app.screen)
        await shown(pilot, "patch")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("enter")  # Cancel is focused: nothing happens
        await wait_for(pilot, lambda: app.screen is rollback)
        assert target.read_text() == "VALUE = 2\n"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal))
        await pilot.press("y")
        await wait_for(pilot, lambda: target.read_text() == "VALUE = 1\n", what="restored")
        assert any("restored" in n.lower() for n in _notices(app))

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_sessions_resume_continues_the_same_session(hermes_home: Path, tmp_path: Path) -> None:
    calls = [{"text": "the zanzibar answer"}, {"text": "a fresh start"}, {"text": "continued"}]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "tell me about zanzibar")
        await wait_for(pilot, lambda: not screen.busy)
        first_id = screen.agent.session_id
        await submit(pilot, "/new")
        await submit(pilot, "something else")
        await wait_for(pilot, lambda: not screen.busy)
        assert screen.agent.session_id != first_id
        await pilot.press("ctrl+r")
        sessions = await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen)
        await pilot.press(*"zanzibar")
        found = sessions

        def narrowed() -> bool:
            row = found.highlighted_row
            return bool(found.rows) and {r.session_id for r in found.rows} == {first_id} and row is not None

        await wait_for(pilot, narrowed, what="the search narrowed to the zanzibar session")
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: app.screen is screen and screen.agent.session_id == first_id, what="resumed"
        )
        await shown(pilot, "the zanzibar answer")
        await submit(pilot, "and more?")
        await wait_for(pilot, lambda: not screen.busy)
        assert screen.agent.session_id == first_id
        roles = [m.role for m in screen.store.load(first_id).messages]
        assert roles == ["user", "assistant", "user", "assistant"]
        del sessions

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_export_writes_markdown(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": "echo exported"}}]},
        {"text": "final words"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "go")
        await wait_for(pilot, lambda: not screen.busy)
        await submit(pilot, "/export session.md")  # a new file in an existing folder: written at once
        target = tmp_path / "session.md"
        await wait_for(pilot, lambda: target.exists(), what="export written")
        text = target.read_text()
        assert "<details>" in text and "echo exported" in text and "final words" in text
        # Replacing it, or creating a folder, is asked first in the path dialog.
        target.write_text("old")
        await submit(pilot, "/export session.md")
        dialog = await wait_for(pilot, lambda: isinstance(app.screen, ExportPathModal) and app.screen)
        await pilot.press("enter")
        assert "exists" in str(dialog.query_one("#prompt-error").render()) and target.read_text() == "old"
        await pilot.press("enter")
        await wait_for(pilot, lambda: target.read_text() != "old", what="replaced")
        await submit(pilot, "/export out/session.md")
        dialog = await wait_for(pilot, lambda: isinstance(app.screen, ExportPathModal) and app.screen)
        await pilot.press("enter", "enter")
        await wait_for(pilot, lambda: (tmp_path / "out" / "session.md").exists(), what="folder made")

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_export_to_a_path_the_system_refuses_asks_in_the_dialog(
    hermes_home: Path, tmp_path: Path
) -> None:
    """A name too long for the file system or a `~name` naming no user: the dialog opens with the path
    and says why, never a traceback (UI fuzz seed 6015: `/export aaa…` killed the app with ENAMETOOLONG)."""

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "go")
        await wait_for(pilot, lambda: not screen.busy)
        await submit(pilot, "/export " + "a" * 300)
        dialog = await wait_for(pilot, lambda: isinstance(app.screen, ExportPathModal) and app.screen)
        await pilot.press("enter")
        assert "Cannot use" in str(dialog.query_one("#prompt-error").render())
        await pilot.press("escape")
        await submit(pilot, "/export ~no-such-user-here/x.md")
        dialog = await wait_for(pilot, lambda: isinstance(app.screen, ExportPathModal) and app.screen)
        preview = str(dialog.query_one("#prompt-preview").render())
        assert str(tmp_path / "~no-such-user-here" / "x.md") in preview
        await pilot.press("escape")
        assert app.return_code is None

    await run_chat({"name": "t", "calls": [{"text": "hi"}]}, body, home=hermes_home, cwd=tmp_path)


async def test_compress_command_summarizes_the_middle(hermes_home: Path, tmp_path: Path) -> None:
    calls = [{"text": f"answer {i}"} for i in range(14)] + [{"text": "A summary of the early questions."}]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        for i in range(14):
            await submit(pilot, f"question {i}")
            await wait_for(pilot, lambda: not screen.busy)
        await submit(pilot, "/compress")
        await wait_for(pilot, lambda: any("Compressed" in n for n in _notices(app)), what="compressed")
        assert "tools" not in server.requests[-1].body
        assert not screen.busy

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_model_command_switches_the_next_turn_and_errors_name_the_new_model(
    hermes_home: Path, tmp_path: Path
) -> None:
    calls = [{"text": "from the first model"}, {"fault": {"status": 404, "message": "model not found"}}]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: not screen.busy, what="first turn")
        await submit(pilot, "/model gpt-imaginary")
        await wait_for(pilot, lambda: any("Model switched to gpt-imaginary" in n for n in _notices(app)))
        await shown(pilot, "gpt-imaginary")  # the status bar
        await submit(pilot, "and now?")
        await wait_for(pilot, lambda: len(server.requests) == 2 and not screen.busy, what="second turn")
        assert server.requests[1].body["model"] == "gpt-imaginary"
        errors = [n for n in _notices(app) if "Unknown model" in n]
        assert errors and "gpt-imaginary" in errors[-1] and "scripted" not in errors[-1]
        await submit(pilot, "/new")
        assert screen.settings.model == "gpt-imaginary"  # a new session keeps the switched model

    scenario = {"name": "t", "models": ["gpt-imaginary"], "calls": calls}
    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path, size=(140, 40))


async def test_theme_command_switches_the_theme(hermes_home: Path, tmp_path: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        assert app.theme != "mono"
        await submit(pilot, "/theme mono")
        await wait_for(pilot, lambda: app.theme == "mono", what="theme applied")
        assert "skin: mono" in (hermes_home / "tui" / "config.yaml").read_text()

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path)


def _user_texts(request_body: dict[str, object]) -> list[str]:
    messages = request_body.get("messages", [])
    assert isinstance(messages, list)
    return [str(m.get("content")) for m in messages if isinstance(m, dict) and m.get("role") == "user"]


async def test_clear_starts_a_fresh_conversation_and_keeps_the_old_one(
    hermes_home: Path, tmp_path: Path
) -> None:
    calls = [{"text": "the answer is 42"}, {"text": "fresh start"}]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "remember the number forty-two")
        await wait_for(
            pilot, lambda: "the answer is 42" in screen_text(app) and not screen.busy, what="reply"
        )
        old = screen.agent.session_id
        await submit(pilot, "/clear")
        notice = "\n".join(_notices(app))
        assert "New conversation" in notice and f"hermes-tui -r {old}" in notice
        await submit(pilot, "what number?")
        await wait_for(
            pilot, lambda: "fresh start" in screen_text(app) and not screen.busy, what="second reply"
        )
        last = [r for r in server.requests if "messages" in r.body][-1]
        sent = _user_texts(last.body)
        assert sent and sent[-1].startswith("what number?")
        assert not any("forty-two" in text for text in sent)  # the model starts fresh
        assert screen.agent.session_id != old
        assert app.store.get_session(old) is not None  # the old conversation is kept

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_copy_n_and_copy_code(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        {"text": "first reply\n\n```python\nprint('one')\n```"},
        {"text": "second reply, no code"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        copied: list[str] = []
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        for text, reply in (("one", "first reply"), ("two", "second reply")):
            await submit(pilot, text)
            await wait_for(pilot, lambda r=reply: r in screen_text(app) and not screen.busy, what=reply)
        await submit(pilot, "/copy")
        await submit(pilot, "/copy 2")
        await submit(pilot, "/copy code")
        assert copied[0] == "second reply, no code"
        assert copied[1].startswith("first reply")
        assert copied[2] == "print('one')"
        await submit(pilot, "/copy 9")
        assert "There are 2 replies" in "\n".join(_notices(app))

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_cost_opens_usage(hermes_home: Path, tmp_path: Path) -> None:
    """`/cost` (Claude Code's name) is `/usage`, never "Unknown command"."""
    from hermes_tui.screens.usage import UsageScreen

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/cost")
        await wait_for(pilot, lambda: isinstance(app.screen, UsageScreen), what="the usage screen")

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path)


async def test_init_has_the_model_write_agents_md(hermes_home: Path, tmp_path: Path) -> None:
    """`/init` is a turn: the model is asked to study the project and write AGENTS.md, and does."""
    calls = [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "AGENTS.md", "content": "# Agents\n"}}]},
        {"text": "Wrote AGENTS.md."},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/init")
        await wait_for(pilot, lambda: (tmp_path / "AGENTS.md").exists() and not chat(app).busy)
        asked = server.requests[0].body["messages"][-1]["content"]
        assert "AGENTS.md" in str(asked) and str(tmp_path) in str(asked)

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path, yolo=True)


async def test_init_asks_before_replacing_agents_md(hermes_home: Path, tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("ours\n")

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "/init")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        await pilot.press("n")
        await wait_for(pilot, lambda: any("/init cancelled" in n for n in _notices(app)))
        assert not server.requests and (tmp_path / "AGENTS.md").read_text() == "ours\n"
        await submit(pilot, "/init")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmModal), what="the question")
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(server.requests) and not chat(app).busy, what="the turn")
        asked = str(server.requests[0].body["messages"][-1]["content"])
        assert "already there: read it first" in asked

    await run_chat({"name": "t", "calls": [{"text": "Improved."}]}, body, home=hermes_home, cwd=tmp_path)

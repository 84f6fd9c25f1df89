"""`@` in the prompt: fuzzy completion over the working tree (.gitignore honoured), Enter or Tab takes a path,
the sent message carries the file, the transcript shows what was typed and a badge, and so does a resume."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot

from hermes_tui.app import HermesApp
from scripted import ScriptedServer
from tests.app.harness import chat, chat_settings, run_chat, screen_text, wait_for
from widgets.transcript.entries.notice import NoticeEntry
from widgets.transcript.entries.user_message import UserMessageEntry


def _tree(cwd: Path) -> None:
    (cwd / "src").mkdir()
    (cwd / "src" / "parser.py").write_text("def parse():\n    return 'quokka'\n")
    (cwd / "build").mkdir()
    (cwd / "build" / "parser_gen.py").write_text("generated\n")
    (cwd / ".gitignore").write_text("build/\n")


async def test_at_completes_a_path_and_the_file_goes_with_the_message(
    hermes_home: Path, tmp_path: Path
) -> None:
    _tree(tmp_path)

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        prompt = screen.prompt_input
        prompt.focus()
        await pilot.press(*"explain @pars")
        await wait_for(pilot, lambda: prompt.completion_kind == "file" and prompt.completions, what="paths")
        shown = [name for name, _ in prompt.completions]
        assert shown[0] == "src/parser.py" and not any(p.startswith("build") for p in shown)
        await pilot.press("enter")  # takes the path, does not send
        assert prompt.text == "explain @src/parser.py "
        assert not server.requests
        await pilot.press("enter")
        await wait_for(pilot, lambda: server.requests and not screen.busy, what="the turn")
        sent = [m for m in server.requests[0].body["messages"] if m["role"] == "user"][-1]["content"]
        assert sent.startswith("explain @src/parser.py") and "return 'quokka'" in sent
        users = [w.text.rstrip() for w in screen.transcript.entries_of(UserMessageEntry)]
        assert users == ["explain @src/parser.py"]
        assert any("📎 src/parser.py · 2 lines" in n.text for n in screen.transcript.entries_of(NoticeEntry))

    await run_chat(
        {"name": "t", "calls": [{"text": "It returns quokka."}]}, body, home=hermes_home, cwd=tmp_path
    )


async def test_a_resumed_message_shows_what_was_typed_and_its_badge(
    hermes_home: Path, tmp_path: Path
) -> None:
    _tree(tmp_path)
    from agent.session.session import Session
    from agent.store import SessionStore
    from agent.workspace.mentions import expand_mentions

    with ScriptedServer({"name": "t", "calls": [{"text": "done"}]}) as server:
        settings = chat_settings(server, hermes_home, tmp_path)
        store = SessionStore(settings.state_db)
        agent = Session(settings, store=store)
        agent.run_conversation(expand_mentions("look at @src/parser.py", tmp_path).text)
        session_id = agent.session_id
        store.close()
        app = HermesApp(settings, resume_id=session_id)
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(
                pilot, lambda: "look at @src/parser.py" in screen_text(app), what="the resumed message"
            )
            text = screen_text(app)
            assert "📎 src/parser.py · 2 lines" in text and "return 'quokka'" not in text


async def test_an_at_url_page_is_fetched_in_the_turns_worker_and_sent_with_the_message(
    hermes_home: Path, tmp_path: Path
) -> None:
    from tests.web_standins import WebStandIn

    with WebStandIn() as web:
        url = f"{web.url}/pages/notes.txt"

        async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
            screen = chat(app)
            screen.prompt_input.focus()
            screen.prompt_input.insert(f"read @url:{url} and @url:{web.url}/pages/gone")
            await pilot.press("enter")
            await wait_for(pilot, lambda: server.requests and not screen.busy, what="the turn")
            sent = [m for m in server.requests[0].body["messages"] if m["role"] == "user"][-1]["content"]
            assert sent.startswith(f"read @url:{url}") and "plain notes\nline two" in sent
            notices = [n.text for n in screen.transcript.entries_of(NoticeEntry)]
            assert any(f"📎 {url}" in n for n in notices)
            assert any(n.startswith(f"@url:{web.url}/pages/gone: HTTP 404") for n in notices)

        await run_chat(
            {"name": "t", "calls": [{"text": "Notes read."}]},
            body,
            home=hermes_home,
            cwd=tmp_path,
            web=web.settings(),
        )

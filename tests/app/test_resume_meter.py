"""A resumed session shows its context meter at once (it used to disappear until the next call)."""

from __future__ import annotations

from pathlib import Path

from agent.core.messages import Message
from agent.session.session import Session
from agent.store import SessionStore
from hermes_tui.app import HermesApp
from hermes_tui.chat.screen import ChatScreen
from scripted import ScriptedServer
from tests.app.harness import chat, chat_settings, wait_for


async def test_the_context_meter_is_there_after_a_resume(hermes_home: Path, tmp_path: Path) -> None:
    with ScriptedServer({"name": "t", "calls": [{"text": "first answer"}]}) as server:
        settings = chat_settings(server, hermes_home, tmp_path)
        store = SessionStore(settings.state_db)
        agent = Session(settings, store=store)
        agent.run_conversation("hello")
        store.append_message(agent.session_id, Message("user", "x" * 4000))
        session_id = agent.session_id
        store.close()

        app = HermesApp(settings, resume_id=session_id)
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(
                pilot, lambda: any(isinstance(s, ChatScreen) for s in app.screen_stack), what="chat"
            )
            screen = chat(app)
            bar = screen.status_bar
            await wait_for(pilot, lambda: bar.context_use.used is not None, what="the meter")
            assert (bar.context_use.used or 0) >= 1000  # the 4,000-character message counts
            assert bar.context_use.window == settings.effective_context_window

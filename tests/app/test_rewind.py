"""`/rewind`, Esc Esc and `/undo` in the real app on the scripted server (Pilot): the message list and the
choice card, what the transcript dims, the message back in the prompt, and the next request on the wire
holding only what came before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import OptionList

from agent.store import SessionStore
from hermes_tui.app import HermesApp
from hermes_tui.commands.rewind import NOTHING
from hermes_tui.screens.rewind import RewindChoiceScreen, RewindScreen
from scripted import ScriptedServer
from tests.app.harness import chat, chat_settings, run_chat, submit, wait_for
from widgets.transcript.entries.notice import NoticeEntry
from widgets.transcript.entries.user_message import UserMessageEntry


def _notices(app: HermesApp) -> list[str]:
    return [n.text for n in chat(app).transcript.entries_of(NoticeEntry)]


def _wire(body: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["role"], m.get("content") or "") for m in body["messages"] if m["role"] != "system"]


async def _two_turns(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
    screen = chat(app)
    for n, text in enumerate(("first", "second"), start=1):
        await submit(pilot, text)
        await wait_for(pilot, lambda n=n: len(server.requests) == n and not screen.busy, what=f"turn {n}")


def _options(app: HermesApp) -> list[str]:
    listing = app.screen.query_one(OptionList)
    return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]


async def test_rewind_to_the_first_message_with_the_conversation(hermes_home: Path, tmp_path: Path) -> None:
    calls = ["one", "two", "fresh"]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await _two_turns(pilot, app, server)
        await submit(pilot, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen), what="the message list")
        rows = _options(app)
        assert [row.split("  ")[-1].strip() for row in rows] == [
            "second",
            "first",
        ]  # newest first, time before
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindChoiceScreen), what="the choice card")
        card = app.screen
        assert isinstance(card, RewindChoiceScreen) and card.point.text == "first"
        listing = card.query_one(OptionList)
        # No file was changed: code and both are not offered.
        assert [listing.get_option_at_index(i).disabled for i in range(4)] == [False, True, True, False]
        await pilot.press("enter")  # Conversation
        await wait_for(pilot, lambda: screen.prompt_input.text == "first", what="the message back")
        assert app.screen is screen
        users = screen.transcript.entries_of(UserMessageEntry)
        assert [(u.text, u.rewound) for u in users] == [("first", True), ("second", True)]
        entries = list(screen.transcript.entries)
        start = entries.index(users[0])
        assert [e.rewound for e in entries] == [False] * start + [True] * (len(entries) - start - 1) + [False]
        assert len(entries) - start - 1 >= 4  # both messages and both replies; the last, the notice, is live
        assert _notices(app)[-1].startswith("Rewound the conversation: 4 messages")
        await pilot.press("end", *" again", "enter")
        await wait_for(pilot, lambda: len(server.requests) == 3 and not screen.busy, what="the next turn")
        assert _wire(server.requests[-1].body) == [("user", "first again")]

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_esc_esc_on_an_empty_prompt_opens_the_list_and_esc_closes_it(
    hermes_home: Path, tmp_path: Path
) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await _two_turns(pilot, app, server)
        screen.prompt_input.text = "typed"
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert app.screen is screen  # text in the prompt: Esc Esc is not a rewind
        screen.prompt_input.text = ""
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen), what="the message list")
        await pilot.press("enter")  # the newest
        await wait_for(pilot, lambda: isinstance(app.screen, RewindChoiceScreen), what="the choice card")
        await pilot.press("escape")  # the card closes: nothing rewound
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen), what="back to the list")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="the chat")
        assert not any(entry.rewound for entry in screen.transcript.entries)
        assert len(screen.session.agent.messages) == 4

    await run_chat({"name": "t", "calls": ["one", "two"]}, body, home=hermes_home, cwd=tmp_path)


async def test_a_single_esc_still_interrupts_a_running_turn(hermes_home: Path, tmp_path: Path) -> None:
    stall = {"text": "a long answer that never ends", "fault": {"kind": "stall", "after_chunks": 1}}

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "go")
        await wait_for(pilot, lambda: len(server.requests) == 1 and screen.busy, what="the turn")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.busy, what="the turn stopped")
        assert app.screen is screen

    await run_chat({"name": "t", "calls": [stall]}, body, home=hermes_home, cwd=tmp_path)


async def test_undo_after_a_turn_that_wrote_a_file(hermes_home: Path, tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    target.write_text("before\n")
    write = {"name": "write_file", "arguments": {"path": "notes.txt", "content": "after\n"}, "id": "w"}
    calls = ["hi", {"tool_calls": [write]}, "written", "other"]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: len(server.requests) == 1 and not screen.busy, what="turn 1")
        await submit(pilot, "write it")
        await wait_for(pilot, lambda: len(server.requests) == 3 and not screen.busy, what="turn 2")
        assert target.read_text() == "after\n"
        await submit(pilot, "/undo")
        await wait_for(pilot, lambda: screen.prompt_input.text == "write it", what="the message back")
        assert target.read_text() == "before\n"
        notice = _notices(app)[-1]
        assert notice.splitlines() == [
            "Rewound the conversation: 4 messages out of the model's context (kept in the session, dimmed, "
            "and found by search).",
            "Files: restored 1 file.",
        ]
        screen.prompt_input.text = "something else"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(server.requests) == 4 and not screen.busy, what="the next turn")
        assert _wire(server.requests[-1].body) == [
            ("user", "hello"),
            ("assistant", "hi"),
            ("user", "something else"),
        ]

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_nothing_to_rewind_is_one_line(hermes_home: Path, tmp_path: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        for command in ("/rewind", "/undo"):
            await submit(pilot, command)
            await wait_for(pilot, lambda: _notices(app)[-1] == NOTHING, what=command)
        assert app.screen is chat(app)

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path)


async def test_a_resumed_session_shows_its_rewound_turns_dimmed(hermes_home: Path, tmp_path: Path) -> None:
    from agent.session.session import Session
    from tests.recording_ui import RecordingUI

    with ScriptedServer({"name": "t", "calls": ["one", "two"]}) as server:
        store = SessionStore(hermes_home / "tui" / "state.db")
        agent = Session(chat_settings(server, hermes_home, tmp_path), ui=RecordingUI(), store=store)
        agent.run_conversation("kept")
        agent.run_conversation("taken back")
        agent.rewind(agent.rewind_points()[0])
        session_id = agent.session_id
        agent.close()
        store.close()
        app = HermesApp(chat_settings(server, hermes_home, tmp_path), resume_id=session_id)
        async with app.run_test(size=(100, 32)) as pilot:
            screen = await wait_for(pilot, lambda: chat(app) if chat(app).transcript.entries else None)
            users = screen.transcript.entries_of(UserMessageEntry)
            assert [(u.text, u.rewound) for u in users] == [("kept", False), ("taken back", True)]
            assert [m.content for m in screen.session.agent.messages] == ["kept", "one"]
            assert "2 rewound messages shown dimmed: the model does not see them." in _notices(app)[-1]


def _rewound_session(store: SessionStore) -> str:
    from agent.core.messages import Message

    session_id = store.create_session(model="m", provider="p", cwd="/w", system_prompt="s")
    for role, text in (("user", "kept"), ("assistant", "one"), ("user", "taken back"), ("assistant", "two")):
        store.append_message(session_id, Message(role=role, content=text))  # type: ignore[arg-type]
    second = store.load(session_id).messages[2]
    assert second.id is not None
    store.mark_rewound(session_id, second.id)
    return session_id


def test_the_export_preview_and_records_say_what_was_rewound(tmp_path: Path) -> None:
    from hermes_tui.export import REWOUND_NOTES, export_markdown
    from hermes_tui.history import records_from_messages
    from hermes_tui.screens.sessions.preview import build_preview, fetch_preview
    from hermes_tui.screens.sessions.rows import RowStyles, SessionRow

    store = SessionStore(tmp_path / "state.db")
    try:
        session_id = _rewound_session(store)
        document = export_markdown(store, session_id)
        assert document.index("kept") < document.index(REWOUND_NOTES[True]) < document.index("taken back")
        records = records_from_messages(store.load(session_id).messages)
        assert [(r.text, r.rewound) for r in records] == [
            ("kept", False),
            ("one", False),
            ("taken back", True),
            ("two", True),
        ]
        info = store.get_session(session_id)
        assert info is not None
        text, _ = build_preview(fetch_preview(store, SessionRow(info), None), RowStyles(), 0.0, None, None)
        lines = text.plain.splitlines()
        assert "You  rewound" in lines and "Assistant  rewound" in lines and "You" in lines
    finally:
        store.close()


async def test_a_shell_command_in_the_transcript_is_not_counted_as_a_message(
    hermes_home: Path, tmp_path: Path
) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "!echo shell-out")
        await wait_for(
            pilot,
            lambda: not screen.busy and len(screen.transcript.entries_of(UserMessageEntry)) == 1,
            what="the shell command",
        )
        await _two_turns(pilot, app, server)
        await submit(pilot, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen), what="the message list")
        await pilot.press("enter")  # the newest: "second"
        await wait_for(pilot, lambda: isinstance(app.screen, RewindChoiceScreen), what="the choice card")
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.prompt_input.text == "second", what="the message back")
        users = screen.transcript.entries_of(UserMessageEntry)
        assert [(u.text, u.shell, u.rewound) for u in users] == [
            ("!echo shell-out", True, False),
            ("first", False, False),
            ("second", False, True),
        ]

    await run_chat({"name": "t", "calls": ["one", "two"]}, body, home=hermes_home, cwd=tmp_path)


async def test_undo_while_a_turn_runs_stops_it_first(hermes_home: Path, tmp_path: Path) -> None:
    stall = {"text": "a long answer that never ends", "fault": {"kind": "stall", "after_chunks": 1}}

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "first")
        await wait_for(pilot, lambda: len(server.requests) == 1 and not screen.busy, what="turn 1")
        await submit(pilot, "the long one")
        await wait_for(pilot, lambda: len(server.requests) == 2 and screen.busy, what="turn 2 running")
        screen.run_command(screen.commands.find("undo"))  # as a key would: the prompt is free
        await wait_for(pilot, lambda: screen.prompt_input.text == "the long one", what="the message back")
        assert not screen.busy
        assert [m.content for m in screen.session.agent.messages] == ["first", "one"]
        users = screen.transcript.entries_of(UserMessageEntry)
        assert [(u.text, u.rewound) for u in users] == [("first", False), ("the long one", True)]
        assert "Rewound the conversation" in _notices(app)[-1]

    await run_chat({"name": "t", "calls": ["one", stall]}, body, home=hermes_home, cwd=tmp_path)

"""The chat screen driven by Pilot against the scripted server: what a user sees and does."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.pilot import Pilot
from textual.widgets import Input

from agent.approval import load_allowlist
from agent.core.ui import ApprovalDecision
from hermes_tui.app import HermesApp
from hermes_tui.screens.approval import ApprovalDialog
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, screen_text, shown, submit, wait_for
from widgets.clarify_prompt import ClarifyPrompt
from widgets.queued_messages import QueuedMessages
from widgets.transcript.entries.reply import ReplyEntry
from widgets.transcript.entries.tool_call import ToolCallEntry
from widgets.transcript.entries.user_message import UserMessageEntry


def _replies(app: HermesApp) -> list[ReplyEntry]:
    return list(chat(app).transcript.entries_of(ReplyEntry))


def _idle(app: HermesApp) -> bool:
    return not chat(app).busy


async def test_spinner_until_first_delta_then_markdown_equals_scenario(
    hermes_home: Path, tmp_path: Path
) -> None:
    text = "# Title\n\nSome **bold** text and a list:\n\n- one\n- two\n\n```python\nprint('hi')\n```\n"
    scenario = {"name": "t", "calls": [{"first_delay": 0.8, "text": text, "chunk_size": 3}]}

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: screen.transcript.spinner.display, what="spinner shown")
        assert not _replies(app), "no reply widget before the first delta"
        assert "esc to interrupt" in str(screen.transcript.spinner.render())
        await wait_for(pilot, lambda: _replies(app), what="first delta")
        assert not screen.transcript.spinner.display
        await wait_for(pilot, lambda: _idle(app), what="turn end")
        replies = _replies(app)
        assert len(replies) == 1
        await wait_for(pilot, lambda: replies[0].is_finished)
        assert replies[0].text == text
        assert [u.text for u in screen.transcript.entries_of(UserMessageEntry)] == ["hello"]

    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path)


async def test_tool_panels_in_call_order_with_durations(hermes_home: Path, tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.txt").write_text(f"{name}\n")
    calls = [
        {
            "tool_calls": [
                {"name": "read_file", "arguments": {"path": "a.txt"}, "id": "c1"},
                {"name": "terminal", "arguments": {"command": "sleep 0.3; echo slow"}, "id": "c2"},
                {"name": "read_file", "arguments": {"path": "c.txt"}, "id": "c3"},
            ]
        },
        {"text": "done"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "go")
        await wait_for(pilot, lambda: _idle(app), what="turn end")
        panels = list(chat(app).transcript.entries_of(ToolCallEntry))
        assert [p.call_id for p in panels] == ["c1", "c2", "c3"]
        assert [p.tool_name for p in panels] == ["read_file", "terminal", "read_file"]
        assert all(p.status == "ok" for p in panels)
        assert all(p.duration is not None for p in panels)
        assert panels[1].duration >= 0.3
        assert "slow" in panels[1].result

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_digit_key_answers_clarify(hermes_home: Path, tmp_path: Path) -> None:
    calls = [
        {
            "tool_calls": [
                {
                    "name": "clarify",
                    "arguments": {"question": "Which one?", "choices": ["red", "green", "blue"]},
                }
            ]
        },
        {"text": "ok"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "ask me")
        card = await wait_for(
            pilot, lambda: next(iter(chat(app).query(ClarifyPrompt)), None), what="clarify card"
        )
        await wait_for(pilot, lambda: card.is_armed, what="clarify armed")
        assert chat(app).transcript.is_mounted  # the transcript stays in place while it waits
        await pilot.press("2")
        await wait_for(pilot, lambda: _idle(app), what="turn end")
        assert card not in list(chat(app).query(ClarifyPrompt))
        tool = next(m for m in server.requests[1].body["messages"] if m["role"] == "tool")
        assert '"user_response": "green"' in tool["content"] or "green" in tool["content"]
        (panel,) = chat(app).transcript.entries_of(ToolCallEntry)  # the answer shows, not the question alone
        assert panel.expanded
        assert panel.rendered_text(90).splitlines()[-2:] == ["   │ Which one?", "   │ → green"]

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def _approval_run(hermes_home: Path, tmp_path: Path, keys: list[str], expect_exists: bool) -> None:
    target = tmp_path / "victim"
    target.mkdir()
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {target}"}}]},
        {"text": "finished"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "delete it")
        dialog = await wait_for(
            pilot, lambda: isinstance(app.screen, ApprovalDialog) and app.screen, what="dialog"
        )
        for key in keys:
            if key == "wait":
                await wait_for(pilot, lambda: dialog.is_armed, what="dialog armed")
            else:
                await pilot.press(key)
                await pilot.pause()
        await wait_for(pilot, lambda: _idle(app), what="turn end")
        assert not dialog.is_attached or app.screen is not dialog
        assert target.exists() is expect_exists

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_enter_on_a_fresh_approval_dialog_does_not_approve(hermes_home: Path, tmp_path: Path) -> None:
    # Enter at once is ignored (guard), the later Enter lands on Deny (focused first).
    await _approval_run(hermes_home, tmp_path, ["enter", "wait", "enter"], expect_exists=True)


async def test_arrows_to_allow_once_and_enter_approve(hermes_home: Path, tmp_path: Path) -> None:
    await _approval_run(hermes_home, tmp_path, ["wait", "left", "left", "left", "enter"], expect_exists=False)


async def test_letters_never_approve(hermes_home: Path, tmp_path: Path) -> None:
    # "o", "s" and "a" once meant once / session / always; typed into the dialog they are only typing now.
    await _approval_run(hermes_home, tmp_path, ["wait", *"osayesso", "escape"], expect_exists=True)


async def test_escape_denies(hermes_home: Path, tmp_path: Path) -> None:
    await _approval_run(hermes_home, tmp_path, ["wait", "escape"], expect_exists=True)


async def test_typing_and_pasting_into_the_approval_dialog_lands_in_the_prompt(
    hermes_home: Path, tmp_path: Path
) -> None:
    """The dialog took the keyboard mid-sentence: what the user goes on typing or pasting (digits that
    are not a choice and Backspace included) goes into their message, never into an answer."""
    target = tmp_path / "victim"
    target.mkdir()
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {target}"}}]},
        {"text": "finished"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        prompt = chat(app).prompt_input
        await submit(pilot, "delete it")
        dialog = await wait_for(
            pilot, lambda: isinstance(app.screen, ApprovalDialog) and app.screen, what="dialog"
        )
        await wait_for(pilot, lambda: dialog.is_armed, what="dialog armed")
        await pilot.press(*"then run 2 testz", "backspace", "s")
        app.screen.post_message(events.Paste(" and the linter"))
        await wait_for(pilot, lambda: prompt.text == "then run 2 tests and the linter", what="the typing")
        assert app.screen is dialog and not dialog.is_answered
        await pilot.press("escape")
        await wait_for(pilot, lambda: _idle(app), what="turn end")
        assert target.exists()
        assert prompt.text == "then run 2 tests and the linter"

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_s_approves_for_the_session(hermes_home: Path, tmp_path: Path) -> None:
    t1, t2 = tmp_path / "one", tmp_path / "two"
    t1.mkdir()
    t2.mkdir()
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {t1}"}}]},
        {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {t2}"}}]},
        {"text": "both gone"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "delete both")
        dialog = await wait_for(
            pilot, lambda: isinstance(app.screen, ApprovalDialog) and app.screen, what="dialog"
        )
        await wait_for(pilot, lambda: dialog.is_armed, what="dialog armed")
        await pilot.press("left", "left", "enter")  # from Deny: Always, Session; Enter presses it
        await wait_for(pilot, lambda: _idle(app), what="turn end")
        assert not t1.exists() and not t2.exists()  # the second was covered without a prompt

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_a_saves_the_always_rule_as_edited_and_it_covers_the_next_command(
    hermes_home: Path, tmp_path: Path
) -> None:
    target, other = tmp_path / "build", tmp_path / "other"
    target.mkdir()
    other.mkdir()
    calls = [
        {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {target}"}}]},
        {"text": "ok"},
        {"tool_calls": [{"name": "terminal", "arguments": {"command": f"rm -rf {other}"}}]},
        {"text": "ok again"},
    ]
    edited = f"rm -rf {tmp_path}/*"

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "clean")
        dialog = await wait_for(
            pilot, lambda: isinstance(app.screen, ApprovalDialog) and app.screen, what="dialog"
        )
        await wait_for(pilot, lambda: dialog.is_armed, what="dialog armed")
        await pilot.press("left", "enter")  # from Deny to "Always allow…"
        await pilot.pause()
        assert dialog.is_confirming and dialog.saved_rule == f"rm -rf {target}"  # a delete is never widened
        await pilot.press("home", "ctrl+k")  # the user narrows it to this folder
        dialog.query_one("#approval-rule", Input).insert_text_at_cursor(edited)
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: _idle(app), what="turn end")
        assert not target.exists()
        assert load_allowlist(hermes_home / "tui" / "config.yaml") == [edited]
        await submit(pilot, "clean the other one")  # "always" also allowed it for the session: no dialog
        await wait_for(pilot, lambda: _idle(app) and not other.exists(), what="second turn")
        assert not any(isinstance(screen, ApprovalDialog) for screen in app.screen_stack)

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_escape_interrupts_a_slow_stream_and_next_message_works(
    hermes_home: Path, tmp_path: Path
) -> None:
    calls = [{"text": "slow " * 500, "chunk_size": 5, "delay": 0.05}]
    scenario = {"name": "t", "calls": calls, "fallback": {"text": "second answer"}}

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "go slow")
        await wait_for(pilot, lambda: _replies(app) and len(_replies(app)[0].text) > 20, what="streaming")
        await pilot.press("escape")
        # The reply would take 25 s to stream in full: ending at all, with part of it, is the interrupt. How
        # fast is the benchmark's business (benchmarks/terminal_stream.py), never a timed test's.
        await wait_for(pilot, lambda: _idle(app), timeout=10, what="turn end after escape")
        partial = _replies(app)[0].text
        assert 0 < len(partial) < len("slow " * 500)
        await shown(pilot, "Interrupted")  # never presented as a complete reply
        assert app.focused is screen.prompt_input
        await submit(pilot, "again")
        await wait_for(pilot, lambda: _idle(app) and len(_replies(app)) == 2, what="second turn")
        await wait_for(pilot, lambda: _replies(app)[1].is_finished)
        assert _replies(app)[1].text == "second answer"
        *_, kept, asked = server.requests[1].body["messages"]  # the model is told it was cut off
        assert kept == {"role": "assistant", "content": partial}
        assert asked == {"role": "user", "content": "[Request interrupted by user]\n\nagain"}
        assert "Request interrupted" not in screen_text(app)  # the transcript shows what was typed

    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path)


async def test_message_queued_while_busy_is_sent_after_the_turn(hermes_home: Path, tmp_path: Path) -> None:
    calls = [{"text": "first " * 100, "chunk_size": 6, "delay": 0.05}, {"text": "reply to the queued one"}]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "first")
        await wait_for(pilot, lambda: screen.busy)
        await submit(pilot, "queued question")
        assert screen.query_one(QueuedMessages).items == ("queued question",)
        assert len(server.requests) == 1
        await wait_for(pilot, lambda: len(server.requests) == 2, what="queued sent")
        assert server.requests[1].body["messages"][-1] == {"role": "user", "content": "queued question"}
        await wait_for(pilot, lambda: _idle(app) and not screen.query_one(QueuedMessages).items)

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path)


async def test_markup_and_escapes_in_model_text_are_literal(hermes_home: Path, tmp_path: Path) -> None:
    text = "Look: [bold red]not bold[/] and \x1b[31mred\x1b[0m and [link=http://x]y[/link]"
    calls = [
        {
            "text": text,
            "tool_calls": [
                {"name": "terminal", "arguments": {"command": "printf '[b]x[/b] \\033[32mgreen\\033[0m'"}}
            ],
        },
        {"text": "end"},
    ]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "markup")
        await wait_for(pilot, lambda: _idle(app), what="turn end")
        shown = screen_text(app)
        assert "[bold red]not bold[/]" in shown
        assert "[link=http://x]y[/link]" in shown
        assert "and red and" in shown  # the escape sequences are stripped, their text kept
        panel = chat(app).transcript.entries_of(ToolCallEntry)[0]
        assert "[b]x[/b]" in panel.result and "\x1b" not in panel.result

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path, size=(140, 40))


async def test_provider_error_is_one_line_not_a_traceback(hermes_home: Path, tmp_path: Path) -> None:
    calls = [{"fault": {"status": 401, "message": "Incorrect API key provided: sk-te****"}}]

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        await submit(pilot, "hi")
        await wait_for(pilot, lambda: _idle(app), what="turn end")
        text = screen_text(app)
        assert "API key was rejected" in text
        assert "Traceback" not in text

    await run_chat({"name": "t", "calls": calls}, body, home=hermes_home, cwd=tmp_path, size=(140, 40))


def test_approval_decision_values_match_the_gate() -> None:
    assert {d.value for d in ApprovalDecision} >= {"once", "session", "always", "deny"}


async def test_setup_screen_starts_the_demo(hermes_home: Path, tmp_path: Path) -> None:
    from agent.config.settings import Settings
    from hermes_tui.chat.screen import ChatScreen
    from hermes_tui.screens.setup import SetupScreen
    from scripted import demo_scenario_path, scripted_settings

    with ScriptedServer(demo_scenario_path()) as server:
        bare = Settings(hermes_home=hermes_home, cwd=tmp_path)
        app = HermesApp(bare, demo_factory=lambda: scripted_settings(server, bare))
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen), what="setup screen")
            assert str(hermes_home) in screen_text(app) or "HERMES_HOME" in screen_text(app)
            await pilot.press("d")
            screen = await wait_for(
                pilot, lambda: isinstance(app.screen, ChatScreen) and app.screen, what="chat"
            )
            assert screen.settings.model == "hermes-demo"
            await wait_for(pilot, lambda: "say hi, and press Enter" in screen_text(app), what="the cue")


async def test_huge_paste_is_one_message_shown_collapsed(hermes_home: Path, tmp_path: Path) -> None:
    from textual import events

    paste = "\n".join(f"line {i}" for i in range(10_000))

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        screen.prompt_input.focus()
        screen.prompt_input.post_message(events.Paste(paste))
        await wait_for(pilot, lambda: screen.prompt_input.text == "[Pasted #1: 10,000 lines]", what="paste")
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(server.requests) == 1 and not screen.busy, what="sent")
        assert server.requests[0].body["messages"][-1]["content"] == paste
        user = screen.transcript.entries_of(UserMessageEntry)[0]
        assert user.text == paste and user.is_collapsible and not user.expanded
        await shown(pilot, "more lines")

    await run_chat({"name": "t", "calls": [{"text": "got it"}]}, body, home=hermes_home, cwd=tmp_path)


async def test_ctrl_c_clears_then_quits(hermes_home: Path, tmp_path: Path) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        screen.prompt_input.text = "draft"
        await pilot.press("ctrl+c")
        assert screen.prompt_input.text == ""
        assert app.return_code is None
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app.return_code == 0, what="exit")

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path)


def test_every_command_is_an_object_of_the_commands_package_and_its_key_is_bound() -> None:
    from textual.binding import Binding

    from hermes_tui.chat.screen import APP_KEYS, ChatScreen
    from hermes_tui.commands import BUILTIN_COMMANDS, Command, new_registry

    registry = new_registry()  # refuses two commands of one name or alias
    for command in BUILTIN_COMMANDS:
        assert isinstance(command, Command), command
        assert type(command).__module__.startswith("hermes_tui.commands"), command.name
        handler = getattr(command, "handler", None)
        assert handler is None or handler.__module__.startswith("hermes_tui.commands."), command.name
        assert registry.find(command.name) is command
        assert all(registry.find(alias) is command for alias in command.aliases)
    bound = {b.key: b.action for b in ChatScreen.BINDINGS if isinstance(b, Binding)}
    for command in BUILTIN_COMMANDS:
        if command.key and command.key not in APP_KEYS:
            # A key runs the same object as its `/name` (`ChatScreen.action_command`).
            assert bound.get(command.key) == f"command({command.name!r})", command.name
    for key, action in bound.items():
        if action.startswith("command("):
            name = action.removeprefix("command(").strip("')")
            found = registry.find(name)
            assert found is not None and found.key == key, f"{key} runs /{name}, whose key is not {key}"
    app_keys = {b.key: b.action for b in HermesApp.BINDINGS if isinstance(b, Binding)}
    assert all(app_keys.get(key) == "quit" for key in APP_KEYS)
    keys = [c.key for c in BUILTIN_COMMANDS if c.key]
    assert len(keys) == len(set(keys)), "one key, one command"


async def test_typing_and_resizing_stay_responsive_during_a_fast_stream(
    hermes_home: Path, tmp_path: Path
) -> None:
    text = ("A line of **markdown** with `code` and words. " * 8 + "\n\n") * 120  # ~46 KB, ~11,500 chunks
    scenario = {"name": "t", "calls": [{"text": text, "chunk_size": 4, "delay": 0.0005}]}  # ~2,000 chunks/s

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        await submit(pilot, "stream fast")
        await wait_for(pilot, lambda: _replies(app), what="stream started")
        from textual import events

        # Keys go in as a terminal would send them (Pilot's press() waits for an idle app, which a busy
        # stream never is); then a resize.
        for ch in "next question":
            app.post_message(events.Key(ch if ch != " " else "space", ch))
        await wait_for(
            pilot, lambda: screen.prompt_input.text == "next question", timeout=30, what="typed text"
        )
        typed_while_streaming = screen.busy
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: app.size == (80, 24), what="resize")
        # Behaviour, not timing: the keys were handled while the reply was still streaming.
        assert typed_while_streaming
        await wait_for(pilot, lambda: _idle(app), timeout=60, what="turn end")
        reply = _replies(app)[0]
        await wait_for(pilot, lambda: reply.is_finished and reply.is_drained, timeout=30)
        assert reply.text == text
        assert screen.prompt_input.text == "next question"

    await run_chat(scenario, body, home=hermes_home, cwd=tmp_path)


async def test_text_and_enter_arriving_in_one_burst_are_sent(hermes_home: Path, tmp_path: Path) -> None:
    """A fast typist, dictation or `tmux send-keys "hello" Enter` deliver the keys in one read."""
    from textual import events

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        screen.prompt_input.focus()
        await pilot.pause()
        for ch in "hello":
            app.post_message(events.Key(ch, ch))
        app.post_message(events.Key("enter", "\r"))
        await wait_for(pilot, lambda: len(server.requests) == 1, what="sent")
        assert server.requests[0].body["messages"][-1] == {"role": "user", "content": "hello"}
        assert screen.prompt_input.text == ""

    await run_chat({"name": "t", "calls": [{"text": "hi"}]}, body, home=hermes_home, cwd=tmp_path)


async def test_sessions_without_a_provider_browse_first(hermes_home: Path, tmp_path: Path) -> None:
    """`hermes-tui sessions` with no provider opens the browser (no provider needed to read); resuming
    from it asks for a provider, then resumes."""
    from agent.config.settings import Settings
    from agent.core.messages import Message
    from agent.store import SessionStore
    from hermes_tui.chat.screen import ChatScreen
    from hermes_tui.screens.sessions import SessionsScreen
    from hermes_tui.screens.setup import SetupScreen
    from scripted import demo_scenario_path, scripted_settings

    bare = Settings(hermes_home=hermes_home, cwd=tmp_path)
    store = SessionStore(bare.state_db)
    session_id = store.create_session(model="m", provider="custom", cwd=str(tmp_path), system_prompt="s")
    store.append_message(session_id, Message("user", "the quokka question"))
    store.close()
    with ScriptedServer(demo_scenario_path()) as server:
        app = HermesApp(bare, open_sessions=True, demo_factory=lambda: scripted_settings(server, bare))
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen), what="the browser")
            await wait_for(pilot, lambda: "quokka" in screen_text(app), what="the session listed")
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen), what="setup screen")
            await pilot.press("d")
            screen = await wait_for(
                pilot, lambda: isinstance(app.screen, ChatScreen) and app.screen, what="chat"
            )
            assert screen.agent.session_id == session_id


async def test_setup_screen_takes_a_key_and_starts_without_a_restart(
    hermes_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key goes to $HERMES_HOME/.env (0600, never on screen), the model to tui/config.yaml, and the chat
    starts against the provider at once."""
    from agent.config.settings import Settings
    from hermes_tui.chat.screen import ChatScreen
    from hermes_tui.screens.setup import SetupScreen

    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    secret = "sk-or-test-0123456789abcdef"
    with ScriptedServer({"name": "t", "calls": [{"text": "hello from the provider"}]}) as server:
        # The provider's URL is the one thing a real user would not type: point OpenRouter at loopback.
        (hermes_home / "config.yaml").write_text(f"model:\n  base_url: {server.openai_base_url}\n")
        bare = Settings(hermes_home=hermes_home, cwd=tmp_path)
        app = HermesApp(bare)
        async with app.run_test(size=(100, 40)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, SetupScreen), what="setup screen")
            app.screen.query_one("#setup-key").focus()
            await pilot.press(*secret)
            assert secret not in screen_text(app)
            await pilot.press("enter")
            screen = await wait_for(
                pilot, lambda: isinstance(app.screen, ChatScreen) and app.screen, what="chat"
            )
            assert screen.settings.model == "anthropic/claude-sonnet-4.6"
            await submit(pilot, "hi")
            await wait_for(pilot, lambda: server.requests and not screen.busy, what="the turn")
            assert server.requests[0].headers.get("authorization") == f"Bearer {secret}"
    env = hermes_home / ".env"
    assert f"OPENROUTER_API_KEY={secret}" in env.read_text() and (env.stat().st_mode & 0o777) == 0o600
    assert "claude-sonnet-4.6" in (hermes_home / "tui" / "config.yaml").read_text()

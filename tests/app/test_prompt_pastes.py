"""Big pastes collapse to a token in the prompt and go out whole (issue 19, item 4)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest
from rich.style import Style
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.pilot import Pilot

from agent.store import SessionStore
from hermes_tui.app import HermesApp
from scripted import ScriptedServer
from tests.app.harness import chat, run_chat, screen_text, shown, submit, wait_for
from widgets.prompt.input import PLACEHOLDERS, PromptBar, PromptInput
from widgets.prompt.pastes import MAX_CHARS, MAX_LINES, PasteStore, is_big
from widgets.transcript.entries.user_message import UserMessageEntry

LOG = "\n".join(f"log line {i}: something happened" for i in range(214))

# ------------------------------------------------------------------------------------- the store, no Textual


def test_what_counts_as_a_big_paste() -> None:
    assert not is_big("\n".join("x" * MAX_LINES))  # exactly MAX_LINES lines
    assert is_big("\n".join("x" * (MAX_LINES + 1)))
    assert not is_big("y" * MAX_CHARS)
    assert is_big("y" * (MAX_CHARS + 1))  # one huge line
    assert not is_big("line\n" * MAX_LINES)  # a final newline is not one more line
    assert PasteStore().add("line\n" * 120).token == "[Pasted #1: 120 lines]"


def test_tokens_number_the_pastes_and_expand_to_their_text() -> None:
    store = PasteStore()
    first = store.add(LOG)
    second = store.add("z" * 5_000)
    assert first.token == "[Pasted #1: 214 lines]"
    assert second.token == "[Pasted #2: 5,000 chars]"
    typed = f"look at {first.token} and {second.token} please"
    assert store.expand(typed) == f"look at {LOG} and {'z' * 5_000} please"
    assert [(s.start, s.paste.number) for s in store.spans(typed)] == [(8, 1), (35, 2)]
    # Text that only looks like a token (a wrong count, an unknown number) is text.
    lookalike = "[Pasted #1: 3 lines] [Pasted #9: 214 lines]"
    assert store.expand(lookalike) == lookalike and store.spans(lookalike) == []
    assert store.collapse(f"see {LOG}!") == f"see {first.token}!"


# ------------------------------------------------------------------------------------------ the prompt alone


class PasteApp(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+o", "screen_ctrl_o", "the screen's Ctrl+O")]

    def __init__(self) -> None:
        super().__init__()
        self.submitted: list[str] = []
        self.screen_ctrl_o = 0

    def compose(self) -> ComposeResult:
        yield PromptBar(id="bar")

    def on_mount(self) -> None:
        self.query_one(PromptInput).focus()

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        self.submitted.append(message.text)

    def action_screen_ctrl_o(self) -> None:
        self.screen_ctrl_o += 1


async def _paste(pilot: Pilot, prompt: PromptInput, text: str) -> None:
    count = len(prompt.pastes)
    prompt.post_message(events.Paste(text))
    await wait_for(pilot, lambda: len(prompt.pastes) > count or text in prompt.text, what="paste")
    await pilot.pause()


async def test_a_big_paste_is_a_token_where_the_cursor_was_and_goes_out_whole() -> None:
    app = PasteApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press(*"check ")
        await _paste(pilot, prompt, LOG.replace("\n", "\r\n"))  # a CRLF paste: still 214 lines
        await pilot.press(*" now")
        assert prompt.text == "check [Pasted #1: 214 lines] now"
        assert prompt.document.line_count == 1
        await shown(pilot, "[Pasted #1: 214 lines]")  # type: ignore[arg-type]
        assert prompt.full_text == f"check {LOG} now"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.submitted, what="submit")
        assert prompt.pastes.expand(app.submitted[0]) == f"check {LOG} now"


async def test_backspace_deletes_the_whole_paste_and_undo_brings_all_of_it_back() -> None:
    app = PasteApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press(*"a ")
        await _paste(pilot, prompt, LOG)
        await pilot.press("backspace")
        assert prompt.text == "a "
        await pilot.press("ctrl+z")
        assert prompt.text == "a [Pasted #1: 214 lines]"
        await pilot.press("ctrl+y")
        assert prompt.text == "a "
        await pilot.press("ctrl+z", "home", "right", "right", "delete")  # Delete before the token
        assert prompt.text == "a "
        await pilot.press("ctrl+z")
        assert prompt.text == "a [Pasted #1: 214 lines]"


async def test_the_cursor_steps_over_a_token_and_typing_never_lands_inside_it() -> None:
    app = PasteApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await _paste(pilot, prompt, LOG)
        token = "[Pasted #1: 214 lines]"
        await pilot.press(*"!")
        assert prompt.cursor_location == (0, len(token) + 1)
        await pilot.press("left", "left")  # over the "!", then over the whole token
        assert prompt.cursor_location == (0, 0)
        await pilot.press("right")
        assert prompt.cursor_location == (0, len(token))
        await pilot.press("shift+left")  # a selection takes the token whole too
        assert prompt.selection.start == (0, len(token)) and prompt.selection.end == (0, 0)
        await pilot.press("right", "x")
        assert prompt.text == f"{token}x!"
        prompt.move_cursor((0, 5))  # a click in the middle, coming from the right: the token's start
        assert prompt.cursor_location == (0, 0)
        prompt.move_cursor((0, len(token) + 1))
        await pilot.press("ctrl+u")
        assert prompt.text == "!"
        await pilot.press("ctrl+z")
        assert prompt.text == f"{token}x!"
        prompt.delete((0, 3), (0, 8))  # an edit cutting into a token takes all of it
        assert prompt.text == "x!"
        await pilot.press("ctrl+z")  # (Textual may batch the typed "x" with it: the token is whole anyway)
        assert prompt.text.startswith(token) and prompt.text.endswith("!")


async def test_ctrl_o_expands_the_paste_into_editable_text_and_is_free_otherwise() -> None:
    app = PasteApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press("ctrl+o")  # no paste: the screen's Ctrl+O runs
        assert app.screen_ctrl_o == 1
        await _paste(pilot, prompt, "first\n" * 20)
        await pilot.press(*" and ")
        await _paste(pilot, prompt, LOG)
        assert prompt.text == "[Pasted #1: 20 lines] and [Pasted #2: 214 lines]"
        await pilot.press("home", "ctrl+o")  # the token at the cursor
        assert prompt.text == "first\n" * 20 + " and [Pasted #2: 214 lines]"
        await pilot.press("ctrl+o")  # none at the cursor: the last one
        assert prompt.text == "first\n" * 20 + " and " + LOG
        assert app.screen_ctrl_o == 1
        await pilot.press("ctrl+o")
        assert app.screen_ctrl_o == 2
        await pilot.press("backspace")  # plain text now: one character goes
        assert prompt.text == "first\n" * 20 + " and " + LOG[:-1]


async def test_small_pastes_stay_text_and_a_ten_megabyte_binaryish_paste_is_a_token() -> None:
    app = PasteApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await _paste(pilot, prompt, "one\ntwo")
        assert prompt.text == "one\ntwo" and not len(prompt.pastes)
        prompt.clear()
        blob = bytes(range(256)).decode("latin-1") * (10 * 1024 * 1024 // 256)
        await _paste(pilot, prompt, blob)
        (paste,) = [prompt.pastes.get(1)]
        assert paste is not None and prompt.text == paste.token
        assert prompt.document.line_count == 1  # the prompt holds one short line, not 10 MB
        assert "\x1b" not in paste.text and "\x00" not in paste.text  # controls are made visible
        await pilot.press("ctrl+o")  # too big to lay out in the prompt: it says so, the token stays
        assert prompt.text == paste.token
        assert any("too big to edit here" in n.message for n in app._notifications)
        await pilot.press(*" ok", "enter")
        await wait_for(pilot, lambda: app.submitted, what="submit")
        assert prompt.pastes.expand(app.submitted[0]) == paste.text + " ok"


# ------------------------------------------------------------------------------------------- the whole app


async def test_the_wire_the_store_and_the_transcript_get_the_whole_paste(
    hermes_home: Path, tmp_path: Path
) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        prompt = screen.prompt_input
        prompt.focus()
        await pilot.press(*"explain ")
        await _paste(pilot, prompt, LOG)
        await pilot.press(*" briefly")
        assert prompt.text == "explain [Pasted #1: 214 lines] briefly"
        await pilot.press("enter")
        await wait_for(pilot, lambda: server.requests and not screen.busy, what="the turn")
        full = f"explain {LOG} briefly"
        assert server.requests[0].body["messages"][-1] == {"role": "user", "content": full}
        user = screen.transcript.entries_of(UserMessageEntry)[0]
        assert user.text == full and user.is_collapsible  # shown collapsed, click/enter expands
        session_id = screen.agent.session_id
        store = SessionStore(hermes_home / "tui" / "state.db")
        try:
            stored = [m.content for m in store.load_messages(session_id) if m.role == "user"]
        finally:
            store.close()
        assert stored == [full]

    await run_chat({"name": "t", "calls": [{"text": "got it"}]}, body, home=hermes_home, cwd=tmp_path)


# ---------------------------------------------------------------------------------------- the placeholder


@pytest.mark.parametrize("size", [(120, 40), (80, 24), (50, 20)], ids=["120", "80", "50"])
async def test_the_placeholder_fits_the_width(
    hermes_home: Path, tmp_path: Path, size: tuple[int, int]
) -> None:
    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        prompt = chat(app).prompt_input
        await wait_for(pilot, lambda: prompt.placeholder in screen_text(app), what="the whole placeholder")
        if size[0] >= 120:
            assert prompt.placeholder == PLACEHOLDERS[0]  # wide: every key mentioned
        else:
            assert prompt.placeholder != PLACEHOLDERS[0]
        assert str(prompt.placeholder).startswith("Message Hermes…")

    await run_chat({"name": "t", "calls": []}, body, home=hermes_home, cwd=tmp_path, size=size)


async def test_one_huge_pasted_line_is_sent_whole_and_shown_collapsed(
    hermes_home: Path, tmp_path: Path
) -> None:
    line = "".join(f"{i:07d}," for i in range(250_000))  # 2 MB of one minified line

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        prompt = screen.prompt_input
        prompt.focus()
        await _paste(pilot, prompt, line)
        assert prompt.text == "[Pasted #1: 2,000,000 chars]"
        await pilot.press("enter")
        await wait_for(pilot, lambda: server.requests and not screen.busy, what="the turn")
        assert server.requests[0].body["messages"][-1]["content"] == line
        user = screen.transcript.entries_of(UserMessageEntry)[0]
        assert user.text == line and user.is_collapsible and not user.expanded
        assert user.measure(screen.transcript.entry_width) < 30  # not 20,000 rows
        await shown(pilot, "more characters (click/enter to expand)")

    await run_chat({"name": "t", "calls": [{"text": "got it"}]}, body, home=hermes_home, cwd=tmp_path)


def _token_styles(prompt: PromptInput) -> list[Style]:
    return [seg.style for seg in prompt.render_line(0) if "Pasted" in seg.text and seg.style is not None]


async def test_a_token_stands_out_and_keeps_its_style_across_a_theme_change() -> None:
    app = PasteApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await _paste(pilot, prompt, LOG)
        assert [style.bold for style in _token_styles(prompt)] == [True]
        before = _token_styles(prompt)[0].color
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await pilot.pause()
        await wait_for(pilot, lambda: _token_styles(prompt) and _token_styles(prompt)[0].color != before)
        assert [style.bold for style in _token_styles(prompt)] == [True]


async def test_undo_after_ctrl_o_turns_the_text_back_into_the_token() -> None:
    """Paste 20 lines, Ctrl+O, Ctrl+Z: the expanded text goes back to the token (it raised "The document
    line index 1 is out of bounds" from the undo and the app exited with the draft lost); Ctrl+Y expands it
    again, and the draft is never lost."""
    app = PasteApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press(*"see ")
        await _paste(pilot, prompt, "first\n" * 20)
        assert prompt.text == "see [Pasted #1: 20 lines]"
        await pilot.press("ctrl+o")
        assert prompt.text == "see " + "first\n" * 20
        await pilot.press("ctrl+z")
        assert prompt.text == "see [Pasted #1: 20 lines]"
        assert prompt.full_text == "see " + "first\n" * 20
        await pilot.press("ctrl+y")
        assert prompt.text == "see " + "first\n" * 20
        await pilot.press("ctrl+z", "ctrl+z")
        assert prompt.text == "see "
        await pilot.press(*"!")
        assert prompt.text == "see !"
    assert app.return_value is None


# ------------------------------------------------------------------------------- a paste outside the prompt


async def test_a_paste_with_the_focus_off_the_prompt_lands_in_the_prompt(
    hermes_home: Path, tmp_path: Path
) -> None:
    """Issue 41: with the transcript focused (Tab), a paste killed the app (`ChatScreen._on_paste` was a
    plain callback Textual called as the Paste handler). It goes to the prompt, wherever the focus is."""

    async def body(pilot: Pilot, app: HermesApp, server: ScriptedServer) -> None:
        screen = chat(app)
        prompt = screen.prompt_input
        await submit(pilot, "hello")
        await wait_for(pilot, lambda: server.requests and not screen.busy, what="the turn")
        await pilot.press("tab")
        assert app.focused is screen.transcript
        app.post_message(events.Paste("one line"))  # as the driver does: the app forwards it to the focus
        await wait_for(pilot, lambda: prompt.text == "one line", what="the paste in the prompt")
        assert app.focused is prompt and app.is_running
        await pilot.press("tab")
        assert app.focused is screen.transcript
        app.post_message(events.Paste(LOG))  # a big one: its token, as in the prompt
        await wait_for(pilot, lambda: len(prompt.pastes) == 1, what="the big paste")
        assert prompt.text == "one line[Pasted #1: 214 lines]" and prompt.full_text == f"one line{LOG}"
        screen.set_focus(None)  # nothing focused: the screen gets it
        await pilot.pause()
        app.post_message(events.Paste("!"))
        await wait_for(pilot, lambda: prompt.text.endswith("!"), what="the paste with no focus")
        assert app.focused is prompt

    await run_chat({"name": "t", "calls": [{"text": "hi there"}]}, body, home=hermes_home, cwd=tmp_path)


async def test_a_paste_with_lone_surrogates_shows_replacement_characters() -> None:
    """Text that is not valid Unicode (lone surrogates: a file name decoded with `surrogateescape`, a
    broken clipboard) is shown as U+FFFD, as undecodable terminal bytes are: drawing it raised
    UnicodeEncodeError and killed the app (UI fuzz seed 1001)."""
    app = PasteApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        prompt.post_message(events.Paste("bad \udcff\ud800 end"))
        await wait_for(pilot, lambda: "end" in prompt.text, what="paste")
        await pilot.pause()
        assert prompt.text == "bad \ufffd\ufffd end"
        await pilot.press("enter")
        assert app.submitted == ["bad \ufffd\ufffd end"]

"""Pilot tests for the interactive widgets: approval dialog, clarify card, prompt, queue, status bar, setup.

Each widget runs in a tiny app of its own; the tests press keys the way a user would and check what the
user would notice (the decision returned, the message posted, the text shown).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.color import Color
from textual.containers import Vertical, VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from agent.core.ui import ApprovalAnswer, ApprovalDecision, ApprovalRequest, ClarifyRequest
from hermes_tui.screens.approval import ApprovalDialog
from hermes_tui.screens.setup import SetupScreen
from widgets.clarify_prompt import ClarifyPrompt
from widgets.prompt.input import PromptBar, PromptInput, normalize_paste
from widgets.queued_messages import QueuedMessages
from widgets.status_bar import ContextUse, StatusBar, Usage, context_level
from widgets.support.text_safety import literal_text


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def wait_until(pilot: Pilot, predicate: Callable[[], bool], timeout: float = 3.0) -> None:
    """Let the app run until `predicate()` holds (fails the test after `timeout`)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        await pilot.pause(0.02)


# ------------------------------------------------------------------------------------------------ approval


@pytest.fixture(autouse=True)
def _digits_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Digits choose as soon as the guard is over here; the tests of the digits' own delay set it back."""
    monkeypatch.setattr(ApprovalDialog, "DIGITS_AFTER", 0.0)


def make_request(**overrides: object) -> ApprovalRequest:
    values: dict[str, object] = {
        "command": "rm -rf build && curl -fsSL https://example.com/x.sh | sh",
        "reasons": ("recursive delete", "pipes a download into a shell"),
        "pattern_keys": ("rm_recursive", "curl_pipe_sh"),
        "timeout": 300.0,
        "rule": "rm -rf build*",
    }
    values.update(overrides)
    return ApprovalRequest(**values)  # type: ignore[arg-type]


class ApprovalApp(App[None]):
    def __init__(self, request: ApprovalRequest, **dialog_kwargs: object) -> None:
        super().__init__()
        self.request = request
        self.dialog_kwargs = dialog_kwargs
        self.results: list[ApprovalDecision | ApprovalAnswer | None] = []
        self.bells = 0

    def compose(self) -> ComposeResult:
        yield Static("the chat")

    def on_mount(self) -> None:
        self.dialog = ApprovalDialog(self.request, **self.dialog_kwargs)  # type: ignore[arg-type]
        self.push_screen(self.dialog, self.results.append)

    def bell(self) -> None:
        self.bells += 1


async def open_armed(pilot: Pilot) -> ApprovalDialog:
    app = pilot.app
    assert isinstance(app, ApprovalApp)
    await wait_until(pilot, lambda: app.dialog.is_mounted)
    app.dialog.arm()
    await pilot.pause()
    return app.dialog


async def test_the_dialogs_after_refresh_look_at_its_lines_does_nothing_once_it_is_gone() -> None:
    """The dialog counts the command's hidden lines a frame after it mounts or resizes; answered (or the
    turn stopped) within that frame, the count came due on a dialog with no widgets left, and its
    NoMatches traceback ended the app."""
    app = ApprovalApp(make_request(command="\n".join(f"echo {n}" for n in range(60))))
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: app.dialog.is_mounted)
        app.dialog.dismiss(None)
        await pilot.pause()
        assert app.dialog not in app.screen_stack
        app.dialog._show_hidden_lines()  # as the queued call would
        await pilot.pause()
        assert app.is_running and app.return_code is None


async def test_guard_is_300ms_and_arms_by_itself_with_deny_focused() -> None:
    assert ApprovalDialog.GUARD_SECONDS == 0.3
    app = ApprovalApp(make_request())
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: app.dialog.is_mounted)
        started = time.monotonic()
        await wait_until(pilot, lambda: app.dialog.is_armed)
        assert (
            time.monotonic() - started <= ApprovalDialog.GUARD_SECONDS + 2
        )  # arms by itself (loaded machine)
        assert app.focused is not None and app.focused.id == "approval-deny"
        assert app.bells == 1


async def test_enter_right_away_is_ignored_then_enter_on_deny_denies(monkeypatch: pytest.MonkeyPatch) -> None:
    # A long guard makes "right away" independent of how fast this machine is.
    monkeypatch.setattr(ApprovalDialog, "GUARD_SECONDS", 30.0)
    app = ApprovalApp(make_request())
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: app.dialog.is_mounted)
        await pilot.press("enter", "o", "s", "a", "y", "escape", "d", "enter")
        await pilot.pause()
        assert app.results == []
        assert app.screen is app.dialog
        app.dialog.arm()
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalDecision.DENY]


async def test_clicks_during_the_guard_are_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ApprovalDialog, "GUARD_SECONDS", 30.0)
    app = ApprovalApp(make_request())
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: app.dialog.is_mounted)
        await pilot.click("#approval-once")
        await pilot.pause()
        assert app.results == []
        app.dialog.arm()
        await pilot.pause()
        await pilot.click("#approval-once")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalDecision.ONCE]


async def test_keys_ignored_within_the_real_guard_then_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard's own timer, long enough here that the key surely lands inside it: with the product's
    0.3 s a loaded machine delivered the key after the guard, and the run proved nothing (it skipped); 3 s
    were not enough either for a worker starved by a full suite run beside it."""
    guard = 10.0
    monkeypatch.setattr(ApprovalDialog, "GUARD_SECONDS", guard)
    app = ApprovalApp(make_request())
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: app.dialog.is_mounted)
        await pilot.press("1")
        await pilot.pause()
        assert not app.dialog.is_armed, "the key came after the guard: raise the guard above"
        assert app.results == []
        await wait_until(pilot, lambda: app.dialog.is_armed, timeout=guard + 10)
        await pilot.press("2", "2")  # widening to the session takes a confirming second key
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalDecision.SESSION]


@pytest.mark.parametrize(
    ("key", "decision"),
    [("1", ApprovalDecision.ONCE), ("22", ApprovalDecision.SESSION), ("4", ApprovalDecision.DENY)],
)
async def test_hotkeys_after_the_guard(key: str, decision: ApprovalDecision) -> None:
    app = ApprovalApp(make_request())
    async with app.run_test() as pilot:
        await open_armed(pilot)
        await pilot.press(*key)
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [decision]


async def test_one_s_only_asks_again_and_enter_confirms_it() -> None:
    app = ApprovalApp(make_request())
    async with app.run_test() as pilot:
        await open_armed(pilot)
        await pilot.press("2")
        await pilot.pause()
        assert app.results == []  # one key never widens permission
        assert "2 again" in str(app.screen.query_one("#approval-hint").render())
        await pilot.press("enter")  # on the session button it focused
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalDecision.SESSION]


async def test_ctrl_c_in_the_dialog_denies_and_says_interrupted_even_during_the_guard(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ApprovalDialog, "GUARD_SECONDS", 30.0)  # surely still guarded on a loaded machine
    app = ApprovalApp(make_request())
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: app.dialog.is_mounted)
        dialog = app.dialog
        assert not dialog.is_armed
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalDecision.DENY] and dialog.interrupted


async def test_escape_denies() -> None:
    app = ApprovalApp(make_request())
    async with app.run_test() as pilot:
        await open_armed(pilot)
        await pilot.press("escape")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalDecision.DENY]


async def test_always_shows_the_rule_then_confirm_gives_always() -> None:
    app = ApprovalApp(make_request())
    async with app.run_test() as pilot:
        dialog = await open_armed(pilot)
        await pilot.press("3")
        await pilot.pause()
        assert dialog.is_confirming
        assert app.results == []
        rule = dialog.query_one("#approval-rule", Input)
        assert rule.display and rule.value == "rm -rf build*" and app.focused is rule
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalAnswer(ApprovalDecision.ALWAYS, "rm -rf build*")]


async def test_always_for_a_shell_hook_remembers_its_command_without_a_rule_to_edit() -> None:
    request = make_request(
        command="~/hooks/no-rm.sh", rule="~/hooks/no-rm.sh", subject="shell hook", tool_name="pre_tool_call"
    )
    app = ApprovalApp(request)
    async with app.run_test() as pilot:
        dialog = await open_armed(pilot)
        assert "a shell hook on pre_tool_call wants to run" in str(
            dialog.query_one("#approval-intro").render()
        )
        await pilot.press("3")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalAnswer(ApprovalDecision.ALWAYS, "~/hooks/no-rm.sh")]


async def test_always_saves_the_rule_as_edited_and_says_whether_it_matches() -> None:
    request = make_request(
        command="git push origin main", rule="git push origin main", suggested_rule="git push *"
    )
    app = ApprovalApp(request)
    async with app.run_test() as pilot:
        dialog = await open_armed(pilot)
        await pilot.press("3")
        await pilot.pause()
        check = dialog.query_one("#approval-rule-check", Static)
        assert "✓ matches this command" in str(check.render())
        await pilot.press("backspace", *"other", "space", "*")  # typed keys edit the rule
        await pilot.pause()
        assert dialog.saved_rule == "git push other *"
        assert "does not match this command" in str(check.render())
        await pilot.press(*["backspace"] * 7, *"origin", "space", "*")
        await pilot.pause()
        assert "✓ matches this command" in str(check.render())
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalAnswer(ApprovalDecision.ALWAYS, "git push origin *")]


async def test_an_emptied_rule_is_not_saved() -> None:
    app = ApprovalApp(make_request(suggested_rule="ls *"))
    async with app.run_test() as pilot:
        dialog = await open_armed(pilot)
        await pilot.press("3")
        await pilot.pause()
        await pilot.press(*["backspace"] * 4, "enter")
        await pilot.pause()
        assert app.results == [] and dialog.is_confirming
        assert "empty rule" in str(dialog.query_one("#approval-rule-check", Static).render())


async def test_escape_from_the_confirm_step_goes_back() -> None:
    app = ApprovalApp(make_request())
    async with app.run_test() as pilot:
        dialog = await open_armed(pilot)
        await pilot.press("3")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not dialog.is_confirming
        assert app.results == []
        assert app.focused is not None and app.focused.id == "approval-deny"
        await pilot.press("3", "n")  # n is typed into the rule
        await pilot.pause()
        assert dialog.is_confirming and dialog.saved_rule == "rm -rf build*n"
        await pilot.press("escape")
        await pilot.pause()
        assert not dialog.is_confirming and app.results == []
        await pilot.press("1")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalDecision.ONCE]


async def test_always_is_unavailable_when_the_request_forbids_it() -> None:
    app = ApprovalApp(make_request(allow_permanent=False))
    async with app.run_test() as pilot:
        dialog = await open_armed(pilot)
        assert dialog.query_one("#approval-always", Button).disabled
        await pilot.press("3")
        await pilot.pause()
        assert not dialog.is_confirming and app.results == []


async def test_no_letter_approves_and_typing_holds_the_digits_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """Typing "so then run 2 tests" into the dialog (it took the keyboard mid-sentence) answers nothing."""
    monkeypatch.setattr(ApprovalDialog, "DIGITS_AFTER", 1.0)
    clock = FakeClock()
    app = ApprovalApp(make_request(), clock=clock)
    async with app.run_test() as pilot:
        dialog = await open_armed(pilot)
        clock.now += 5.0  # long visible: only the letters can hold the digits back now
        for key in "so then run 2 tests and then yes":
            await pilot.press("space" if key == " " else key)
        await pilot.pause()
        assert app.results == []
        assert "Typing does not answer this" in str(dialog.query_one("#approval-hint").render())
        clock.now += 1.5  # a pause after the letters: a digit is a choice again
        await pilot.press("1")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalDecision.ONCE]


async def test_a_digit_right_after_the_dialog_appears_is_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ApprovalDialog, "DIGITS_AFTER", 1.0)
    clock = FakeClock()
    app = ApprovalApp(make_request(), clock=clock)
    async with app.run_test() as pilot:
        await open_armed(pilot)
        await pilot.press("1", "2", "2", "3")
        await pilot.pause()
        assert app.results == [] and not app.dialog.is_confirming
        clock.now += 1.0
        await pilot.press("4")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalDecision.DENY]


async def test_arrows_move_between_the_choices_and_enter_presses_one() -> None:
    app = ApprovalApp(make_request())
    async with app.run_test() as pilot:
        await open_armed(pilot)
        assert app.focused is not None and app.focused.id == "approval-deny"
        await pilot.press("left", "left", "left")  # deny -> always -> session -> once
        assert app.focused is not None and app.focused.id == "approval-once"
        await pilot.press("left")  # wraps around to the last choice
        assert app.focused is not None and app.focused.id == "approval-deny-reason"
        await pilot.press("right", "right")
        assert app.focused is not None and app.focused.id == "approval-session"
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalDecision.SESSION]


async def test_deny_with_a_reason_sends_the_reason() -> None:
    app = ApprovalApp(make_request())
    async with app.run_test() as pilot:
        dialog = await open_armed(pilot)
        await pilot.press("5")
        await pilot.pause()
        reason = dialog.query_one("#approval-reason-input", Input)
        assert app.focused is reason and app.results == []
        await pilot.press(*"use make clean", "enter")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalAnswer(ApprovalDecision.DENY, reason="use make clean")]


async def test_escape_from_the_reason_goes_back_to_the_choices() -> None:
    app = ApprovalApp(make_request())
    async with app.run_test() as pilot:
        await open_armed(pilot)
        await pilot.press("5")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [] and app.focused is not None and app.focused.id == "approval-deny"


async def test_a_long_command_says_how_many_lines_are_hidden_and_pages() -> None:
    command = "\n".join(f"echo line {n} && rm -rf /tmp/x{n}" for n in range(45))
    app = ApprovalApp(make_request(command=command))
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_armed(pilot)
        more = dialog.query_one("#approval-more", Static)
        await wait_until(pilot, lambda: "more lines" in str(more.render()))
        hidden = int(str(more.render()).split("↓ ")[1].split(" ")[0])
        assert hidden >= 35  # 45 lines in a box of a few
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: "above" in str(more.render()))
        assert app.results == []


async def test_timeout_gives_timeout() -> None:
    app = ApprovalApp(make_request(timeout=0.5))
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: bool(app.results), timeout=3.0)
        assert app.results == [ApprovalDecision.TIMEOUT]


async def test_countdown_shows_time_left_and_turns_urgent() -> None:
    clock = FakeClock()
    app = ApprovalApp(make_request(timeout=300.0), clock=clock)
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: app.dialog.is_mounted)
        countdown = app.dialog.query_one("#approval-countdown", Static)
        assert "5:00" in str(countdown.render())
        clock.now += 61
        await wait_until(pilot, lambda: "3:59" in str(countdown.render()))
        clock.now += 235
        await wait_until(pilot, lambda: countdown.has_class("-urgent"))
        assert "0:04" in str(countdown.render())
        clock.now += 5
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalDecision.TIMEOUT]


async def test_cancel_event_gives_deny() -> None:
    cancel = threading.Event()
    app = ApprovalApp(make_request(cancel=cancel))
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: app.dialog.is_mounted)
        cancel.set()
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalDecision.DENY]


async def test_cancel_while_another_screen_is_on_top_closes_both() -> None:
    cancel = threading.Event()
    app = ApprovalApp(make_request(cancel=cancel))
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: app.dialog.is_mounted)
        app.action_command_palette()
        await wait_until(pilot, lambda: app.screen is not app.dialog)
        cancel.set()
        await wait_until(pilot, lambda: bool(app.results) and len(app.screen_stack) == 1)
        assert app.results == [ApprovalDecision.DENY]
        assert app.dialog not in app.screen_stack


async def test_command_is_shown_literally() -> None:
    command = "echo [bold]hi[/bold]\r\x1b[2Kls \u202egnp.exe"
    app = ApprovalApp(make_request(command=command))
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: app.dialog.is_mounted)
        shown = app.dialog.query_one("#approval-command", Static).render()
        plain = str(shown)
        assert "[bold]hi[/bold]" in plain
        assert "\\x0d\\x1b[2K" in plain and "\\u202e" in plain
        assert "\x1b" not in plain and "\r" not in plain and "\u202e" not in plain


def test_literal_text_keeps_newlines_and_tabs() -> None:
    assert literal_text("a\n\tb").plain == "a\n\tb"
    assert literal_text("x\x07y").plain == "x\\x07y"


# ------------------------------------------------------------------------------------------------- clarify


class ClarifyApp(App[None]):
    CSS = "#transcript { height: 1fr; } #bottom { dock: bottom; height: auto; }"

    def __init__(self, request: ClarifyRequest, **kwargs: object) -> None:
        super().__init__()
        self.request = request
        self.kwargs = kwargs
        self.answers: list[ClarifyPrompt.Answered] = []

    def compose(self) -> ComposeResult:
        yield VerticalScroll(Static("\n".join(f"line {i}" for i in range(200))), id="transcript")
        with Vertical(id="bottom"):
            yield ClarifyPrompt(self.request, **self.kwargs)  # type: ignore[arg-type]

    def on_clarify_prompt_answered(self, message: ClarifyPrompt.Answered) -> None:
        self.answers.append(message)


def clarify_request(**overrides: object) -> ClarifyRequest:
    values: dict[str, object] = {
        "question": "Which database?",
        "choices": ("SQLite", "Redis", "Postgres"),
        "timeout": 120.0,
    }
    values.update(overrides)
    return ClarifyRequest(**values)  # type: ignore[arg-type]


async def armed_card(pilot: Pilot) -> ClarifyPrompt:
    card = pilot.app.query_one(ClarifyPrompt)
    card.arm()
    await pilot.pause()
    return card


async def test_clarify_digit_answers_with_that_choice() -> None:
    app = ClarifyApp(clarify_request())
    async with app.run_test() as pilot:
        await armed_card(pilot)
        await pilot.press("2")
        await wait_until(pilot, lambda: bool(app.answers))
        assert [(a.answer, a.reason) for a in app.answers] == [("Redis", "answered")]


async def test_clarify_up_down_enter() -> None:
    app = ClarifyApp(clarify_request())
    async with app.run_test() as pilot:
        await armed_card(pilot)
        await pilot.press("down", "down", "up", "enter")
        await wait_until(pilot, lambda: bool(app.answers))
        assert app.answers[0].answer == "Redis"


async def test_clarify_other_free_text() -> None:
    app = ClarifyApp(clarify_request())
    async with app.run_test() as pilot:
        card = await armed_card(pilot)
        await pilot.press("4")
        await pilot.pause()
        assert card.is_free_text
        assert isinstance(app.focused, Input)
        await pilot.press(*"DuckDB 1", "enter")
        await wait_until(pilot, lambda: bool(app.answers))
        assert app.answers[0].answer == "DuckDB 1"  # the digit went into the input, not to a choice


async def test_clarify_escape_gives_none_and_escape_from_free_text_goes_back() -> None:
    app = ClarifyApp(clarify_request())
    async with app.run_test() as pilot:
        card = await armed_card(pilot)
        await pilot.press("4")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not card.is_free_text and app.answers == []
        await pilot.press("escape")
        await wait_until(pilot, lambda: bool(app.answers))
        assert [(a.answer, a.reason) for a in app.answers] == [(None, "dismissed")]


async def test_clarify_open_question_has_only_the_input() -> None:
    app = ClarifyApp(clarify_request(choices=()))
    async with app.run_test() as pilot:
        card = await armed_card(pilot)
        assert card.is_free_text and isinstance(app.focused, Input)
        await pilot.press(*"yes", "enter")
        await wait_until(pilot, lambda: bool(app.answers))
        assert app.answers[0].answer == "yes"


async def test_clarify_keys_during_the_guard_are_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ClarifyPrompt, "GUARD_SECONDS", 30.0)
    app = ClarifyApp(clarify_request())
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("1", "enter")
        await pilot.pause()
        assert app.answers == []


async def test_clarify_timeout_and_cancel_give_none() -> None:
    app = ClarifyApp(clarify_request(timeout=0.5))
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: bool(app.answers))
        assert [(a.answer, a.reason) for a in app.answers] == [(None, "timeout")]
    cancel = threading.Event()
    app = ClarifyApp(clarify_request(cancel=cancel))
    async with app.run_test() as pilot:
        await pilot.pause()
        cancel.set()
        await wait_until(pilot, lambda: bool(app.answers))
        assert [(a.answer, a.reason) for a in app.answers] == [(None, "cancelled")]


async def test_clarify_answers_once() -> None:
    app = ClarifyApp(clarify_request())
    async with app.run_test() as pilot:
        await armed_card(pilot)
        await pilot.press("1", "2", "escape")
        await wait_until(pilot, lambda: bool(app.answers))
        await pilot.pause()
        assert [a.answer for a in app.answers] == ["SQLite"]


async def test_clarify_is_not_modal_and_the_transcript_still_scrolls() -> None:
    app = ClarifyApp(clarify_request())
    async with app.run_test() as pilot:
        await armed_card(pilot)
        assert len(app.screen_stack) == 1
        transcript = app.query_one("#transcript", VerticalScroll)
        transcript.scroll_end(animate=False)
        await pilot.pause()
        bottom = transcript.scroll_y
        assert bottom > 0
        await pilot.click("#transcript")  # reading the transcript while the question waits
        await pilot.press("pageup")
        await pilot.pause()
        assert transcript.scroll_y < bottom
        assert app.answers == []


# -------------------------------------------------------------------------------------------------- prompt

COMMANDS = [
    ("help", "Show the commands"),
    ("model", "Switch the model"),
    ("new", "New session"),
    ("queue", "Queue"),
]


class PromptApp(App[None]):
    def __init__(self, history: list[str] | None = None) -> None:
        super().__init__()
        self.history = history if history is not None else []
        self.submitted: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("transcript", id="transcript")
        yield PromptBar(history=self.history, commands=COMMANDS, id="bar")
        yield Button("other", id="other")

    def on_mount(self) -> None:
        self.query_one(PromptInput).focus()

    def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        self.submitted.append(message.text)


async def test_enter_submits_and_clears() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press(*"hello", "enter")
        await wait_until(pilot, lambda: bool(app.submitted))
        assert app.submitted == ["hello"]
        assert prompt.text == ""
        await pilot.press("enter", "space", "enter")
        await pilot.pause()
        assert app.submitted == ["hello"]  # whitespace is never sent


@pytest.mark.parametrize("key", ["ctrl+j", "shift+enter", "alt+enter", "ctrl+enter"])
async def test_newline_keys_insert_a_newline(key: str) -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press("a", key, "b")
        await pilot.pause()
        assert prompt.text == "a\nb"
        assert app.submitted == []
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.submitted))
        assert app.submitted == ["a\nb"]


async def test_history_up_down_keeps_the_draft() -> None:
    app = PromptApp(history=["first", "second"])
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press(*"draft")
        await pilot.press("up")
        assert prompt.text == "second"
        await pilot.press("up")
        assert prompt.text == "first"
        await pilot.press("up")
        assert prompt.text == "first"
        await pilot.press("down")
        assert prompt.text == "second"
        await pilot.press("down")
        assert prompt.text == "draft"
        assert prompt.history_index is None
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.submitted))
        assert app.history == ["first", "second", "draft"]
        await pilot.press("up")
        assert prompt.text == "draft"


async def test_up_inside_multiline_text_moves_the_cursor_not_history() -> None:
    app = PromptApp(history=["old"])
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press("a", "ctrl+j", "b")
        await pilot.press("up")
        assert prompt.text == "a\nb" and prompt.cursor_location[0] == 0
        await pilot.press("up")
        assert prompt.text == "old"
        await pilot.press("down")
        assert prompt.text == "a\nb"


async def test_ten_thousand_line_paste_is_one_message() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        text = "\r\n".join(f"line {i}: pasted content" for i in range(10_000))
        started = time.monotonic()
        prompt.post_message(events.Paste(text))
        await wait_until(pilot, lambda: bool(prompt.text), timeout=10)
        elapsed = time.monotonic() - started
        assert app.submitted == []
        assert prompt.text == "[Pasted #1: 10,000 lines]"  # collapsed (tests/app/test_prompt_pastes.py)
        assert prompt.full_text == normalize_paste(text)
        assert not prompt.completions_visible
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.submitted))
        await pilot.pause()
        assert len(app.submitted) == 1
        assert prompt.pastes.expand(app.submitted[0]).count("\n") == 9_999
        assert elapsed < 5.0, f"paste took {elapsed:.2f}s"


def test_normalize_paste() -> None:
    assert normalize_paste("\x1b[200~a\r\nb\rc\x1b[201~") == "a\nb\nc"


async def test_slash_completion_with_tab() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        bar = app.query_one(PromptBar)
        await pilot.press("/", "m", "o")
        await pilot.pause()
        assert [name for name, _ in prompt.completions] == ["model"]
        assert bar.suggestions.display
        await pilot.press("tab")
        await pilot.pause()
        assert prompt.text == "/model "
        assert not prompt.completions_visible and not bar.suggestions.display
        assert app.focused is prompt


async def test_slash_dropdown_up_down_enter_and_escape() -> None:
    app = PromptApp(history=["older prompt"])
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press("/")
        await pilot.pause()
        assert len(prompt.completions) == len(COMMANDS)
        await pilot.press("down", "down", "up")  # the dropdown, not the history
        assert prompt.completion_index == 1 and prompt.text == "/"
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.submitted))
        assert app.submitted == ["/model"]
        await pilot.press("/", "n")
        await pilot.pause()
        assert prompt.completions_visible
        await pilot.press("escape")
        await pilot.pause()
        assert not prompt.completions_visible and prompt.text == "/n"


async def test_tab_without_completions_moves_focus() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        await pilot.press(*"hi", "tab")
        await pilot.pause()
        assert app.focused is not None and app.focused.id == "other"


async def test_paths_are_not_commands() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press(*"/tmp/x", "enter")
        await wait_until(pilot, lambda: bool(app.submitted))
        assert app.submitted == ["/tmp/x"]
        assert not prompt.completions_visible


async def test_set_text_puts_the_cursor_at_the_end_and_leaves_history() -> None:
    app = PromptApp(history=["old"])
    async with app.run_test() as pilot:
        prompt = app.query_one(PromptInput)
        await pilot.press("up")
        assert prompt.history_index == 0
        prompt.set_text("queued\nmessage")
        assert prompt.history_index is None
        assert prompt.cursor_location == (1, len("message"))
        await pilot.press("!", "enter")
        await wait_until(pilot, lambda: bool(app.submitted))
        assert app.submitted == ["queued\nmessage!"]


async def test_prompt_symbol_is_reactive() -> None:
    app = PromptApp()
    async with app.run_test() as pilot:
        bar = app.query_one(PromptBar)
        symbol = bar.query_one("#prompt-symbol", Static)
        assert str(symbol.render()) == "❯"
        bar.prompt_symbol = "…"
        await pilot.pause()
        assert str(symbol.render()) == "…"


# --------------------------------------------------------------------------------------------------- queue


class QueueApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.edits: list[str] = []

    def compose(self) -> ComposeResult:
        yield QueuedMessages(id="queue")
        yield Button("prompt", id="prompt")

    def on_queued_messages_edit_requested(self, message: QueuedMessages.EditRequested) -> None:
        self.edits.append(message.text)


async def test_queue_add_pop_remove_edit() -> None:
    app = QueueApp()
    async with app.run_test() as pilot:
        queue = app.query_one(QueuedMessages)
        assert not queue.display or queue.has_class("-empty")
        assert queue.pop_next() is None
        for text in ("one", "two\nlines", "three", "four"):
            queue.add(text)
        await pilot.pause()
        assert queue.items == ("one", "two\nlines", "three", "four")
        assert not queue.has_class("-empty") and queue.region.height > 0
        assert queue.pop_next() == "one"
        queue.focus()
        await pilot.pause()
        await pilot.press("down", "x")  # remove "three"
        await pilot.pause()
        assert queue.items == ("two\nlines", "four")
        await pilot.press("up", "e")
        await wait_until(pilot, lambda: bool(app.edits))
        assert app.edits == ["two\nlines"]
        assert queue.items == ("four",)
        await pilot.press("delete")
        await pilot.pause()
        assert queue.items == ()
        assert queue.has_class("-empty") and queue.region.height == 0


# ---------------------------------------------------------------------------------------------- status bar


class StatusApp(App[None]):
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.clock = clock

    def compose(self) -> ComposeResult:
        yield Static("chat")
        yield StatusBar("openrouter/anthropic/claude-sonnet-4.5", clock=self.clock)


def test_context_levels() -> None:
    assert [context_level(p) for p in (0, 49.9, 50, 79.9, 80, 94.9, 95, 120)] == [
        "ok",
        "ok",
        "caution",
        "caution",
        "warning",
        "warning",
        "critical",
        "critical",
    ]


def _style_of(text: Text, needle: str) -> object:
    start = text.plain.index(needle)
    styles = [span.style for span in text.spans if span.start <= start < span.end]
    assert styles, f"{needle!r} has no style"
    return styles[-1]


async def test_status_bar_context_colours() -> None:
    app = StatusApp()
    async with app.run_test(size=(120, 5)) as pilot:
        bar = app.query_one(StatusBar)
        seen = {}
        for used, level in ((40, "ok"), (50, "caution"), (80, "warning"), (95, "critical")):
            bar.context_use = ContextUse(used * 1000, 100_000)
            await pilot.pause()
            assert bar.context_level == level
            line = bar.render()
            style = _style_of(line, f"{used}%")
            assert style == bar.get_component_rich_style(f"status-bar--ctx-{level}", partial=True)
            seen[level] = style
        assert len({str(s) for s in seen.values()}) == 4  # four visibly different colours
        critical = bar.get_component_rich_style("status-bar--ctx-critical", partial=True)
        assert critical.color is not None
        assert critical.color.triplet is not None
        error = Color.parse(app.current_theme.error)
        shown = critical.color.triplet
        assert abs(shown.red - error.r) + abs(shown.green - error.g) + abs(shown.blue - error.b) <= 3


async def test_status_bar_fields_and_yolo() -> None:
    clock = FakeClock()
    app = StatusApp(clock)
    async with app.run_test(size=(140, 5)) as pilot:
        bar = app.query_one(StatusBar)
        bar.context_use = ContextUse(12_300, 128_000)
        bar.usage = Usage(523_000, 12_400, 0.4321)
        bar.yolo = True
        bar.busy = True
        clock.now += 65
        await pilot.pause()
        plain = bar.render().plain
        for piece in ("claude-sonnet-4.5", "12.3k/128k", "10%", "in 523k", "out 12.4k", "$0.4321", "YOLO"):
            assert piece in plain
        assert "working 1m 05s" in plain
        assert "openrouter/" not in plain
        yolo = _style_of(bar.render(), "YOLO")
        assert yolo == bar.get_component_rich_style("status-bar--yolo", partial=True)
        bar.busy = False
        await pilot.pause()
        assert "idle" in bar.render().plain
        assert bar._timer is not None and not bar._timer._active.is_set()  # no ticking while idle


@pytest.mark.parametrize("width", [60, 72, 80, 100])
async def test_status_bar_narrow_never_wraps(width: int) -> None:
    app = StatusApp(FakeClock())
    async with app.run_test(size=(width, 5)) as pilot:
        bar = app.query_one(StatusBar)
        bar.model = "anthropic/claude-sonnet-4.5-20250929-extended-thinking"
        bar.context_use = ContextUse(104_000, 128_000)
        bar.usage = Usage(523_000, 12_400, 1.25)
        bar.yolo = True
        bar.busy = True
        await pilot.pause()
        assert bar.region.height == 1
        line = bar.render()
        assert "\n" not in line.plain
        assert line.cell_len <= bar.content_size.width
        visible = bar.visible_fields()
        assert {"state", "yolo", "model", "percent"} <= set(visible)
        if width == 60:
            assert "cost" not in visible and "tokens" not in visible
        # What the terminal shows: one row, YOLO and the percentage intact.
        row = "".join(segment.text for segment in bar.render_line(0))
        assert "YOLO" in row and "81%" in row


# --------------------------------------------------------------------------------------------------- setup


class SetupApp(App[None]):
    def __init__(self, home: Path) -> None:
        super().__init__()
        self.home = home
        self.results: list[str | None] = []
        self.demo_messages = 0

    def compose(self) -> ComposeResult:
        yield Static("chat")

    def on_mount(self) -> None:
        self.push_screen(SetupScreen(self.home), self.results.append)

    def on_setup_screen_start_demo(self, message: SetupScreen.StartDemo) -> None:
        self.demo_messages += 1


async def test_setup_shows_paths_and_the_demo_button_works(tmp_path: Path) -> None:
    home = tmp_path / "my hermes"
    app = SetupApp(home)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        shown = " ".join(str(widget.render()) for widget in screen.query(Static))
        assert str(home / "config.yaml") in shown
        assert str(home) in shown
        for needle in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENROUTER_API_KEY", "OPENAI_BASE_URL"):
            assert needle in shown
        assert "default:" in shown and "provider:" in shown and "base_url:" in shown
        assert "--model" in shown and "--base-url" in shown and "--api-key" in shown
        assert app.focused is not None and app.focused.id == "setup-demo"
        await pilot.click("#setup-demo")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == ["demo"]
        assert app.demo_messages == 0  # dismissed: the callback decides, no second signal


async def test_setup_keys_and_quit(tmp_path: Path) -> None:
    app = SetupApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("q")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == ["quit"]
    app = SetupApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")  # the focused button is the demo
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == ["demo"]


async def test_setup_keys_reach_the_screen_after_a_field_is_left_with_escape(tmp_path: Path) -> None:
    """`d` / `q` type into the key and model fields (they are text); Esc leaves a field, and then the
    advertised keys work again."""
    app = SetupApp(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.screen.query_one("#setup-key", Input).focus()
        await pilot.press("d", "q")
        assert app.screen.query_one("#setup-key", Input).value == "dq" and not app.results
        await pilot.press("escape")
        assert app.focused is not None and app.focused.id == "setup-demo"
        await pilot.press("q")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == ["quit"]


async def test_setup_ctrl_c_twice_quits_as_on_the_main_screen(tmp_path: Path) -> None:
    """The first Ctrl+C says a second one quits (not Textual's "press ctrl+q"), even from a field."""
    app = SetupApp(tmp_path)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause()
        app.screen.query_one("#setup-model", Input).focus()
        await pilot.press("ctrl+c")
        await pilot.pause()
        shown = [n.message for n in app._notifications]
        assert shown == ["Press Ctrl+C again to quit"] and not app.results
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == ["quit"]


async def test_setup_as_the_only_screen_posts_start_demo(tmp_path: Path) -> None:
    class OnlySetup(App[None]):
        demo_messages = 0

        def get_default_screen(self) -> SetupScreen:
            return SetupScreen(tmp_path, detail="config.yaml: model.provider: expected one of openai, ...")

        def on_setup_screen_start_demo(self, message: SetupScreen.StartDemo) -> None:
            self.demo_messages += 1

    app = OnlySetup()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "expected one of" in str(app.screen.query_one("#setup-detail", Static).render())
        buttons = app.screen.query_one("#setup-buttons")
        assert buttons.region.bottom <= 24  # the buttons stay on screen even when the card scrolls
        await pilot.press("d")
        await wait_until(pilot, lambda: app.demo_messages == 1)


async def test_status_bar_cost_is_unknown_never_zero() -> None:
    app = StatusApp(FakeClock())
    async with app.run_test(size=(140, 5)) as pilot:
        bar = app.query_one(StatusBar)
        bar.usage = Usage(1_000, 10)
        await pilot.pause()
        assert "$" not in bar.render().plain and "?" not in bar.render().plain  # no call priced yet
        bar.usage = Usage(1_000, 10, None, unknown_calls=2)  # a local model: no price
        await pilot.pause()
        assert "out 10 │ cost ?" in bar.render().plain and "$0" not in bar.render().plain
        assert (
            bar.tooltip is not None and "no known price" in str(bar.tooltip) and "/usage" in str(bar.tooltip)
        )
        bar.usage = Usage(5_000, 90, 0.0123, unknown_calls=1)
        await pilot.pause()
        assert "$0.0123+?" in bar.render().plain
        assert bar.tooltip is not None and "at least" in str(bar.tooltip)
        bar.usage = Usage(5_000, 90, 0.0123)
        await pilot.pause()
        bar.render()
        assert bar.tooltip is None  # every call priced: nothing to explain


async def test_status_bar_at_50_columns_drops_the_queue_hint_before_the_model_and_the_state() -> None:
    """The queue hint is also shown above the prompt: at 50 columns it goes before the model name is cut
    or the working indicator loses its time."""
    clock = FakeClock()
    app = StatusApp(clock)
    async with app.run_test(size=(50, 5)) as pilot:
        bar = app.query_one(StatusBar)
        bar.model = "anthropic/claude-sonnet-4.5"
        bar.context_use = ContextUse(12_300, 128_000)
        bar.hint = "2 queued · ↑ edit last · Shift+Tab manage"
        bar.busy = True
        clock.now += 65
        await pilot.pause()
        plain = bar.render().plain
        assert "claude-sonnet-4.5" in plain and "working 1m 05s" in plain
        assert "hint" not in bar.visible_fields()


@pytest.mark.parametrize("size", [(20, 6), (22, 20), (30, 12), (40, 30)])
async def test_the_approval_dialog_opens_on_a_narrow_terminal(size: tuple[int, int]) -> None:
    """Below ~40 columns the choices are stacked, one per row: in three columns a button's label had no
    width left and wrapping it raised ValueError, killing the app (UI fuzz seed 316 at 22x20). The
    choices still answer, the "always" confirmation too."""
    app = ApprovalApp(make_request())
    async with app.run_test(size=size) as pilot:
        dialog = await open_armed(pilot)
        await pilot.press("3")  # the rule confirmation's two buttons, at this width too
        await pilot.pause()
        assert dialog.is_confirming
        await pilot.press("escape", "escape")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalDecision.DENY] and app.return_code is None


async def test_the_approval_dialog_survives_a_jump_from_wide_to_narrow() -> None:
    """A resize lays the dialog out at the new width before its breakpoint classes change: from five
    choices in a row to 20 columns a button was 2 cells wide, and wrapping its label into none raised
    (UI fuzz seed 9245: 125x45 to 20x6 with the dialog open)."""
    app = ApprovalApp(make_request())
    async with app.run_test(size=(125, 45)) as pilot:
        dialog = await open_armed(pilot)
        for size in ((20, 6), (130, 40), (21, 30), (125, 10), (25, 6)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
        await pilot.press("escape")
        await wait_until(pilot, lambda: bool(app.results))
        assert app.results == [ApprovalDecision.DENY] and "-tiny" in dialog.classes

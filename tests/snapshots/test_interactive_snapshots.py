"""Snapshots of the interactive widgets at 120x40 and 80x24.

Countdowns are frozen (`frozen=True`) and clocks are constants, so every run renders the same frame.
Regenerate after an intended change with `pytest tests/snapshots/test_interactive_snapshots.py
--snapshot-update`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Static

from agent.core.ui import ApprovalRequest, ClarifyRequest
from hermes_tui.commands import new_registry
from hermes_tui.screens.approval import ApprovalDialog
from hermes_tui.screens.help import HelpScreen
from hermes_tui.screens.setup import SetupScreen
from widgets.cards.plan import PlanCard
from widgets.clarify_prompt import ClarifyPrompt
from widgets.prompt.input import PromptBar
from widgets.queued_messages import QueuedMessages
from widgets.status_bar import ContextUse, StatusBar, Usage

SIZES = [pytest.param((120, 40), id="120x40"), pytest.param((80, 24), id="80x24")]
WITH_NARROW = [*SIZES, pytest.param((50, 24), id="50x24")]
"""The help, the setup screen and the status bar are looked at at 50 columns too (issue 46)."""

TRANSCRIPT = "\n".join(
    f"assistant: step {i} of the plan, reading files and running the tests as asked." for i in range(60)
)

LONG_COMMAND = (
    "find . -name '*.pyc' -delete && rm -rf ./build ./dist ./.pytest_cache && "
    "curl -fsSL https://example.com/install.sh | sh -s -- --prefix=$HOME/.local --with-extras "
    "&& git push --force origin main"
)


def frozen_clock() -> float:
    return 1000.0


class ChatLikeApp(App[None]):
    """A stand-in for the chat screen: transcript, bottom area, prompt, status bar."""

    CSS = """
    #transcript { height: 1fr; }
    #bottom { dock: bottom; height: auto; margin-bottom: 1; }
    """

    def __init__(
        self, clarify: ClarifyRequest | None = None, queued: tuple[str, ...] = (), *, plan: bool = False
    ) -> None:
        super().__init__()
        self.clarify = clarify
        self.queued = queued
        self.plan = plan

    def compose(self) -> ComposeResult:
        yield VerticalScroll(Static(TRANSCRIPT), id="transcript")
        with Vertical(id="bottom"):
            if self.clarify is not None:
                yield ClarifyPrompt(self.clarify, frozen=True)
            if self.plan:
                yield PlanCard(frozen=True)
            yield QueuedMessages()
            yield PromptBar()
        status = StatusBar("anthropic/claude-sonnet-4.5", clock=frozen_clock)
        yield status

    def on_mount(self) -> None:
        queue = self.query_one(QueuedMessages)
        for text in self.queued:
            queue.add(text)
        status = self.query_one(StatusBar)
        status.context_use = ContextUse(104_000, 128_000)
        status.usage = Usage(523_000, 12_400, 0.4321)
        if self.plan:
            status.mode = "plan"
        else:
            status.yolo = True
            status.busy = True
        self.query_one("#transcript", VerticalScroll).scroll_end(animate=False)


class ApprovalSnapshotApp(App[None]):
    def __init__(self, command: str = "", diff: str = "") -> None:
        super().__init__()
        self.command = command or LONG_COMMAND
        self.diff = diff

    def compose(self) -> ComposeResult:
        yield Static(TRANSCRIPT)

    def on_mount(self) -> None:
        request = ApprovalRequest(
            command=self.command,
            reasons=("recursive delete (rm -r)", "pipes a download into a shell (curl | sh)"),
            pattern_keys=("rm_recursive", "curl_pipe_sh"),
            timeout=300.0,
            rule=self.command,  # as the gate asks: a compound command is offered exactly (no glob matches it)
        )
        if self.diff:  # an edit in ask mode, as the gate asks it
            request = ApprovalRequest(
                command=self.command,
                reasons=("ask mode: every file edit asks",),
                pattern_keys=("ask_edit",),
                timeout=300.0,
                tool_name="patch",
                rule=self.command,
                subject="file write",
                diff=self.diff,
            )
        self.push_screen(ApprovalDialog(request, frozen=True, clock=frozen_clock))


async def arm_dialog(pilot: Pilot) -> None:
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, ApprovalDialog)
    dialog.arm()
    await pilot.pause()


async def arm_clarify(pilot: Pilot) -> None:
    await pilot.pause()
    pilot.app.query_one(ClarifyPrompt).arm()
    await pilot.pause()


class SetupSnapshotApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("")

    def on_mount(self) -> None:
        self.push_screen(SetupScreen(Path("/home/alice/.hermes")))


class HelpSnapshotApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("")

    def on_mount(self) -> None:
        self.push_screen(HelpScreen(new_registry().help_rows()))


class StatusOnlyApp(App[None]):
    """Four status bars: idle and comfortable, busy near the limit, nearly full with YOLO, and a local model
    (cost unknown) with messages queued."""

    CSS = "StatusBar { dock: none; margin-bottom: 1; }"

    def compose(self) -> ComposeResult:
        for index in range(4):
            yield StatusBar("anthropic/claude-sonnet-4.5", clock=frozen_clock, id=f"bar{index}")

    def on_mount(self) -> None:
        idle, busy, full, local = (self.query_one(f"#bar{index}", StatusBar) for index in range(4))
        local.model = "qwen2.5-coder:7b"
        local.context_use = ContextUse(6_100, 8_192)
        local.usage = Usage(18_000, 900, None, unknown_calls=3)
        local.hint = "2 queued · ↑ edit last · Alt+↑ manage"
        local.busy = True
        idle.mode = "plan"
        idle.context_use = ContextUse(20_000, 200_000)
        idle.usage = Usage(41_000, 2_300, None)
        busy.context_use = ContextUse(104_000, 128_000)
        busy.usage = Usage(523_000, 12_400, 0.4321)
        busy.busy = True
        full.model = "openrouter/meta-llama/llama-3.1-405b-instruct"
        full.context_use = ContextUse(126_000, 128_000)
        full.usage = Usage(1_523_000, 92_400, 12.5)
        full.yolo = True
        full.busy = True


@pytest.mark.parametrize("size", SIZES)
def test_approval_dialog_snapshot(snap_compare, size: tuple[int, int]) -> None:
    assert snap_compare(ApprovalSnapshotApp(), terminal_size=size, run_before=arm_dialog)


def test_approval_dialog_with_a_45_line_command_snapshot(snap_compare) -> None:
    """At 80x24 the box shows a few lines of a long script: the dialog says how many more there are."""
    script = "\n".join(f"rm -rf ./build/stage-{n:02d} && echo removed stage {n:02d}" for n in range(45))
    app = ApprovalSnapshotApp(script)
    assert snap_compare(app, terminal_size=(80, 24), run_before=arm_dialog)


@pytest.mark.parametrize("size", SIZES)
def test_approval_confirm_snapshot(snap_compare, size: tuple[int, int]) -> None:
    async def confirm(pilot: Pilot) -> None:
        await arm_dialog(pilot)
        await pilot.press("left", "enter")  # from Deny to "Always allow…", pressed
        await pilot.pause()

    assert snap_compare(ApprovalSnapshotApp(), terminal_size=size, run_before=confirm)


@pytest.mark.parametrize("size", SIZES)
def test_clarify_card_snapshot(snap_compare, size: tuple[int, int]) -> None:
    request = ClarifyRequest(
        question="Which database should I use for the session cache?",
        choices=("SQLite (already a dependency)", "Redis", "Postgres"),
        timeout=120.0,
    )
    app = ChatLikeApp(clarify=request, queued=("also run the tests", "then update\nthe docs"))
    assert snap_compare(app, terminal_size=size, run_before=arm_clarify)


EDIT_DIFF = (
    "--- a/src/cache.py\n+++ b/src/cache.py\n@@ -10,4 +10,5 @@ class Cache:\n"
    "     def get(self, key):\n-        return self._items[key]\n+        with self._lock:\n"
    "+            return self._items.get(key)\n \n"
)


@pytest.mark.parametrize("size", SIZES)
def test_approval_dialog_with_a_diff_snapshot(snap_compare, size: tuple[int, int]) -> None:
    """Ask mode: an edit inside the workspace asks, and the dialog shows what it changes."""
    app = ApprovalSnapshotApp("write /home/alice/project/src/cache.py", diff=EDIT_DIFF)
    assert snap_compare(app, terminal_size=size, run_before=arm_dialog)


async def arm_plan(pilot: Pilot) -> None:
    await pilot.pause()
    pilot.app.query_one(PlanCard).arm()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_plan_card_snapshot(snap_compare, size: tuple[int, int]) -> None:
    """A plan-mode turn ended with its plan: switch to default or ask and go, or keep planning."""
    assert snap_compare(ChatLikeApp(plan=True), terminal_size=size, run_before=arm_plan)


@pytest.mark.parametrize("size", WITH_NARROW)
def test_setup_screen_snapshot(snap_compare, size: tuple[int, int]) -> None:
    assert snap_compare(SetupSnapshotApp(), terminal_size=size)


@pytest.mark.parametrize("size", WITH_NARROW)
def test_help_screen_snapshot(snap_compare, size: tuple[int, int]) -> None:
    assert snap_compare(HelpSnapshotApp(), terminal_size=size)


@pytest.mark.parametrize("size", WITH_NARROW)
def test_status_bar_snapshot(snap_compare, size: tuple[int, int]) -> None:
    assert snap_compare(StatusOnlyApp(), terminal_size=size)

"""The look of the chat screen, pinned with pytest-textual-snapshot at 120x40 and 80x24.

The screen is fed agent events directly (widgets render event data), so each picture is deterministic:
animations off, clocks fixed, countdowns frozen.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from agent.config.settings import Settings
from agent.core.events import (
    ApiCallStarted,
    AssistantMessageDone,
    FirstDelta,
    ReasoningDelta,
    TextDelta,
    ToolCallStarted,
    ToolFinished,
    ToolOutput,
    ToolStarted,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from agent.core.messages import Usage
from agent.core.ui import ApprovalRequest, ClarifyRequest
from hermes_tui.app import HermesApp
from hermes_tui.chat.bridge import ApprovalAsked, ClarifyAsked
from hermes_tui.chat.screen import ChatScreen
from tests.snapshots.still import still
from widgets.transcript.entries.thinking import ThinkingLine
from widgets.transcript.entries.tool_call import ToolCallEntry

SIZES = [(120, 40), (80, 24)]

REPLY = """I looked at the project. Here is what I found:

## Summary

- The migration in `db/0042_users.py` drops a column **before** copying it.
- The test `test_users_roundtrip` fails because of it.

```python
def upgrade() -> None:
    op.add_column("users", sa.Column("email2", sa.String()))
```

| File | Status |
|---|---|
| db/0042_users.py | fixed |
| tests/test_users.py | passing |
"""

DIFF = """--- a/db/0042_users.py
+++ b/db/0042_users.py
@@ -3,4 +3,5 @@
 def upgrade() -> None:
-    op.drop_column("users", "email")
+    op.add_column("users", sa.Column("email2", sa.String()))
+    op.execute("UPDATE users SET email2 = email")
"""


@pytest.fixture(autouse=True)
def _deterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ThinkingLine, "ANIMATE", False)
    monkeypatch.setattr(ToolCallEntry, "ANIMATE", False)
    monkeypatch.setattr(ChatScreen, "STATUS_CLOCK", lambda: 100.0)
    monkeypatch.setattr(ChatScreen, "FREEZE_QUESTIONS", True)


def _app(tmp_path: Path) -> HermesApp:
    settings = Settings(
        model="hermes-4-405b",
        provider="custom",
        base_url="http://127.0.0.1:9/v1",
        api_key=SecretStr("unused"),
        auto_title=False,
        hermes_home=tmp_path / "home",
        cwd=Path("/home/user/project"),  # shown in the welcome line: must not depend on the temp dir
    )
    return HermesApp(settings)


def _chat(pilot: Any) -> ChatScreen:
    return next(s for s in pilot.app.screen_stack if isinstance(s, ChatScreen))


async def _feed(
    pilot: Any, events: list[Any], user: str = "Why does the users migration fail?"
) -> ChatScreen:
    screen = _chat(pilot)
    screen.transcript.add_user(user)
    for event in events:
        screen.bridge.on_event(event)
    screen.pipeline.drain()
    await still(pilot, screen)
    return screen


def _scroll_top(screen: ChatScreen) -> None:
    """As a user scrolling up does: stop following the bottom, then go to the top."""
    screen.transcript.scroll_to_first()


def _tool_turn() -> list[Any]:
    usage = Usage(prompt_tokens=41_200, completion_tokens=850)
    return [
        TurnStarted("s", "q"),
        ApiCallStarted(1, "hermes-4-405b", 90),
        FirstDelta(),
        ReasoningDelta("The failing test mentions the users table; I should read the migration first."),
        TextDelta("Let me look at the migration and run the tests."),
        ToolCallStarted(0, "read_file", "c1"),
        ToolCallStarted(1, "terminal", "c2"),
        ToolCallStarted(2, "patch", "c3"),
        AssistantMessageDone(
            "Let me look at the migration and run the tests.",
            None,
            (("c1", "read_file", "{}"), ("c2", "terminal", "{}"), ("c3", "patch", "{}")),
            "tool_calls",
        ),
        ToolStarted("c1", "read_file", {"path": "db/0042_users.py"}, "db/0042_users.py", 0),
        ToolFinished(
            "c1",
            "read_file",
            "ok",
            0.04,
            '     1|def upgrade() -> None:\n     2|    op.drop_column("users", "email")\n',
        ),
        ToolStarted(
            "c2", "terminal", {"command": "pytest -x tests/test_users.py"}, "pytest -x tests/test_users.py", 1
        ),
        ToolOutput("c2", "FAILED tests/test_users.py::test_users_roundtrip - KeyError: 'email'\n"),
        ToolFinished(
            "c2",
            "terminal",
            "error",
            2.31,
            "FAILED tests/test_users.py::test_users_roundtrip - KeyError: 'email'\n[exit code: 1]",
            {"exit_code": 1},
        ),
        ToolStarted("c3", "patch", {"path": "db/0042_users.py"}, "db/0042_users.py", 2),
        ToolFinished("c3", "patch", "ok", 0.01, DIFF, {"diff": DIFF}),
        ApiCallStarted(2, "hermes-4-405b", 90),
        FirstDelta(),
        TextDelta(REPLY),
        AssistantMessageDone(REPLY, None, (), "stop", usage),
        UsageUpdated(usage, usage, 42_050, 131_072),
        TurnFinished("completed", REPLY, usage),
    ]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_mid_stream(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        screen = await _feed(
            pilot,
            [TurnStarted("s", "q"), ApiCallStarted(1, "m", 90), FirstDelta(), TextDelta(REPLY[:260])],
        )
        screen.controller.set_busy(True)

    assert snap_compare(_app(tmp_path), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_spinner_before_first_delta(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        screen = await _feed(pilot, [TurnStarted("s", "q"), ApiCallStarted(1, "m", 90)])
        screen.controller.set_busy(True)

    assert snap_compare(_app(tmp_path), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_finished_turn_tool_panels_collapsed(
    snap_compare: Any, tmp_path: Path, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        screen = await _feed(pilot, _tool_turn())
        _scroll_top(screen)
        await still(pilot, screen)

    assert snap_compare(_app(tmp_path), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_finished_turn_tool_panels_expanded(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        screen = await _feed(pilot, _tool_turn())
        for panel in screen.transcript.entries_of(ToolCallEntry):
            panel.set_expanded(True)
        await still(pilot, screen)
        _scroll_top(screen)
        await still(pilot, screen)

    assert snap_compare(_app(tmp_path), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_clarify_card(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        screen = await _feed(
            pilot,
            [
                TurnStarted("s", "q"),
                ApiCallStarted(1, "m", 90),
                FirstDelta(),
                TextDelta("One question first:"),
            ],
        )
        screen.controller.set_busy(True)
        request = ClarifyRequest(
            "Which database should the migration target?", ("PostgreSQL", "SQLite", "Both"), 120.0
        )
        screen.post_message(ClarifyAsked(request))
        await still(pilot, screen)

    assert snap_compare(_app(tmp_path), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_approval_dialog(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    async def run_before(pilot: Any) -> None:
        screen = await _feed(
            pilot,
            [
                TurnStarted("s", "q"),
                ApiCallStarted(1, "m", 90),
                FirstDelta(),
                TextDelta("Cleaning the build tree."),
            ],
        )
        screen.controller.set_busy(True)
        request = ApprovalRequest(
            command="rm -rf build/ dist/ && git clean -fdx -e .env",
            reasons=("deletes files recursively", "removes untracked files with git clean"),
            pattern_keys=("recursive_delete", "git_clean"),
            timeout=300.0,
            rule="rm -rf build/ dist/ && git clean -fdx -e .env",
        )
        screen.post_message(ApprovalAsked(request))
        await still(pilot, screen)

    assert snap_compare(_app(tmp_path), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_setup_screen(
    snap_compare: Any, tmp_path: Path, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(hermes_home=Path("/home/user/.hermes"), cwd=Path("/home/user/project"))
    assert not settings.is_configured
    assert snap_compare(HermesApp(settings), terminal_size=size)


def _theme_names() -> list[str]:
    from themes.loader import builtin_themes

    return sorted(builtin_themes())


@pytest.mark.parametrize("theme", _theme_names())
def test_chat_in_every_builtin_theme(snap_compare: Any, tmp_path: Path, theme: str) -> None:
    app = _app(tmp_path)
    app.theme_manager.apply(theme)

    async def run_before(pilot: Any) -> None:
        screen = await _feed(pilot, _tool_turn())
        _scroll_top(screen)
        await still(pilot, screen)
        _scroll_top(screen)
        await still(pilot, screen)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_images_attached_and_sent(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    """A sent message's images as badges in the transcript; the next message's as removable badges."""
    from widgets.attachment_bar import AttachmentBar

    reply = "The screenshot shows the login form with the **Submit** button greyed out."
    usage = Usage(prompt_tokens=1_900, completion_tokens=40)
    turn = [
        TurnStarted("s", "q"),
        ApiCallStarted(1, "hermes-4-405b", 90),
        FirstDelta(),
        TextDelta(reply),
        AssistantMessageDone(reply, None, (), "stop", usage),
        TurnFinished("completed", reply, usage),
    ]

    async def run_before(pilot: Any) -> None:
        screen = _chat(pilot)
        screen.transcript.add_user(
            "Why is the button disabled?",
            ["login.png · 1280×720 · 212.4 KB", "console.png · 900×400 · 48.0 KB"],
        )
        screen.query_one(AttachmentBar).set_items(["error-dialog.png · 640×480 · 31.2 KB"])
        for event in turn:
            screen.bridge.on_event(event)
        screen.pipeline.drain()
        await still(pilot, screen)

    assert snap_compare(_app(tmp_path), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_prompt_history_search(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    """Ctrl+R narrowed by typing: the match in the prompt, the piece and where it is in the bar's title."""

    async def run_before(pilot: Any) -> None:
        screen = _chat(pilot)
        prompt = screen.prompt_input
        prompt.prompt_history[:] = ["run the unit tests", "git status", "run the lint", "explain calc.py"]
        prompt.focus()
        await pilot.press(*"run", "ctrl+r", *" the")
        await still(pilot, screen)

    assert snap_compare(_app(tmp_path), terminal_size=size, run_before=run_before)

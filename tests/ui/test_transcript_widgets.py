"""Pilot tests for the transcript widgets: streaming replies, reasoning, spinner, tool panels, notices, and
the transcript's bounded window and bottom-following.

Each test mounts the widgets in a tiny app and checks what a user would notice: the text shown (literal,
escapes stripped), what is expanded, the times shown, the colours of a diff, that a long session stays
responsive (bounded widget count) and that nothing becomes unreachable.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.color import Color
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget

from tests.ui.harness import screen_text
from widgets.assistant_message import AssistantMessage
from widgets.notice import NoticeLine
from widgets.spinner import Spinner
from widgets.text_safety import StreamSanitizer, sanitize_display
from widgets.tool_panel import ToolPanel, ToolPanelBody, ToolPanelHeader, ToolSnapshot
from widgets.transcript import EarlierEntries, LaterEntries, NewOutputIndicator, Transcript, TranscriptRecord
from widgets.user_message import UserMessage


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class TranscriptApp(App[None]):
    """The smallest host: one transcript filling the screen."""

    def compose(self) -> ComposeResult:
        yield Transcript()

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)


class HostApp(App[None]):
    """Mounts whatever widgets a test hands it."""

    def __init__(self, *widgets: Widget) -> None:
        super().__init__()
        self._widgets = widgets

    def compose(self) -> ComposeResult:
        yield from self._widgets


async def wait_until(pilot: Pilot, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    """Let the app run until `predicate()` holds (fails the test after `timeout`)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        await pilot.pause(0.02)


def visible_text(widget: Widget) -> str:
    """What the widget and its descendants draw, as plain text (what the user reads)."""
    lines: list[str] = []
    for node in [widget, *widget.query("*")]:
        if node.display and node.size.area:
            strips = node.render_lines(Region(0, 0, node.size.width, node.size.height))
            lines.extend(strip.text.rstrip() for strip in strips)
    return "\n".join(lines)


def theme_color(app: App[None], variable: str) -> tuple[int, int, int]:
    return Color.parse(app.theme_variables[variable]).rgb


def span_color_at(text: Text, needle: str) -> tuple[int, int, int] | None:
    """The foreground colour of the span covering the start of `needle` in `text`."""
    start = text.plain.index(needle)
    for span in text.spans:
        if span.start <= start < span.end:
            style = span.style
            assert not isinstance(style, str)
            if style.color is not None:
                triplet = style.color.get_truecolor()
                return (triplet.red, triplet.green, triplet.blue)
    return None


MARKDOWN_SAMPLE = (
    "# Plan\n\nFirst I will **read** the file, then `patch` it.\n\n"
    "- step one\n- step two\n\n```python\nprint('hello')\n```\n\n"
    "| a | b |\n|---|---|\n| 1 | 2 |\n\nDone, [bold red]x[/] stays literal.\n"
)


# ------------------------------------------------------------------------------------------------ text safety


def test_sanitize_strips_escapes_and_keeps_text_literal() -> None:
    raw = "\x1b[31mred\x1b[0m [bold red]x[/] \x1b]0;title\x07ok\x1b]52;c;ZXZpbA==\x07 a\r\nb\tc\x00\x07\x9b2J"
    assert sanitize_display(raw) == "red [bold red]x[/] ok a\nb\tc"
    assert sanitize_display("plain [b]text[/b]\n") == "plain [b]text[/b]\n"


def test_stream_sanitizer_handles_escapes_split_across_chunks() -> None:
    raw = "\x1b[31mred\x1b[0m and \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ end\r\nnext\r"
    for size in (1, 2, 3, 5, 8):
        sanitizer = StreamSanitizer()
        out = "".join(sanitizer.feed(raw[i : i + size]) for i in range(0, len(raw), size))
        out += sanitizer.flush()
        assert out == sanitize_display(raw) == "red and link end\nnext\n"


# ------------------------------------------------------------------------------------------------ assistant


async def test_2000_deltas_from_a_thread_end_with_the_exact_text_in_one_widget() -> None:
    source = MARKDOWN_SAMPLE * 12
    step = max(1, len(source) // 2000)
    deltas = [source[i : i + step] for i in range(0, len(source), step)]
    assert len(deltas) >= 2000
    app = TranscriptApp()
    async with app.run_test(size=(100, 40)) as pilot:
        message = app.transcript.start_assistant()
        await pilot.pause()

        def produce() -> None:  # the agent thread: many tiny appends
            for delta in deltas:
                message.append(delta)

        producer = threading.Thread(target=produce)
        producer.start()
        producer.join()
        assert message.text == source  # everything appended is accounted for, drawn or not

        await message.wait_until_drained()
        assert message.shown_text == source
        await message.finish()
        await pilot.pause()
        assert message.is_finished
        assert list(message.query("*")) == []  # one widget, streaming or finished: no child per block
        assert message.shown_text == source


async def test_a_very_long_reply_renders_each_finished_block_once() -> None:
    source = "".join(f"Paragraph {n} of a very long answer.\n\n" for n in range(400))
    app = TranscriptApp()
    async with app.run_test(size=(100, 40)) as pilot:
        message = app.transcript.start_assistant()
        await pilot.pause()
        rendered: list[str] = []
        render = message.render_block

        def counting(block, width):  # type: ignore[no-untyped-def]
            rendered.append(block.source)
            return render(block, width)

        message.render_block = counting  # type: ignore[method-assign]
        message._stack._render = counting  # the cache calls the renderer it was given
        for start in range(0, len(source), 500):
            message.append(source[start : start + 500])
            await message.wait_until_drained()
        assert message.shown_text == source
        finished = [text for text in rendered if text.endswith("\n\n")]
        # Each block: at most once while open per update, and once when finished; never again after.
        assert len(finished) <= 400 + len(source) // 500 + 1
        await pilot.pause()
        await message.finish()
        await pilot.pause()
        shown = message.rendered_text()
        assert "Paragraph 0 of" in shown and "Paragraph 399 of" in shown
        assert list(message.query("*")) == []


async def test_markup_and_ansi_in_model_text_are_shown_literally() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        message = app.transcript.start_assistant()
        message.append("Use [bold red]x[/] here and \x1b[31mred\x1b[0m there.")
        await message.finish()
        await pilot.pause()
        shown = visible_text(message)
        assert "Use [bold red]x[/] here and red there." in shown
        assert "\x1b" not in shown


async def test_empty_reply_renders_nothing() -> None:
    app = TranscriptApp()
    async with app.run_test() as pilot:
        message = app.transcript.start_assistant()
        message.append("  \n")
        await pilot.pause()
        await message.finish()
        await pilot.pause()
        assert not message.display
        assert message.region.height == 0


async def test_reply_finished_before_mount_is_drawn_at_once() -> None:
    message = AssistantMessage("# Saved\n\nfrom history", finished=True)
    app = HostApp(message)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert message.is_finished and message.is_drained
        assert "from history" in visible_text(message)


# ------------------------------------------------------------------------------------------------ reasoning


async def test_reasoning_streams_collapsed_and_expands_on_enter_and_click() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        block = app.transcript.start_reasoning()
        for word in ["The", "user", "wants", "a", "fix.\nFirst", "run", "the", "tests", "[bold]now[/]."]:
            block.append(word + " ")
        await wait_until(pilot, lambda: block.is_drained and "now" in block.rendered_text())
        header = block.rendered_text()
        assert header.startswith("▸ Reasoning")
        assert "[bold]now[/]" in header  # live last line, literal
        assert "\n" not in header  # collapsed: one line
        block.finish()
        assert block.text.startswith("The user wants a fix.")
        assert list(block.query("*")) == []  # one widget, streaming or finished

        block.focus()
        await pilot.press("enter")
        assert block.expanded
        assert "The user wants a fix." in block.rendered_text()
        await pilot.click(block, offset=(2, 0))
        assert not block.expanded


# ------------------------------------------------------------------------------------------------ spinner


async def test_spinner_shows_face_verb_elapsed_and_stops() -> None:
    clock = FakeClock()
    spinner = Spinner(faces=["(◔_◔)"], verbs=["pondering"], clock=clock, animate=True)
    app = HostApp(spinner)
    async with app.run_test() as pilot:
        spinner.start()
        await pilot.pause()
        assert spinner.is_running and spinner.is_animating
        clock.now += 3.2
        line = spinner.render().plain
        assert "(◔_◔)" in line and "pondering…" in line and "3.2s" in line and "esc to interrupt" in line
        assert line[0] in Spinner.FRAMES

        spinner.display = False  # hidden: no animation timer
        await wait_until(pilot, lambda: not spinner.is_animating)
        spinner.display = True
        await wait_until(pilot, lambda: spinner.is_animating)

        spinner.stop()
        assert not spinner.is_running and not spinner.is_animating


async def test_spinner_faces_and_verbs_can_be_replaced_and_frozen_for_snapshots() -> None:
    spinner = Spinner(animate=False)
    app = HostApp(spinner)
    async with app.run_test() as pilot:
        spinner.faces = ("ʕ•ᴥ•ʔ",)
        spinner.verbs = ("musing",)
        spinner.start()
        await pilot.pause()
        assert not spinner.is_animating
        assert spinner.render().plain == f"{Spinner.FRAMES[0]} ʕ•ᴥ•ʔ musing… 0.0s · esc to interrupt"


# ------------------------------------------------------------------------------------------------ tool panel


async def test_tool_panel_states_and_durations() -> None:
    clock = FakeClock()
    panel = ToolPanel("call_1", "terminal", 0, clock=clock)
    app = HostApp(panel)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        assert panel.status == "preparing"
        assert "💻 preparing terminal…" in panel.render_header(80).plain
        assert panel.is_live

        panel.set_started({"command": "pytest -q"}, "pytest -q")
        clock.now += 1.5
        header = panel.render_header(80).plain
        assert panel.status == "running"
        assert "terminal  pytest -q" in header and "1.5s" in header

        panel.set_finished("ok", 1.23, "4 passed\n[exit code: 0]", {"exit_code": 0})
        header = panel.render_header(80).plain
        assert panel.status == "ok" and not panel.is_live
        assert header.rstrip().endswith("1.2s ✓")
        assert panel.render_header(80).cell_len == 80
        assert not panel.expanded and not panel.body_visible  # success: collapsed
        assert len(list(panel.query("*"))) <= 4


async def test_a_folded_panel_is_one_widget_that_draws_its_header_until_its_body_first_shows() -> None:
    """A page of history mounts folded panels by the dozen: each is a single widget drawing its own header
    line; the header's widget and the body come with the first click, and the header is drawn once."""
    snapshot = ToolSnapshot(
        call_id="c1",
        name="terminal",
        index=0,
        status="ok",
        summary="ls -la",
        arguments={"command": "ls -la"},
        duration=0.4,
        result="alpha.txt\nbeta.txt\n[exit code: 0]",
        data={"exit_code": 0},
    )
    panel = ToolPanel.from_snapshot(snapshot)
    app = HostApp(panel)
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        assert not panel.expanded and not panel.children
        assert panel.outer_size.height == 1
        shown = screen_text(app)
        assert shown.count("terminal  ls -la") == 1 and "0.4s ✓" in shown and "alpha.txt" not in shown

        await pilot.click(ToolPanel)
        await wait_until(pilot, lambda: panel.body_visible and panel.outer_size.height > 1)
        assert [type(child) for child in panel.children] == [ToolPanelHeader, ToolPanelBody]
        shown = screen_text(app)
        assert shown.count("terminal  ls -la") == 1 and "alpha.txt" in shown and "beta.txt" in shown

        await pilot.click(ToolPanelHeader)
        await wait_until(pilot, lambda: not panel.body_visible and panel.outer_size.height == 1)
        shown = screen_text(app)
        assert shown.count("terminal  ls -la") == 1 and "alpha.txt" not in shown


async def test_nesting_under_a_folded_panel_brings_its_header_widget() -> None:
    panel = ToolPanel("c1", "delegate_task", 0)
    panel.set_started({"goal": "look around"}, "look around")
    panel.set_finished("ok", 1.0, "")
    app = HostApp(panel)
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        assert not panel.children
        panel.nest(NoticeLine("info", "subagent one"))
        await wait_until(pilot, lambda: len(panel.children) == 2)
        assert isinstance(panel.children[0], ToolPanelHeader)
        await pilot.pause()
        shown = screen_text(app)
        assert shown.count("delegate_task  look around") == 1 and "subagent one" in shown


async def test_tool_panel_header_truncates_the_summary_to_fit() -> None:
    panel = ToolPanel("c", "terminal", 0)
    panel.set_started({}, "find / -name '*.py' -exec grep -l TODO {} + | sort | uniq -c | sort -rn | head")
    panel.set_finished("ok", 12.0, "")
    app = HostApp(panel)
    async with app.run_test(size=(50, 10)) as pilot:
        await pilot.pause()
        header = panel.render_header(40)
        assert header.cell_len == 40  # exactly the width: the icon is two cells wide
        header = header.plain
        assert "…" in header and header.endswith("12.0s ✓")


async def test_running_terminal_shows_a_live_tail_and_expanded_shows_everything() -> None:
    panel = ToolPanel("call_1", "terminal", 0)
    app = HostApp(panel)
    async with app.run_test(size=(80, 40)) as pilot:
        panel.set_started({"command": "seq 100"}, "seq 100")
        for n in range(1, 101):
            panel.append_output(f"line {n}\n")
        await wait_until(pilot, lambda: panel.body_visible and "line 100" in panel.render_body().plain)
        body = panel.render_body().plain
        assert "line 71" in body and "line 70\n" not in body
        assert "… 70 earlier lines" in body

        panel.expanded = True
        body = panel.render_body().plain
        assert "line 1\n" in body and "line 100" in body

        panel.expanded = False
        panel.set_finished("ok", 0.5, "".join(f"line {n}\n" for n in range(1, 101)) + "[exit code: 0]")
        await pilot.pause()
        assert not panel.body_visible  # finished successfully: collapsed to its header
        await pilot.click(ToolPanelHeader)  # click the header to look again
        assert panel.expanded and panel.body_visible
        assert "[exit code: 0]" in panel.render_body().plain


async def test_tool_output_is_literal_escape_free_and_capped() -> None:
    panel = ToolPanel("call_1", "terminal", 0)
    app = HostApp(panel)
    async with app.run_test(size=(80, 20)) as pilot:
        panel.set_started({}, "cat log")
        panel.append_output("\x1b[31mERROR\x1b[0m [bold]x[/bold]\n")
        for _ in range(300):
            panel.append_output("y" * 999 + "\n")  # 300 KB
        panel.set_finished("error", 2.0, "Error: failed")
        await pilot.pause()
        assert panel.expanded  # errors open expanded
        output = panel.output
        assert len(output) <= ToolPanel.MAX_OUTPUT_CHARS
        assert panel.dropped_chars > 0
        body = panel.render_body().plain
        assert "earlier output not kept" in body
        assert "Error: failed" in body
        assert "\x1b" not in body

        short = ToolPanel("call_2", "terminal", 0)
        await app.mount(short)
        short.set_started({}, "echo")
        short.append_output("\x1b[31mERROR\x1b[0m [bold]x[/bold]\n")
        short.set_finished("error", 0.1, "[exit code: 1]")
        await pilot.pause()
        assert short.render_body().plain.startswith("ERROR [bold]x[/bold]\n[exit code: 1]")


@pytest.mark.parametrize(
    ("status", "expanded", "glyph"), [("denied", True, "⊘ denied"), ("cancelled", False, "⊘ cancelled")]
)
async def test_denied_opens_and_cancelled_stays_closed(status: str, expanded: bool, glyph: str) -> None:
    panel = ToolPanel("c", "terminal", 0)
    app = HostApp(panel)
    async with app.run_test() as pilot:
        panel.set_started({"command": "rm -rf /"}, "rm -rf /")
        panel.set_finished(status, 0.0, f"Command {status}")
        await pilot.pause()
        assert panel.expanded is expanded
        assert panel.render_header(60).plain.rstrip().endswith(glyph)


async def test_diff_lines_are_coloured_from_the_theme() -> None:
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n keep\n-old line\n+new line\n"
    panel = ToolPanel("c", "write_file", 0)
    app = HostApp(panel)
    async with app.run_test() as pilot:
        panel.set_started({"path": "x.py"}, "x.py")
        panel.set_finished("ok", 0.01, "Wrote x.py", {"diff": diff})
        panel.expanded = True
        await pilot.pause()
        body = panel.render_body()
        assert span_color_at(body, "+new line") == theme_color(app, "success")
        assert span_color_at(body, "-old line") == theme_color(app, "error")
        assert span_color_at(body, "@@ -1,2") == theme_color(app, "accent")
        assert span_color_at(body, " keep") is None
        assert "+new line" in visible_text(panel)


async def test_a_panel_expanded_while_a_later_entry_changes_gets_its_full_height() -> None:
    """Textual 8.2.8 lists an expanding panel for `layout: stream` only if it is not already a key of the
    screen's layout dict; with a later entry re-measured in the same frame, the panel was placed with its
    one-line height and its diff hidden under the next entry until some later full layout (seen in CI: the
    diff never showed within 10 s, 1 run in 3)."""
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,3 @@\n keep\n-old line\n+new line\n+another\n"
    app = TranscriptApp()
    async with app.run_test(size=(80, 30)) as pilot:
        transcript = app.transcript
        panel = transcript.add_tool_panel("c", "write_file", 0)
        panel.set_started({"path": "x.py"}, "x.py")
        panel.set_finished("ok", 0.01, "Wrote x.py", {"diff": diff})
        notice = transcript.add_notice("info", "after the panel")
        await pilot.pause()  # a diff opens by itself (its body is mounted as it shows)
        panel.expanded = False  # start from the folded panel
        await pilot.pause()
        await pilot.pause()
        assert panel.region.height == 1
        body = panel.query_one("ToolPanelBody")
        heights: list[int] = []  # the panel's height after each layout that shows its body

        def record(_screen: object) -> None:
            if body.display:
                heights.append(panel.region.height)

        app.screen.screen_layout_refresh_signal.subscribe(app.screen, record, immediate=True)
        panel.expanded = True
        notice.refresh(layout=True)  # a later entry re-measured in the same frame
        await pilot.pause()
        await pilot.pause()
        full = 1 + len(panel.render_body().plain.splitlines())
        assert heights and set(heights) == {full}, heights
        assert notice.region.y >= panel.region.bottom
        assert "+another" in visible_text(panel)


async def test_switching_theme_recolours_diffs_and_frozen_replies() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 24)) as pilot:
        reply = app.transcript.start_assistant()
        reply.append("## Heading\n\ntext")
        await reply.finish()
        panel = app.transcript.add_tool_panel("c", "patch", 0)
        panel.set_started({}, "x.py")
        panel.set_finished("ok", 0.1, "", {"diff": "+added\n-removed"})
        panel.expanded = True
        await pilot.pause()

        def heading_color() -> str | None:
            for strip in reply.render_lines(Region(0, 0, reply.size.width, reply.size.height)):
                for segment in strip:
                    if segment.text.strip() == "Heading" and segment.style and segment.style.color:
                        return segment.style.color.name
            return None

        before = heading_color()
        app.theme = "nord"
        await pilot.pause()
        await pilot.pause()
        assert span_color_at(panel.render_body(), "+added") == theme_color(app, "success")
        assert heading_color() not in (None, before)


async def test_todo_panel_lists_tasks_with_status_glyphs() -> None:
    todos = [
        {"id": "1", "content": "Run tests", "status": "completed"},
        {"id": "2", "content": "Patch cli.py", "status": "in_progress"},
        {"id": "3", "content": "Push [no markup]", "status": "pending"},
        {"id": "4", "content": "Rewrite", "status": "cancelled"},
    ]
    panel = ToolPanel("c", "todo", 0)
    app = HostApp(panel)
    async with app.run_test() as pilot:
        panel.set_started({}, "4 tasks")
        panel.set_finished("ok", 0.0, "…", {"todos": todos})
        await pilot.pause()
        assert panel.expanded  # the task list is worth showing without a click
        assert panel.render_body().plain == "☑ Run tests\n◐ Patch cli.py\n☐ Push [no markup]\n☒ Rewrite"
        panel.set_todos([{**todos[1], "status": "completed"}])
        assert panel.render_body().plain == "☑ Patch cli.py"


# ------------------------------------------------------------------------------------------------ notice/user


async def test_notice_and_user_message_are_literal() -> None:
    notice = NoticeLine("error", "Invalid key [red]x[/]\x1b[2J", hint="run /setup")
    user = UserMessage("hello [bold]world[/] \x1b[31mred\x1b[0m")
    app = HostApp(notice, user)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert notice.has_class("-error")
        assert notice.render().plain == "✗ Invalid key [red]x[/] — run /setup"
        assert user.render().plain == "hello [bold]world[/] red"


async def test_huge_user_message_starts_collapsed_and_expands() -> None:
    user = UserMessage("\n".join(f"row {n}" for n in range(100)))
    app = HostApp(user)
    async with app.run_test(size=(80, 40)) as pilot:
        await pilot.pause()
        shown = user.render().plain
        assert "row 11" in shown and "row 12" not in shown
        assert f"… {100 - UserMessage.PREVIEW_LINES} more lines (click/enter to expand)" in shown
        await pilot.click(user)
        assert "row 99" in user.render().plain


# ------------------------------------------------------------------------------------------------ transcript


async def populate(transcript: Transcript, count: int, pilot: Pilot, *, sample: Callable[[], int]) -> None:
    """Add `count` finished entries of every kind, as a long session would."""
    for n in range(count):
        kind = n % 4
        if kind == 0:
            transcript.add_user(f"question {n}")
        elif kind == 1:
            message = transcript.start_assistant()
            message.append(f"## Answer {n}\n\nSome **bold** text.\n\n- a\n- b\n")
            await message.finish()
        elif kind == 2:
            panel = transcript.add_tool_panel(f"call_{n}", "terminal", 0)
            panel.set_started({"command": f"ls {n}"}, f"ls {n}")
            panel.append_output("a\nb\n")
            panel.set_finished("ok", 0.1, "a\nb\n[exit code: 0]", {"exit_code": 0})
        else:
            transcript.add_notice("info", f"notice {n}")
        if n % 10 == 9:
            await pilot.pause()
            sample()


@pytest.mark.slow
async def test_long_session_keeps_widgets_bounded_and_everything_reachable() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 40)) as pilot:
        transcript = app.transcript
        peak = 0

        def sample() -> int:
            nonlocal peak
            peak = max(peak, len(app.query("*")))
            return peak

        await populate(transcript, 400, pilot, sample=sample)
        await wait_until(pilot, lambda: transcript.mounted_entry_count <= Transcript.MAX_MOUNTED)
        assert transcript.entry_count == 400
        assert transcript.archived_entry_count >= 400 - Transcript.MAX_MOUNTED
        assert peak < 600, peak
        assert len(app.query("*")) < 600
        placeholder = transcript.query_one(EarlierEntries)
        assert placeholder.display
        assert f"↑ {transcript.archived_entry_count} earlier" in placeholder.render().plain
        records = transcript.records()
        assert records[0].text == "question 0"
        assert records[1].text == "## Answer 1\n\nSome **bold** text.\n\n- a\n- b\n"

        # Scrolling to the top brings the older entries back, a page at a time, until the first one.
        # (The window stays bounded: the newest entries are unmounted on the way, behind "↓ N later".)
        for _ in range(20):
            if not transcript.earlier_entry_count:
                break
            transcript.scroll_home(animate=False)
            await pilot.pause()
            await pilot.pause()
        assert transcript.earlier_entry_count == 0
        first = transcript.query(UserMessage).first()
        assert first.text == "question 0"
        panel = transcript.tool_panel("call_2")
        assert panel is not None and panel.summary == "ls 2" and panel.output == "a\nb\n"

        # Back at the bottom, new output prunes the window again.
        transcript.scroll_to_latest()
        await pilot.pause()
        transcript.add_user("latest")
        await wait_until(pilot, lambda: transcript.mounted_entry_count <= Transcript.MAX_MOUNTED)
        assert transcript.entry_count == 401


async def test_a_forgotten_live_entry_does_not_stop_pruning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Transcript, "MAX_MOUNTED", 20)
    monkeypatch.setattr(Transcript, "PAGE_SIZE", 10)
    app = TranscriptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        transcript = app.transcript
        forgotten = transcript.start_reasoning()  # the app never calls finish()
        forgotten.append("thinking")
        stuck = transcript.add_tool_panel("lost", "terminal", 0)  # ToolFinished never arrived
        for n in range(60):
            transcript.add_notice("info", f"notice {n}")
            if n % 10 == 9:
                await pilot.pause()
        await wait_until(pilot, lambda: transcript.mounted_entry_count <= 20)
        assert forgotten.is_finished and stuck.status == "cancelled"
        kinds = [record.kind for record in transcript.records()[:2]]
        assert kinds == ["reasoning", "tool"] and transcript.entry_count == 62


async def test_resumed_history_mounts_its_tail_and_the_placeholder_loads_pages() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.transcript
        records = [TranscriptRecord.user(f"old {n}") for n in range(300)]
        await transcript.load_history(records)
        await pilot.pause()
        assert transcript.mounted_entry_count == Transcript.HISTORY_TAIL
        assert transcript.archived_entry_count == 300 - Transcript.HISTORY_TAIL
        assert transcript.is_following
        assert any(m.text == "old 299" for m in transcript.query(UserMessage))

        placeholder = transcript.query_one(EarlierEntries)
        placeholder.focus()  # keyboard users reach it with Tab; focusing scrolls it into view
        # Reaching the top may load a page by itself: let that scroll and load finish first.
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        await wait_until(pilot, lambda: not transcript._loading)
        await pilot.pause()
        before = transcript.archived_entry_count
        assert before > 0
        await pilot.press("enter")
        await wait_until(pilot, lambda: transcript.archived_entry_count == before - Transcript.PAGE_SIZE)
        oldest = transcript.archived_entry_count
        assert transcript.query(UserMessage).first().text == f"old {oldest}"


async def test_follows_the_bottom_until_the_user_scrolls_up() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        transcript = app.transcript
        for n in range(30):
            transcript.add_notice("info", f"notice {n}")
        await pilot.pause()
        assert transcript.is_following
        assert transcript.scroll_y == transcript.max_scroll_y > 0

        transcript.add_notice("info", "one more")  # following: the view moves with it
        await pilot.pause()
        assert transcript.scroll_y == transcript.max_scroll_y

        transcript.scroll_to(y=5, animate=False)  # the user scrolls up to read
        await pilot.pause()
        assert not transcript.is_following
        for n in range(5):
            transcript.add_notice("info", f"later {n}")
        await pilot.pause()
        assert transcript.scroll_y == 5  # the view stays where the user put it
        assert transcript.scroll_y < transcript.max_scroll_y
        indicator = transcript.query_one("NewOutputIndicator")
        assert indicator.display  # "↓ new output"

        transcript.focus()
        await pilot.press("end")
        await pilot.pause()
        assert transcript.is_following
        assert transcript.scroll_y == transcript.max_scroll_y
        assert not indicator.display
        transcript.add_notice("info", "followed again")
        await pilot.pause()
        assert transcript.scroll_y == transcript.max_scroll_y


async def test_entries_added_before_the_transcript_is_mounted_are_shown() -> None:
    transcript = Transcript()
    transcript.add_user("early question")
    panel = transcript.add_tool_panel("a", "read_file", 0)
    panel.set_started({"path": "README.md"}, "README.md")
    panel.set_finished("ok", 0.01, "# Readme")
    app = HostApp(transcript)
    async with app.run_test() as pilot:
        transcript.add_notice("info", "after mount")
        await pilot.pause()
        children = [w for w in transcript.children if isinstance(w, UserMessage | ToolPanel | NoticeLine)]
        assert [type(w) for w in children] == [UserMessage, ToolPanel, NoticeLine]
        assert transcript.entry_count == transcript.mounted_entry_count == 3
        assert list(transcript.children)[-2] is transcript.spinner


async def test_tool_panels_appear_in_call_order_and_spinner_stays_last() -> None:
    app = TranscriptApp()
    async with app.run_test() as pilot:
        transcript = app.transcript
        transcript.add_user("go")
        transcript.show_spinner()
        second = transcript.add_tool_panel("b", "read_file", 1)
        first = transcript.add_tool_panel("a", "terminal", 0)
        assert transcript.add_tool_panel("a", "terminal", 0) is first
        await pilot.pause()
        children = list(transcript.children)
        assert children.index(first) < children.index(second) < children.index(transcript.spinner)
        assert transcript.tool_panel("b") is second
        assert transcript.spinner.display and transcript.spinner.is_running
        transcript.hide_spinner()
        await pilot.pause()
        assert not transcript.spinner.display and not transcript.spinner.is_animating

        unnamed = transcript.add_tool_panel("", "search_files", 2)
        assert transcript.tool_panel("c", index=2) is unnamed
        assert unnamed.call_id == "c"


# ------------------------------------------------------------------------------------------------ window


def numbered_history(count: int) -> list[TranscriptRecord]:
    """A stored session of `count` entries of every kind, each naming its position."""
    records: list[TranscriptRecord] = []
    for n in range(count):
        kind = n % 4
        if kind == 0:
            records.append(TranscriptRecord.user(f"question {n}"))
        elif kind == 1:
            records.append(TranscriptRecord.assistant(f"## Answer {n}\n\nSome **bold** text.\n\n- a\n- b\n"))
        elif kind == 2:
            records.append(
                TranscriptRecord.tool_call(
                    "terminal",
                    summary=f"ls {n}",
                    result="a\nb\n[exit code: 0]",
                    call_id=f"call_{n}",
                    output="a\nb\n",
                )
            )
        else:
            records.append(TranscriptRecord.notice("info", f"notice {n}"))
    return records


class WindowProbe:
    """Samples the transcript while a test scrolls: the most entries and widgets ever mounted."""

    def __init__(self, app: TranscriptApp) -> None:
        self.app = app
        self.peak_entries = 0
        self.peak_widgets = 0

    def sample(self) -> None:
        transcript = self.app.transcript
        self.peak_entries = max(self.peak_entries, transcript.mounted_entry_count)
        self.peak_widgets = max(self.peak_widgets, len(self.app.query("*")))

    async def scroll_to_first(self, pilot: Pilot) -> int:
        """Scroll up like a user, page after page, until the first entry is mounted."""
        transcript = self.app.transcript
        pages = 0
        while transcript.earlier_entry_count:
            assert pages < 100, "the first entry never came back"
            transcript.scroll_home(animate=False)
            await pilot.pause()
            await pilot.pause()
            self.sample()
            pages += 1
        return pages

    async def scroll_to_last(self, pilot: Pilot) -> int:
        """Scroll down like a user, page after page, until no later entry is left unmounted."""
        transcript = self.app.transcript
        pages = 0
        while transcript.later_entry_count:
            assert pages < 100, "the latest entries never came back"
            transcript.scroll_end(animate=False)
            await pilot.pause()
            await pilot.pause()
            self.sample()
            pages += 1
        return pages


def in_view(transcript: Transcript, widget: Widget) -> bool:
    """Whether `widget` is (at least partly) inside the transcript's view."""
    region = widget.virtual_region
    top = transcript.scroll_y
    return (
        region.height > 0
        and region.bottom > top
        and region.y < top + transcript.scrollable_content_region.height
    )


@pytest.mark.slow
async def test_a_long_history_scrolled_to_the_first_entry_and_back_keeps_the_window_bounded() -> None:
    history = numbered_history(1000)
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.transcript
        await transcript.load_history(history)
        await pilot.pause()
        probe = WindowProbe(app)

        # Up to the very first entry: newer entries are unmounted on the way, behind "↓ N later entries".
        pages = await probe.scroll_to_first(pilot)
        assert pages >= (1000 - Transcript.HISTORY_TAIL) // Transcript.PAGE_SIZE
        assert probe.peak_entries <= Transcript.MAX_MOUNTED, probe.peak_entries
        assert probe.peak_widgets < 600, probe.peak_widgets
        assert transcript.entry_count == 1000
        assert transcript.later_entry_count >= 1000 - Transcript.MAX_MOUNTED
        assert transcript.archived_entry_count == transcript.later_entry_count
        later = transcript.query_one(LaterEntries)
        assert later.display
        assert later.render().plain.startswith(f"↓ {transcript.later_entry_count} later entries")
        assert not transcript.query_one(EarlierEntries).display
        transcript.scroll_home(animate=False)
        await pilot.pause()
        first = transcript.query(UserMessage).first()
        assert first.text == "question 0" and in_view(transcript, first)
        assert transcript.records() == history

        # Back down to the newest entry: the tail is mounted again, the top unmounted again.
        await probe.scroll_to_last(pilot)
        assert probe.peak_entries <= Transcript.MAX_MOUNTED, probe.peak_entries
        assert probe.peak_widgets < 600, probe.peak_widgets
        assert not later.display
        assert transcript.earlier_entry_count >= 1000 - Transcript.MAX_MOUNTED
        transcript.scroll_end(animate=False)
        await pilot.pause()
        last = transcript.query(NoticeLine).last()
        assert last.text == "notice 999" and in_view(transcript, last)
        assert transcript.records() == history

        # At the bottom again, the view follows new output.
        assert transcript.is_following
        transcript.add_notice("info", "new output")
        await pilot.pause()
        await pilot.pause()
        assert transcript.scroll_y == transcript.max_scroll_y
        assert in_view(transcript, transcript.query(NoticeLine).last())
        assert transcript.records() == [*history, TranscriptRecord.notice("info", "new output")]


@pytest.mark.slow
async def test_scroll_to_latest_from_the_first_entry_jumps_to_the_newest_and_follows_again() -> None:
    history = numbered_history(1000)
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.transcript
        await transcript.load_history(history)
        await pilot.pause()
        await WindowProbe(app).scroll_to_first(pilot)
        assert transcript.later_entry_count > 0 and not transcript.is_following

        transcript.add_notice("info", "arrived while reading")  # below the gap: shown by the indicator
        await pilot.pause()
        indicator = transcript.query_one(NewOutputIndicator)
        assert indicator.display

        transcript.focus()
        await pilot.press("end")  # `scroll_to_latest()`
        await wait_until(pilot, lambda: transcript.later_entry_count == 0)
        await pilot.pause()
        await pilot.pause()
        assert transcript.is_following and not indicator.display
        assert transcript.mounted_entry_count <= Transcript.HISTORY_TAIL + 1
        assert transcript.earlier_entry_count == 1001 - transcript.mounted_entry_count
        assert transcript.scroll_y == transcript.max_scroll_y
        newest = transcript.query(NoticeLine).last()
        assert newest.text == "arrived while reading" and in_view(transcript, newest)

        for n in range(3):
            transcript.add_notice("info", f"followed {n}")
            await pilot.pause()
            await pilot.pause()
            assert transcript.scroll_y == transcript.max_scroll_y
            assert in_view(transcript, transcript.query(NoticeLine).last())
        assert transcript.records() == [
            *history,
            TranscriptRecord.notice("info", "arrived while reading"),
            *(TranscriptRecord.notice("info", f"followed {n}") for n in range(3)),
        ]


async def test_a_streaming_reply_stays_mounted_while_the_user_scrolls_up_through_the_history() -> None:
    history = numbered_history(400)
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.transcript
        await transcript.load_history(history)
        transcript.add_user("one more question")
        reply = transcript.start_assistant()
        reply.append("Streaming ")
        panel = transcript.add_tool_panel("live", "terminal", 0)
        panel.set_started({"command": "sleep 9"}, "sleep 9")
        await pilot.pause()

        probe = WindowProbe(app)
        pages = 0
        while transcript.earlier_entry_count:  # the user scrolls up while the turn runs
            assert pages < 50
            transcript.scroll_home(animate=False)
            reply.append(f"part {pages} ")
            await pilot.pause()
            await pilot.pause()
            probe.sample()
            pages += 1
            assert reply.is_mounted and panel.is_mounted  # live entries are never unmounted
        assert transcript.later_entry_count > 0  # the finished entries between were
        assert probe.peak_entries <= Transcript.MAX_MOUNTED + 2, probe.peak_entries
        assert transcript.query(UserMessage).first().text == "question 0"

        # The turn goes on below the gap, and ends; nothing of it is lost.
        panel.append_output("done\n")
        panel.set_finished("ok", 9.0, "done\n[exit code: 0]", {"exit_code": 0})
        reply.append("and the end.")
        await reply.finish()
        second = transcript.start_assistant()
        second.append("A second segment.")
        await second.finish()
        await pilot.pause()
        assert reply.is_mounted and reply.is_finished
        records = transcript.records()
        assert records[:400] == history
        assert records[400] == TranscriptRecord.user("one more question")
        assert (
            records[401].text == "Streaming " + "".join(f"part {n} " for n in range(pages)) + "and the end."
        )
        assert records[402].kind == "tool" and records[402].tool is not None
        assert records[402].tool.status == "ok" and records[402].tool.output == "done\n"
        assert records[403] == TranscriptRecord.assistant("A second segment.")
        assert len(records) == transcript.entry_count == 404

        await transcript.scroll_to_latest()
        await pilot.pause()
        assert transcript.is_following and transcript.later_entry_count == 0
        assert reply.is_mounted and second.is_mounted  # the jump kept the live end, did not rebuild it
        assert transcript.records() == records


async def test_pages_loaded_above_or_below_do_not_move_the_view(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Transcript, "MAX_MOUNTED", 40)
    monkeypatch.setattr(Transcript, "PAGE_SIZE", 20)
    monkeypatch.setattr(Transcript, "HISTORY_TAIL", 20)
    history = numbered_history(200)
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.transcript
        await transcript.load_history(history)
        await pilot.pause()
        await WindowProbe(app).scroll_to_first(pilot)
        assert transcript.later_entry_count > 0

        def topmost() -> tuple[Widget, int]:
            widget = next(w for w in transcript.query(UserMessage) if in_view(transcript, w))
            return widget, widget.virtual_region.y - round(transcript.scroll_y)

        # A page below the window (click or Enter on "↓ N later entries"), and the top pruned: the view
        # stays. (Scrolled to just short of where scrolling itself would load the page.)
        later = transcript.query_one(LaterEntries)
        viewport = transcript.scrollable_content_region.height
        transcript.scroll_to(y=later.virtual_region.y - viewport - Transcript.LOAD_MARGIN - 2, animate=False)
        await pilot.pause()
        assert transcript.later_entry_count > 0
        before_later, before_top = transcript.later_entry_count, transcript.earlier_entry_count
        widget, offset = topmost()
        transcript.post_message(LaterEntries.Activated())
        await wait_until(pilot, lambda: transcript.later_entry_count < before_later)
        await pilot.pause()
        assert transcript.later_entry_count == max(0, before_later - Transcript.PAGE_SIZE)
        assert transcript.earlier_entry_count > before_top  # the top was unmounted
        assert widget.is_mounted and topmost() == (widget, offset)
        assert later.display == (transcript.later_entry_count > 0)

        # A page above the window, and the bottom pruned: the view stays.
        transcript.scroll_to(y=Transcript.LOAD_MARGIN + 3, animate=False)
        await pilot.pause()
        before_top = transcript.earlier_entry_count
        widget, offset = topmost()
        await transcript.load_earlier()
        await pilot.pause()
        await pilot.pause()
        assert transcript.earlier_entry_count == before_top - Transcript.PAGE_SIZE
        assert transcript.mounted_entry_count <= Transcript.MAX_MOUNTED
        assert widget.is_mounted and topmost() == (widget, offset)
        assert transcript.records() == history


class RecordingCollector:
    """Stands in for the app's `TurnCollector`: what the transcript told it, and the `later` it asked for."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.later: list[Callable[[Callable[[], None]], object]] = []

    def pause(self, holder: str = "turn") -> None:
        self.calls.append(f"pause {holder}")

    def resume(self, later: Callable[[Callable[[], None]], object], holder: str = "turn") -> None:
        self.calls.append(f"resume {holder}")
        self.later.append(later)


async def test_history_and_page_loads_hold_the_collector_until_the_scrolling_rests(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(Transcript, "PAGE_SIZE", 20)
    monkeypatch.setattr(Transcript, "HISTORY_TAIL", 20)
    monkeypatch.setattr(Transcript, "PAGES_AT_REST", 0.2)
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.transcript
        collector = RecordingCollector()
        transcript.collector = collector
        await transcript.load_history(numbered_history(100))
        assert collector.calls == ["pause pages", "resume pages"]
        await transcript.load_earlier()
        assert collector.calls[2:] == ["pause pages", "resume pages"]
        ran: list[float] = []
        started = time.monotonic()
        collector.later[-1](lambda: ran.append(time.monotonic() - started))
        assert ran == []  # not in the same breath as the page
        await wait_until(pilot, lambda: bool(ran))
        assert ran[0] >= 0.2

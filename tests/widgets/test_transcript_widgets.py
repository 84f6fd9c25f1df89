"""Pilot tests for the transcript: one Line-API view over the whole conversation, and its entries (streaming
replies, reasoning, spinner, tool panels, notices, user messages).

Each test drives the transcript in a tiny app and checks what a user would notice: the text shown (literal,
escapes stripped), what is expanded, the times shown, the colours of a diff, that a long conversation is one
widget with a scrollbar over all of it, that the view follows the bottom until the user scrolls up, and that
nothing moves under the user's eyes when heights are corrected.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.color import Color
from textual.pilot import Pilot
from textual.widgets import Input

from tests.waiting import wait_for_async
from widgets.support.text_safety import StreamSanitizer, sanitize_display
from widgets.transcript.entries.notice import NoticeEntry
from widgets.transcript.entries.reasoning import ReasoningEntry
from widgets.transcript.entries.reply import ReplyEntry
from widgets.transcript.entries.subagents import SubagentList
from widgets.transcript.entries.thinking import ThinkingLine
from widgets.transcript.entries.tool_call import ToolCallEntry
from widgets.transcript.entries.user_message import UserMessageEntry
from widgets.transcript.record import ToolSnapshot
from widgets.transcript.view import Transcript, TranscriptRecord


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class TranscriptApp(App[None]):
    """The smallest host: one transcript filling the screen, and an input like the chat's prompt."""

    def __init__(self, *, prompt: bool = False) -> None:
        super().__init__()
        self._prompt = prompt

    def compose(self) -> ComposeResult:
        yield Transcript()
        if self._prompt:
            yield Input(id="prompt")

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)


async def wait_until(pilot: Pilot, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    """Let the app run until `predicate()` holds (fails the test after `timeout`)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        await pilot.pause(0.02)


def shown(transcript: Transcript) -> str:
    """What the transcript draws in its view now, as plain text."""
    height = transcript.scrollable_content_region.height
    return "\n".join(transcript.render_line(y).text.rstrip() for y in range(height))


def text_of(transcript: Transcript, entry: object) -> str:
    assert isinstance(entry, ReplyEntry | ReasoningEntry | ToolCallEntry | NoticeEntry | UserMessageEntry)
    return entry.rendered_text(transcript.entry_width)


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


# ------------------------------------------------------------------------------------------------ replies


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
        assert list(app.transcript.query("*")) == []  # the whole transcript is one widget
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

        message._stack._render = counting  # the cache calls the renderer it was given
        for start in range(0, len(source), 500):
            message.append(source[start : start + 500])
            await message.wait_until_drained()
            await pilot.pause()
        assert message.shown_text == source
        finished = [text for text in rendered if text.endswith("\n\n")]
        # Each block: at most once while open per update, and once when finished; never again after.
        assert len(finished) <= 400 + len(source) // 500 + 1
        await message.finish()
        await pilot.pause()
        text = text_of(app.transcript, message)
        assert "Paragraph 0 of" in text and "Paragraph 399 of" in text
        assert "Paragraph 399 of" in shown(app.transcript)  # following: the end is in view


async def test_markup_and_ansi_in_model_text_are_shown_literally() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        message = app.transcript.start_assistant()
        message.append("Use [bold red]x[/] here and \x1b[31mred\x1b[0m there.")
        await message.finish()
        await pilot.pause()
        view = shown(app.transcript)
        assert "Use [bold red]x[/] here and red there." in view
        assert "\x1b" not in view


async def test_empty_reply_renders_nothing() -> None:
    app = TranscriptApp()
    async with app.run_test() as pilot:
        transcript = app.transcript
        transcript.add_notice("info", "before")
        message = transcript.start_assistant()
        message.append("  \n")
        await pilot.pause()
        await message.finish()
        await pilot.pause()
        assert not message.visible
        assert message.measure(80) == 0
        assert transcript.virtual_size.height == 2 + Transcript.MARGIN  # the notice, its gap, the margin


async def test_a_reply_loaded_from_history_is_drawn_as_the_streamed_one_was() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 40)) as pilot:
        transcript = app.transcript
        streamed = transcript.start_assistant()
        for start in range(0, len(MARKDOWN_SAMPLE), 7):
            streamed.append(MARKDOWN_SAMPLE[start : start + 7])
        await streamed.finish()
        await pilot.pause()
        live = text_of(transcript, streamed)
        await transcript.load_history([TranscriptRecord.assistant(MARKDOWN_SAMPLE)])
        await pilot.pause()
        (loaded,) = transcript.entries_of(ReplyEntry)
        assert loaded is not streamed and loaded.is_finished and loaded.is_drained
        assert text_of(transcript, loaded) == live
        assert "Done, [bold red]x[/] stays literal." in shown(transcript)


# ------------------------------------------------------------------------------------------------ reasoning


async def test_reasoning_streams_collapsed_and_expands_on_enter_and_click() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.transcript
        block = transcript.start_reasoning()
        for word in ["The", "user", "wants", "a", "fix.\nFirst", "run", "the", "tests", "[bold]now[/]."]:
            block.append(word + " ")
        await wait_until(pilot, lambda: block.is_drained and "now" in text_of(transcript, block))
        header = text_of(transcript, block)
        assert header.strip().startswith("▸ Reasoning")
        assert "[bold]now[/]" in header  # live last line, literal
        assert "\n" not in header  # collapsed: one line
        block.finish()
        assert block.text.startswith("The user wants a fix.")

        transcript.focus()
        await pilot.pause()
        assert transcript.cursor_entry is block
        await pilot.press("enter")
        assert block.expanded
        assert "The user wants a fix." in shown(transcript)
        await pilot.click(Transcript, offset=(4, 2))  # the header: after the gap, inside the padding
        assert not block.expanded


# ------------------------------------------------------------------------------------------------ spinner


async def test_spinner_shows_face_verb_elapsed_and_stops() -> None:
    clock = FakeClock()
    app = TranscriptApp()
    async with app.run_test() as pilot:
        transcript = app.transcript
        spinner = transcript.spinner
        spinner.faces = ["(◔_◔)"]
        spinner.verbs = ["pondering"]
        spinner._clock = clock
        transcript.show_spinner()
        await pilot.pause()
        assert spinner.is_running and spinner.is_animating
        clock.now += 3.2
        line = spinner.render().plain
        assert "(◔_◔)" in line and "pondering…" in line and "3.2s" in line and "esc to interrupt" in line
        assert line[0] in ThinkingLine.FRAMES
        await wait_until(pilot, lambda: "pondering…" in shown(transcript))

        transcript.hide_spinner()
        await pilot.pause()
        assert not spinner.is_running and not spinner.is_animating
        assert "pondering" not in shown(transcript)
        await wait_until(pilot, lambda: not transcript.pacer.ticking)  # nothing moves: no timer runs


async def test_spinner_faces_and_verbs_can_be_replaced_and_frozen_for_snapshots() -> None:
    spinner = ThinkingLine(animate=False)
    spinner.faces = ("ʕ•ᴥ•ʔ",)
    spinner.verbs = ("musing",)
    spinner.start()
    assert not spinner.animates
    assert spinner.render().plain == f"{ThinkingLine.FRAMES[0]} ʕ•ᴥ•ʔ musing… 0.0s · esc to interrupt"


# ------------------------------------------------------------------------------------------------ tool panels


async def test_tool_panel_states_and_durations() -> None:
    clock = FakeClock()
    app = TranscriptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        panel = ToolCallEntry("call_1", "terminal", 0, clock=clock)
        app.transcript._add(panel)
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
        assert panel.measure(78) == 2  # its gap and its header


async def test_a_tool_panel_shows_the_tools_own_progress_while_it_runs() -> None:
    clock = FakeClock()
    panel = ToolCallEntry("c", "mcp_fx_steps", 0, clock=clock)
    panel.set_started({}, "n=3")
    clock.now += 2.0
    panel.set_progress(2, 3, "indexing\x1b[31m files\n")
    header = panel.render_header(80).plain
    assert "indexing files · 2/3  2.0s" in header and "\x1b" not in header
    panel.set_progress(0.5, None, "x" * 100)
    assert panel.progress_text == "x" * (ToolCallEntry.PROGRESS_MESSAGE_CELLS - 1) + "… · 0.5"
    assert panel.render_header(80).cell_len == 80
    panel.set_finished("ok", 2.5, "3 steps done")
    assert panel.progress_text == "" and "0.5" not in panel.render_header(80).plain


async def test_tool_panel_header_truncates_the_summary_to_fit() -> None:
    panel = ToolCallEntry("c", "terminal", 0)
    panel.set_started({}, "find / -name '*.py' -exec grep -l TODO {} + | sort | uniq -c | sort -rn | head")
    panel.set_finished("ok", 12.0, "")
    header = panel.render_header(40)
    assert header.cell_len == 40  # exactly the width: the icon is two cells wide
    assert "…" in header.plain and header.plain.endswith("12.0s ✓")


async def test_running_terminal_shows_a_live_tail_and_expanded_shows_everything() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 50)) as pilot:
        transcript = app.transcript
        panel = transcript.add_tool_panel("call_1", "terminal", 0)
        panel.set_started({"command": "seq 100"}, "seq 100")
        for n in range(1, 101):
            panel.append_output(f"line {n}\n")
        await wait_until(pilot, lambda: panel.body_visible and "line 100" in shown(transcript))
        body = panel.render_body().plain
        assert "line 71" in body and "line 70\n" not in body
        assert "… 70 earlier lines" in body
        view = shown(transcript)
        assert "│ line 100" in view and "│ line 70" not in view  # the tail, under the panel's border

        panel.set_expanded(True)
        body = panel.render_body().plain
        assert "line 1\n" in body and "line 100" in body

        panel.set_expanded(False)
        panel.set_finished("ok", 0.5, "".join(f"line {n}\n" for n in range(1, 101)) + "[exit code: 0]")
        await pilot.pause()
        assert not panel.body_visible  # finished successfully: collapsed to its header
        assert "line 100" not in shown(transcript)
        await pilot.click(Transcript, offset=(4, 1))  # click the header to look again
        assert panel.expanded and panel.body_visible
        assert "[exit code: 0]" in panel.render_body().plain


async def test_tool_output_is_literal_escape_free_and_capped() -> None:
    panel = ToolCallEntry("call_1", "terminal", 0)
    panel.set_started({}, "cat log")
    panel.append_output("\x1b[31mERROR\x1b[0m [bold]x[/bold]\n")
    for _ in range(300):
        panel.append_output("y" * 999 + "\n")  # 300 KB
    panel.set_finished("error", 2.0, "Error: failed")
    assert panel.expanded  # errors open expanded
    assert len(panel.output) <= ToolCallEntry.MAX_OUTPUT_CHARS
    assert panel.dropped_chars > 0
    body = panel.render_body().plain
    assert "earlier output not kept" in body
    assert "Error: failed" in body
    assert "\x1b" not in body

    short = ToolCallEntry("call_2", "terminal", 0)
    short.set_started({}, "echo")
    short.append_output("\x1b[31mERROR\x1b[0m [bold]x[/bold]\n")
    short.set_finished("error", 0.1, "[exit code: 1]")
    assert short.render_body().plain.startswith("ERROR [bold]x[/bold]\n[exit code: 1]")


@pytest.mark.parametrize(
    ("status", "expanded", "glyph"), [("denied", True, "⊘ denied"), ("cancelled", False, "⊘ cancelled")]
)
async def test_denied_opens_and_cancelled_stays_closed(status: str, expanded: bool, glyph: str) -> None:
    panel = ToolCallEntry("c", "terminal", 0)
    panel.set_started({"command": "rm -rf /"}, "rm -rf /")
    panel.set_finished(status, 0.0, f"Command {status}")
    assert panel.expanded is expanded
    assert panel.render_header(60).plain.rstrip().endswith(glyph)


async def test_diff_lines_are_coloured_from_the_theme() -> None:
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n keep\n-old line\n+new line\n"
    app = TranscriptApp()
    async with app.run_test() as pilot:
        panel = app.transcript.add_tool_panel("c", "write_file", 0)
        panel.set_started({"path": "x.py"}, "x.py")
        panel.set_finished("ok", 0.01, "Wrote x.py", {"diff": diff})
        await pilot.pause()
        assert panel.expanded  # a file edit opens with its diff
        body = panel.render_body()
        assert span_color_at(body, "+new line") == theme_color(app, "success")
        assert span_color_at(body, "-old line") == theme_color(app, "error")
        assert span_color_at(body, "@@ -1,2") == theme_color(app, "accent")
        assert span_color_at(body, " keep") is None
        assert "+new line" in shown(app.transcript)


async def test_a_panel_expanded_while_a_later_entry_changes_gets_its_full_height() -> None:
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,3 @@\n keep\n-old line\n+new line\n+another\n"
    app = TranscriptApp()
    async with app.run_test(size=(80, 30)) as pilot:
        transcript = app.transcript
        panel = transcript.add_tool_panel("c", "write_file", 0)
        panel.set_started({"path": "x.py"}, "x.py")
        panel.set_finished("ok", 0.01, "Wrote x.py", {"diff": diff})
        transcript.add_notice("info", "after the panel")
        panel.set_expanded(False)
        await pilot.pause()
        panel.set_expanded(True)
        transcript.add_notice("info", "changed in the same frame")
        await pilot.pause()
        view = shown(transcript).splitlines()
        another = next(n for n, line in enumerate(view) if "+another" in line)
        after = next(n for n, line in enumerate(view) if "after the panel" in line)
        assert another < after  # the whole diff, then the next entry below it


async def test_switching_theme_recolours_diffs_and_frozen_replies() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 24)) as pilot:
        transcript = app.transcript
        reply = transcript.start_assistant()
        reply.append("## Heading\n\ntext")
        await reply.finish()
        panel = transcript.add_tool_panel("c", "patch", 0)
        panel.set_started({}, "x.py")
        panel.set_finished("ok", 0.1, "", {"diff": "+added\n-removed"})
        await pilot.pause()

        def heading_color() -> str | None:
            for y in range(transcript.scrollable_content_region.height):
                for segment in transcript.render_line(y):
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
    app = TranscriptApp()
    async with app.run_test() as pilot:
        panel = app.transcript.add_tool_panel("c", "todo", 0)
        panel.set_started({}, "4 tasks")
        panel.set_finished("ok", 0.0, "…", {"todos": todos})
        await pilot.pause()
        assert panel.expanded  # the task list is worth showing without a click
        assert panel.render_body().plain == "☑ Run tests\n◐ Patch cli.py\n☐ Push [no markup]\n☒ Rewrite"
        assert "│ ◐ Patch cli.py" in shown(app.transcript)
        panel.set_todos([{**todos[1], "status": "completed"}])
        assert panel.render_body().plain == "☑ Patch cli.py"


async def test_subagents_show_under_their_panel_and_are_cut_off_with_the_turn() -> None:
    from agent.core.events import ChildStarted

    app = TranscriptApp()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.transcript
        panel = transcript.add_tool_panel("d", "delegate_task", 0)
        panel.set_started({}, "two tasks")
        children = panel.nest(SubagentList())
        assert panel.nest(SubagentList()) is children  # the first one nested stays
        children.child_started(ChildStarted(call_id="d", child=0, goal="read the docs", model="m"))
        await pilot.pause()
        assert "◐ subagent: read the docs" in shown(transcript)
        children.cancel_running()
        await pilot.pause()
        assert "interrupted" in shown(transcript)


# ------------------------------------------------------------------------------------------------ notice/user


async def test_notice_and_user_message_are_literal() -> None:
    app = TranscriptApp()
    async with app.run_test() as pilot:
        transcript = app.transcript
        notice = transcript.add_notice("error", "Invalid key [red]x[/]\x1b[2J", hint="run /setup")
        user = transcript.add_user("hello [bold]world[/] \x1b[31mred\x1b[0m")
        await pilot.pause()
        assert notice.style_class() == "notice--error"
        assert notice.render_text().plain == "✗ Invalid key [red]x[/] — run /setup"
        assert user.render_text().plain == "hello [bold]world[/] red"
        view = shown(transcript)
        assert "✗ Invalid key [red]x[/] — run /setup" in view and "▌ hello [bold]world[/] red" in view
        error = notice.line(1, 78)
        assert any(segment.style and segment.style.color for segment in error)


async def test_huge_user_message_starts_collapsed_and_expands() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 40)) as pilot:
        transcript = app.transcript
        user = transcript.add_user("\n".join(f"row {n}" for n in range(100)))
        await pilot.pause()
        text = user.render_text().plain
        assert "row 11" in text and "row 12" not in text
        assert f"… {100 - UserMessageEntry.PREVIEW_LINES} more lines (click/enter to expand)" in text
        transcript.scroll_to_first()
        await pilot.click(Transcript, offset=(4, 2))
        assert user.expanded
        assert "row 99" in user.render_text().plain


# ------------------------------------------------------------------------------------------------ the view


def history(count: int) -> list[TranscriptRecord]:
    """A long stored session: every kind of entry, some long."""
    records: list[TranscriptRecord] = []
    for n in range(count):
        kind = n % 4
        if kind == 0:
            records.append(TranscriptRecord.user(f"question {n}"))
        elif kind == 1:
            body = "\n\n".join(f"Paragraph {p} of answer {n}, " + "words " * 12 for p in range(n % 7 + 1))
            records.append(TranscriptRecord.assistant(f"## Answer {n}\n\n{body}\n\n- a\n- b\n"))
        elif kind == 2:
            records.append(
                TranscriptRecord.tool_call("terminal", summary=f"ls {n}", output="a\nb\n", call_id=f"c{n}")
            )
        else:
            records.append(TranscriptRecord.notice("info", f"notice {n}"))
    return records


async def test_a_resumed_1200_entry_session_is_one_widget_and_its_scrollbar_covers_all_of_it() -> None:
    app = TranscriptApp(prompt=True)
    async with app.run_test(size=(120, 40)) as pilot:
        transcript = app.transcript
        await transcript.load_history(history(1200))
        await pilot.pause()
        assert len(transcript.entries) == 1200
        assert list(transcript.query("*")) == []  # no widget per entry, no placeholder
        assert "Answer 1197" in shown(transcript) or "notice 1199" in shown(transcript)
        assert transcript.is_following and transcript.scroll_y == transcript.max_scroll_y
        total = transcript.virtual_size.height
        assert total >= 1200 * 2  # every entry is on the canvas (estimated until drawn)
        assert "earlier entries" not in shown(transcript)

        transcript.scroll_to_first()
        await pilot.pause()
        assert transcript.scroll_y == 0
        assert "question 0" in shown(transcript)
        transcript.scroll_to_latest()
        await pilot.pause()
        assert transcript.scroll_y == transcript.max_scroll_y
        assert "notice 1199" in shown(transcript)

        # Anywhere in between, as a drag of the scrollbar would: the entries there are drawn at once.
        transcript.scroll_to(y=transcript.max_scroll_y // 2, animate=False, immediate=True)
        await pilot.pause()
        middle = shown(transcript)
        assert "question" in middle or "Answer" in middle or "notice" in middle, middle
        assert not transcript.is_following


async def test_correcting_estimated_heights_never_moves_what_the_user_reads() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(90, 30)) as pilot:
        transcript = app.transcript
        await transcript.load_history(history(400))
        await pilot.pause()
        transcript.scroll_to(y=transcript.max_scroll_y // 3, animate=False, immediate=True)
        await pilot.pause()
        before = shown(transcript)
        for _ in range(8):  # page up through entries never drawn at this width: estimates corrected
            transcript.page(-1)
            await pilot.pause()
            top = shown(transcript).splitlines()
            transcript.page(1)
            await pilot.pause()
            assert shown(transcript) == before  # back down: exactly the same lines
            transcript.page(-1)
            await pilot.pause()
            assert shown(transcript).splitlines() == top
            before = shown(transcript)


async def test_pageup_in_the_prompt_scrolls_and_ctrl_home_ctrl_end_jump() -> None:
    from widgets.prompt.input import PromptInput

    class Chat(App[None]):
        def compose(self) -> ComposeResult:
            yield Transcript()
            yield PromptInput(id="prompt")

        def on_prompt_input_scroll_transcript(self, message: PromptInput.ScrollTranscript) -> None:
            self.query_one(Transcript).go(message.where)  # as the chat screen does

    app = Chat()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        prompt = app.query_one(PromptInput)
        await transcript.load_history(history(300))
        prompt.focus()
        prompt.text = "draft"
        await pilot.pause()
        bottom = transcript.scroll_y
        await pilot.press("pageup")
        assert transcript.scroll_y < bottom and not transcript.is_following
        assert app.focused is prompt and prompt.text == "draft"
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert transcript.scroll_y == 0 and "question 0" in shown(transcript)
        await pilot.press("pagedown")
        assert transcript.scroll_y > 0
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert transcript.is_following and transcript.scroll_y == transcript.max_scroll_y


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

        transcript.scroll_to(y=5, animate=False, immediate=True)  # the user scrolls up to read
        await pilot.pause()
        assert not transcript.is_following
        for n in range(5):
            transcript.add_notice("info", f"later {n}")
        await pilot.pause()
        assert transcript.scroll_y == 5  # the view stays where the user put it
        assert transcript.scroll_y < transcript.max_scroll_y
        assert transcript.new_output_shown
        assert shown(transcript).splitlines()[-1].strip() == Transcript.NEW_OUTPUT

        transcript.focus()
        await pilot.press("end")
        await pilot.pause()
        assert transcript.is_following
        assert transcript.scroll_y == transcript.max_scroll_y
        assert not transcript.new_output_shown
        transcript.add_notice("info", "followed again")
        await pilot.pause()
        assert transcript.scroll_y == transcript.max_scroll_y
        assert "followed again" in shown(transcript)


async def test_a_streaming_reply_below_does_not_move_the_view_while_the_user_reads_above() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        transcript = app.transcript
        await transcript.load_history(history(80))
        reply = transcript.start_assistant()
        await pilot.pause()
        transcript.scroll_to(y=30, animate=False, immediate=True)
        await pilot.pause()
        before = shown(transcript)
        for n in range(40):
            reply.append(f"streamed line {n}\n\n")
        await reply.wait_until_drained()
        await pilot.pause()
        assert not transcript.is_following
        assert shown(transcript).split("\n")[:-1] == before.split("\n")[:-1]  # the same lines in view
        assert transcript.new_output_shown
        await pilot.click(Transcript, offset=(10, transcript.scrollable_content_region.height - 1))
        await pilot.pause()
        assert transcript.is_following and "streamed line 39" in shown(transcript)


@pytest.mark.parametrize("lines_up", [1, 2, 3])
async def test_a_small_scroll_up_mid_stream_shows_the_new_output_bar(lines_up: int) -> None:
    """A wheel notch during a stream: the reply's first line is still on screen, its growth is below the
    view, and the bar says so (it compared the reply's top with the view's bottom, so it never came)."""
    app = TranscriptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        transcript = app.transcript
        await transcript.load_history(history(10))
        reply = transcript.start_assistant()
        for n in range(12):
            reply.append(f"streamed line {n}\n\n")
        await reply.wait_until_drained()
        await pilot.pause()
        assert transcript.is_following
        transcript.scroll_to(y=transcript.scroll_y - lines_up, animate=False, immediate=True)
        await pilot.pause()
        assert not transcript.is_following
        before = shown(transcript)
        assert "streamed line" in before  # the growing reply is in view, its growth will be below
        for n in range(12, 16):
            reply.append(f"streamed line {n}\n\n")
        await reply.wait_until_drained()
        await pilot.pause()
        assert not transcript.is_following
        assert shown(transcript).split("\n")[:-1] == before.split("\n")[:-1]  # the view stays
        assert transcript.new_output_shown
        assert shown(transcript).splitlines()[-1].strip() == Transcript.NEW_OUTPUT


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
        entries = list(transcript.entries)
        assert entries.index(first) < entries.index(second)
        assert transcript.tool_panel("b") is second
        lines = [line for line in shown(transcript).splitlines() if line.strip()]
        assert "terminal" in lines[1] and "read_file" in lines[2] and "esc to interrupt" in lines[3]
        assert first.gap == 1 and second.gap == 0  # consecutive panels sit together
        transcript.hide_spinner()
        await pilot.pause()
        assert not transcript.spinner.display and not transcript.spinner.is_animating

        unnamed = transcript.add_tool_panel("", "search_files", 2)
        assert transcript.tool_panel("c", index=2) is unnamed
        assert unnamed.call_id == "c"


async def test_the_cursor_walks_the_entries_that_open_and_enter_toggles_them() -> None:
    app = TranscriptApp(prompt=True)
    async with app.run_test(size=(80, 30)) as pilot:
        transcript = app.transcript
        transcript.add_user("go")
        panel = transcript.add_tool_panel("a", "terminal", 0)
        panel.set_started({}, "ls")
        panel.append_output("file\n")
        panel.set_finished("ok", 0.1, "file\n")
        reasoning = transcript.start_reasoning()
        reasoning.append("thinking")
        reasoning.finish()
        transcript.add_notice("info", "done")
        await pilot.pause()
        transcript.focus()
        await pilot.pause()
        assert transcript.cursor_entry is reasoning  # the last one in view that opens
        await pilot.press("up")
        assert transcript.cursor_entry is panel
        await pilot.press("enter")
        assert panel.expanded and "│ file" in shown(transcript)
        await pilot.press("space")
        assert not panel.expanded
        cursor = [y for y in range(20) if transcript.render_line(y).text.strip().startswith("▸ 💻")]
        assert cursor, "the panel's header is drawn"
        highlighted = transcript.render_line(cursor[0])
        background = {segment.style.bgcolor for segment in highlighted if segment.style}
        plain = {segment.style.bgcolor for segment in transcript.render_line(0) if segment.style}
        assert background != plain  # the cursor's entry stands out


async def test_y_and_enter_copy_the_message_at_the_cursor_whole() -> None:
    app = TranscriptApp(prompt=True)
    async with app.run_test(size=(40, 30)) as pilot:
        transcript = app.transcript
        question = "a question long enough that the transcript wraps it over several rows"
        transcript.add_user(question)
        reply = transcript.start_assistant()
        reply.append("Use **this**:\n\n```sh\nmake test\n```")
        await reply.finish()
        panel = transcript.add_tool_panel("a", "terminal", 0)
        panel.set_started({}, "ls")
        panel.append_output("one\ntwo\n")
        panel.set_finished("ok", 0.1, "2 lines")
        transcript.add_notice("info", "a notice is not a stop of the cursor")
        await pilot.pause()
        transcript.focus()
        await pilot.pause()
        assert transcript.cursor_entry is panel  # the last one in view that opens or copies
        await pilot.press("y")
        assert app.clipboard == "one\ntwo\n"
        await pilot.press("up")
        assert transcript.cursor_entry is reply
        await pilot.press("enter")  # a message does not open: Enter copies it, as its Markdown source
        assert app.clipboard == "Use **this**:\n\n```sh\nmake test\n```"
        await pilot.press("up", "y")
        assert app.clipboard == question  # whole, not the wrapped rows
        await pilot.press("down", "down", "enter")
        assert panel.expanded and app.clipboard == question  # Enter on a tool call opens it


async def test_mouse_selection_spans_entries_and_copies_what_is_shown() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(60, 20)) as pilot:
        transcript = app.transcript
        transcript.add_user("first question")
        reply = transcript.start_assistant()
        reply.append("Alpha beta gamma.\n\n- item one\n- item two")
        await reply.finish()
        await pilot.pause()
        lines = shown(transcript).splitlines()
        start = next(n for n, line in enumerate(lines) if "first question" in line)
        end = next(n for n, line in enumerate(lines) if "item two" in line)
        await pilot.mouse_down(Transcript, offset=(3, start))
        await pilot.hover(Transcript, offset=(12, end))
        await pilot.mouse_up(Transcript, offset=(12, end))
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert selected is not None
        assert selected.startswith("first question")
        assert "Alpha beta gamma." in selected and "• item one" in selected and "item t" in selected
        # Visible: the selected cells keep a text colour that differs from their background.
        row = transcript.render_line(start)
        cells = [s for s in row if s.text.strip() and s.style is not None and "question" in s.text]
        assert cells, "the selected text is drawn"
        for segment in cells:
            style = segment.style
            assert style is not None and style.bgcolor is not None
            assert style.color is None or style.color != style.bgcolor, (
                "selected text in its background's colour"
            )
            assert style.bgcolor != transcript.painter.base_style.bgcolor  # and the selection shows


async def test_a_mouse_copy_of_a_code_block_drops_the_render_indent() -> None:
    """Dragged over a code block, from its first character to the end of its last line, the copy is the
    code as written: the transcript's margin, the reply's indent and the block's padding are not copied,
    the code's own indentation is."""
    app = TranscriptApp()
    async with app.run_test(size=(60, 20)) as pilot:
        transcript = app.transcript
        reply = transcript.start_assistant()
        reply.append("Here:\n\n```python\ndef f():\n    return 1\n```")
        await reply.finish()
        await pilot.pause()
        lines = shown(transcript).splitlines()
        start = next(n for n, line in enumerate(lines) if "def f():" in line)
        end = next(n for n, line in enumerate(lines) if "return 1" in line)
        await pilot.mouse_down(Transcript, offset=(lines[start].index("def"), start))
        await pilot.hover(Transcript, offset=(len(lines[end]) + 2, end))
        await pilot.mouse_up(Transcript, offset=(len(lines[end]) + 2, end))
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert selected is not None
        assert selected.rstrip() == "def f():\n    return 1"


async def test_records_keep_every_entry_and_a_cleared_transcript_starts_over() -> None:
    app = TranscriptApp()
    async with app.run_test() as pilot:
        transcript = app.transcript
        transcript.add_user("q", images=["shot.png · 10×10 · 1 KB"])
        reply = transcript.start_assistant()
        reply.append("answer")
        await reply.finish()
        empty = transcript.start_assistant()
        await empty.finish()
        panel = transcript.add_tool_panel("c", "read_file", 0)
        panel.set_started({"path": "a"}, "a")
        panel.set_finished("ok", 0.1, "contents")
        transcript.add_notice("warn", "careful", hint="a hint")
        await pilot.pause()
        records = transcript.records()
        assert [record.kind for record in records] == ["user", "assistant", "tool", "notice"]
        assert records[0].images == ("shot.png · 10×10 · 1 KB",)
        assert isinstance(records[2].tool, ToolSnapshot) and records[2].tool.result == "contents"
        assert "📎 shot.png" in shown(transcript)
        await transcript.clear()
        await pilot.pause()
        assert len(transcript.entries) == 0 and transcript.records() == []
        assert shown(transcript).strip() == ""


async def test_a_withdrawn_stream_is_removed_from_the_view() -> None:
    app = TranscriptApp()
    async with app.run_test() as pilot:
        transcript = app.transcript
        transcript.add_user("go")
        reply = transcript.start_assistant()
        reply.append("partial answer that the retry replaces")
        await reply.wait_until_drained()
        await pilot.pause()
        assert "partial answer" in shown(transcript)
        reply.remove()
        await pilot.pause()
        assert "partial answer" not in shown(transcript)
        assert transcript.entries_of(ReplyEntry) == []


async def test_a_clarify_answer_reads_as_text_not_json() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(80, 20)) as pilot:
        panel = app.transcript.add_tool_panel("c1", "clarify", 0)
        panel.set_started({"question": "Which database?"}, "Which database?")
        payload = '{"question": "Which database?", "choices_offered": ["SQLite"], "user_response": "SQLite"}'
        panel.set_finished("ok", 0.5, payload)
        panel.set_expanded(True)
        await pilot.pause()
        text = shown(app.transcript)
        assert "→ SQLite" in text and "user_response" not in text and "{" not in text


async def test_a_deadline_already_due_or_past_still_runs() -> None:
    """The pacer's one-shot runs late rather than never: Textual 8.2.8's `set_timer(0)` raised
    ZeroDivisionError in its timer's task, and its one-shot skips its only tick when it starts late."""
    app = TranscriptApp()
    async with app.run_test() as pilot:
        transcript = app.query_one(Transcript)
        ran: list[str] = []
        transcript.pacer.after(0.0, lambda: ran.append("now"))
        transcript.pacer.after(-1.0, lambda: ran.append("past"))
        await wait_for_async(lambda: len(ran) == 2, "both deadlines ran", pause=pilot.pause)
        assert sorted(ran) == ["now", "past"]

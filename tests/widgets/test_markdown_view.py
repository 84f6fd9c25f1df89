"""Pilot tests of the line-cached replies (`ReplyEntry`, a transcript entry on `LinesEntry`): what a
user sees while a reply streams and after, compared with the same reply loaded from history; that the app
keeps answering keys during a flood of deltas; re-wrapping on resize; an open code fence already
highlighted; model text shown literally; reasoning and tool output streaming."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input

from widgets.transcript.entries.reply import ReplyEntry
from widgets.transcript.markdown.render import Line
from widgets.transcript.styles import StyleLender
from widgets.transcript.view import Transcript

pytestmark = pytest.mark.anyio

EVERY_ELEMENT = (
    "# Title\n\nIntro with **bold**, *italic*, `code`, ~~gone~~ and a [link](https://example.com).\n\n"
    "## Lists\n\n- one\n- two\n  - nested *a*\n  - nested b\n- three\n\n1. first\n2. second\n\n"
    "> A quote\n> over two lines\n\n```python\ndef f(x):\n    return x + 1\n```\n\n"
    "| name | value |\n|------|------:|\n| a | 1 |\n| 漢字 | 22 |\n\n---\n\n"
    "Setext heading\n==============\n\n    indented code\n\n"
    "Wide 😀 emoji and a long line that has to wrap at the width of the view because it goes on and on "
    "and on for quite a while.\n"
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Replies(App[None]):
    """A transcript showing the replies it is given, and nothing else."""

    def __init__(self, *replies: ReplyEntry) -> None:
        super().__init__()
        self._replies = replies

    def compose(self) -> ComposeResult:
        yield Transcript()

    def on_mount(self) -> None:
        for reply in self._replies:
            self.transcript._add(reply)

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)


class Chat(App[None]):
    """A transcript and an input, like the chat screen."""

    def compose(self) -> ComposeResult:
        yield Transcript()
        yield Input(id="prompt")


async def wait_until(pilot: Pilot, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not reached in time"
        await pilot.pause(0.02)


def width_of(reply: ReplyEntry) -> int:
    painter = reply.painter
    assert isinstance(painter, StyleLender) and isinstance(painter.owner, Transcript)
    return painter.owner.entry_width


def lines(reply: ReplyEntry) -> list[Line]:
    """The reply's lines as drawn (its gap left out)."""
    width = width_of(reply)
    return [reply.line(y, width) for y in range(reply.gap, reply.measure(width))]


def text(reply: ReplyEntry) -> str:
    return reply.rendered_text(width_of(reply))


def segments(reply: ReplyEntry) -> list[list[tuple[str, object]]]:
    """Text and style of every segment, line by line."""
    return [[(segment.text, segment.style) for segment in line] for line in lines(reply)]


async def test_a_streamed_reply_looks_exactly_like_the_same_reply_loaded_finished() -> None:
    streamed = ReplyEntry()
    loaded = ReplyEntry(EVERY_ELEMENT, finished=True)
    app = Replies(streamed, loaded)
    async with app.run_test(size=(90, 200)) as pilot:
        for start in range(0, len(EVERY_ELEMENT), 3):
            streamed.append(EVERY_ELEMENT[start : start + 3])
            if start % 60 == 0:
                await pilot.pause()
        await streamed.finish()
        await pilot.pause()
        assert text(streamed) == text(loaded)
        assert segments(streamed) == segments(loaded)  # the same colours and attributes too
        shown = text(streamed)
        for needle in (
            "Title",
            "• one",
            "nested a",
            "1 first",
            "▌ A quote",
            "def f(x):",
            "漢字",
            "😀",
            "gone",
        ):
            assert needle in shown
        assert "**" not in shown and "```" not in shown  # Markdown syntax is rendered, not shown


async def test_a_flood_of_deltas_leaves_the_app_answering_keys() -> None:
    app = Chat()
    async with app.run_test(size=(100, 30)) as pilot:
        reply = app.query_one(Transcript).start_assistant()
        words = [f"word{n} " if n % 40 else f"word{n}\n\n" for n in range(6000)]
        done = threading.Event()

        def append_all(batch: list[str]) -> None:
            for word in batch:
                reply.append(word)

        def produce() -> None:  # ~2,000 deltas a second for about three seconds, handed to the UI thread
            for start in range(0, len(words), 10):  # (entries are fed there: the app's event pipeline)
                app.call_from_thread(append_all, words[start : start + 10])
                time.sleep(0.005)
            done.set()

        producer = threading.Thread(target=produce)
        producer.start()
        try:
            await wait_until(pilot, lambda: "word100" in text(reply))
            prompt = app.query_one("#prompt", Input)
            prompt.focus()
            # Keys arrive as a terminal sends them (Pilot's `press` waits for the whole process to go
            # idle, which it does not while a thread streams).
            driver = app._driver
            assert driver is not None
            for char in "typed":
                driver.send_message(events.Key(char, char))
            await wait_until(pilot, lambda: prompt.value == "typed" or done.is_set())
            assert prompt.value == "typed"
            assert not done.is_set(), "the keys were only handled after the stream ended"
        finally:
            while producer.is_alive():  # it waits on this loop for each batch: never block the loop
                await pilot.pause(0.01)
        await reply.finish()
        assert reply.text == "".join(words)


async def test_resizing_mid_stream_rewraps_the_reply() -> None:
    reply = ReplyEntry()
    app = Replies(reply)
    words = " ".join(f"w{n}" for n in range(300))
    async with app.run_test(size=(100, 60)) as pilot:
        reply.append(words[:600])
        await reply.wait_until_drained()
        await pilot.pause()
        wide_lines = reply.line_count
        await pilot.resize_terminal(50, 60)
        await wait_until(pilot, lambda: width_of(reply) < 50)
        reply.append(words[600:])
        await reply.finish()
        await pilot.pause()
        width = width_of(reply)
        rows = text(reply).split("\n")
        assert all(len(row) <= width for row in rows)
        assert reply.line_count > wide_lines
        assert " ".join(rows).split() == words.split()  # every word still there, in order


async def test_an_open_code_fence_is_highlighted_before_it_closes() -> None:
    reply = ReplyEntry()
    app = Replies(reply)
    async with app.run_test(size=(80, 20)) as pilot:
        reply.append("Here:\n\n```python\ndef answer():\n    return 42\n")
        await reply.wait_until_drained()
        await pilot.pause()
        assert not reply.is_finished and reply.document.open_block is not None
        plain = next(s.style.color for s in lines(reply)[0] if s.text.strip() == "Here:" and s.style)
        colours = {
            segment.text.strip(): segment.style.color
            for line in lines(reply)
            for segment in line
            if segment.text.strip() and segment.style
        }
        assert colours["def"] is not None and colours["def"] != plain  # a keyword colour
        assert colours["42"] is not None and colours["42"] not in (plain, colours["def"])  # a number colour


async def test_markup_and_escapes_from_the_model_are_shown_literally() -> None:
    reply = ReplyEntry()
    app = Replies(reply)
    async with app.run_test(size=(80, 10)) as pilot:
        reply.append("Use [bold]x[/bold] and \x1b[3")  # an escape split across deltas
        reply.append("1mred\x1b[0m, :smile: stays.")
        await reply.finish()
        await pilot.pause()
        assert text(reply) == " Use [bold]x[/bold] and red, :smile: stays."
        for line in lines(reply):
            for segment in line:
                assert "\x1b" not in segment.text
                if "[bold]" in segment.text:
                    assert not (segment.style and segment.style.bold)


async def test_select_all_copies_the_rendered_text_not_the_markdown() -> None:
    reply = ReplyEntry("Alpha **beta** gamma.\n\n- item one\n- item two\n\nLast line.", finished=True)
    app = Replies(reply)
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        app.transcript.text_select_all()
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert selected is not None
        rows = [row.strip() for row in selected.split("\n") if row.strip()]
        assert rows == ["Alpha beta gamma.", "• item one", "• item two", "Last line."]


async def test_expanded_reasoning_streams_its_lines_under_the_header() -> None:
    app = Replies()
    async with app.run_test(size=(60, 30)) as pilot:
        transcript = app.transcript
        block = transcript.start_reasoning()
        block.toggle()
        width = transcript.entry_width
        for n in range(12):
            block.append(f"thought {n} [dim]literal[/dim]\n")
        block.append("half a thou")
        await wait_until(pilot, lambda: "half a thou" in block.rendered_text(width))
        rows = [row.strip() for row in block.rendered_text(width).split("\n")]
        assert rows[0].startswith("▾ Reasoning")
        assert rows[1:13] == [f"thought {n} [dim]literal[/dim]" for n in range(12)]
        block.append("ght.\n\n")
        block.finish()
        await pilot.pause()
        assert block.rendered_text(width).split("\n")[-1].strip() == "half a thought."
        block.toggle()
        await pilot.pause()
        assert block.rendered_text(width).strip() == "▸ Reasoning · 13 lines (click/enter to show)"
        assert block.measure(width) == 2  # its gap and its header


async def test_a_running_tool_shows_its_tail_or_all_of_its_output_as_it_streams() -> None:
    app = Replies()
    async with app.run_test(size=(80, 50)) as pilot:
        transcript = app.transcript
        width = transcript.entry_width
        panel = transcript.add_tool_panel("call_1", "terminal", 0)
        panel.set_started({"command": "seq 500"}, "seq 500")
        panel.append_output("line 1\n")
        await wait_until(pilot, lambda: panel.has_body)
        assert panel.set_expanded(True)  # the whole output, as it streams

        def body() -> list[str]:
            return [
                row.split("│ ", 1)[1] if "│ " in row else row
                for row in panel.rendered_text(width).split("\n")[1:]
            ]

        for n in range(2, 501):
            panel.append_output(f"line {n}\n")
        await wait_until(pilot, lambda: "line 500" in panel.rendered_text(width))
        assert body() == [f"line {n}" for n in range(1, 501)]
        panel.set_expanded(False)
        await wait_until(pilot, lambda: body()[0].startswith("… 470 earlier lines"))
        assert body()[1:] == [f"line {n}" for n in range(471, 501)]
        panel.append_output("line 501\n")
        await wait_until(pilot, lambda: "line 501" in panel.rendered_text(width))
        assert body()[:2] == ["… 471 earlier lines (enter to expand)", "line 472"]


async def test_a_resize_renders_the_replies_in_view_first_and_the_rest_when_they_come_into_view() -> None:
    app = Chat()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        body = "\n\n".join(" ".join(f"w{p}x{n}" for n in range(60)) for p in range(4))
        replies = [transcript.start_assistant() for _ in range(12)]
        for reply in replies:
            reply.append(body)
            await reply.finish()
        await pilot.pause()
        assert transcript.is_following
        renders: list[ReplyEntry] = []
        for reply in replies:
            original = reply.render_block

            def counting(block, width, reply=reply, original=original):  # type: ignore[no-untyped-def]
                renders.append(reply)
                return original(block, width)

            reply._stack._render = counting
        await pilot.resize_terminal(60, 30)
        await wait_until(pilot, lambda: transcript.entry_width < 60)
        await pilot.pause()
        drawn = set(renders)
        assert replies[-1] in drawn and replies[0] not in drawn  # only what is in view (and near it)
        assert transcript.is_following and transcript.scroll_y == transcript.max_scroll_y
        transcript.scroll_to_first()
        await pilot.pause()
        assert replies[0] in set(renders)  # drawn when it came into view
        width = transcript.entry_width
        assert all(len(row) <= width for row in replies[0].rendered_text(width).split("\n"))


async def test_a_burst_is_drawn_in_slices_and_ends_complete() -> None:
    reply = ReplyEntry()
    app = Replies(reply)
    burst = "".join(f"Paragraph {n}: " + "word " * 40 + "\n\n" for n in range(300))  # ~66,000 characters
    async with app.run_test(size=(100, 40)) as pilot:
        reply.append(burst)  # everything at once, as a stalled connection catching up delivers it
        seen: set[int] = set()

        def progressed() -> bool:
            seen.add(len(reply.shown_text))
            return reply.shown_text == burst

        await wait_until(pilot, progressed)
        steps = sorted(seen - {0})
        assert len(steps) > 3 and steps[0] <= ReplyEntry.FEED_CHARS  # drawn progressively
        await reply.finish()
        await reply.wait_until_drained()
        assert reply.is_drained and "Paragraph 299:" in text(reply)

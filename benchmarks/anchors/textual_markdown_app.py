"""Anchor: the smallest sensible Textual chat app, streaming with Textual's own `Markdown.get_stream()`.

Header (with a ticking clock), a title line, a scrolling Markdown view anchored to the bottom, an Input and
a Footer. Enter sends the Input's text with the `openai` SDK in a thread worker; the deltas go into a list
that a 20 Hz timer hands to the `MarkdownStream` in one write. (Awaiting `stream.write()` per delta from an
async SDK client in the event loop, as Textual's documentation shows, took 209 s for the 20,000-word burst
that this version shows in ~23 s: per-delta appends re-split the whole document. This anchor measures the
widget, not that feeding pattern.) terminal_stream.py runs it in tmux beside hermes-tui on the same stream,
so the ratio says what the app costs over the framework's own streaming widget.

Usage: python textual_markdown_app.py BASE_URL
"""

from __future__ import annotations

import sys
import threading

import openai
from textual import work
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Input, Markdown, Static


class BareMarkdownApp(App[None]):
    CSS = """
    #reply { height: 1fr; }
    """

    def __init__(self, base_url: str) -> None:
        super().__init__()
        self.client = openai.OpenAI(base_url=base_url, api_key="bench", max_retries=0)
        self._lock = threading.Lock()
        self._pending: list[str] = []
        self._stream = None

    def compose(self) -> ComposeResult:
        yield Header(show_clock=True)
        yield Static("bare Textual + Markdown.get_stream()")
        with VerticalScroll(id="reply"):
            yield Markdown()
        yield Input(placeholder="Ask the bare app")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#reply", VerticalScroll).anchor()
        self.query_one(Input).focus()
        self.set_interval(1 / 20, self._drain)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.value = ""
        if self._stream is None:
            self._stream = Markdown.get_stream(self.query_one(Markdown))
        self.stream_reply(event.value)

    async def _drain(self) -> None:
        with self._lock:
            text = "".join(self._pending)
            self._pending.clear()
        if text and self._stream is not None:
            await self._stream.write(text)

    @work(thread=True, exclusive=True)
    def stream_reply(self, prompt: str) -> None:
        response = self.client.chat.completions.create(
            model="bench", messages=[{"role": "user", "content": prompt}], stream=True
        )
        for chunk in response:
            if chunk.choices and chunk.choices[0].delta.content:
                with self._lock:
                    self._pending.append(chunk.choices[0].delta.content)


if __name__ == "__main__":
    BareMarkdownApp(sys.argv[1]).run()

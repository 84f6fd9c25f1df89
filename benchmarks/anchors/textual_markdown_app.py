"""Anchor: the smallest honest Textual chat app, streaming with Textual's own `Markdown.get_stream()`.

Header (with a ticking clock), a title line, a scrolling Markdown view anchored to the bottom, an Input and
a Footer. Enter sends the Input's text to the model with the async `openai` client in an async worker and
writes every delta to the `MarkdownStream`, as Textual's documentation recommends. terminal_stream.py runs
it in tmux beside hermes-tui, against the same stream, so the ratio says what the app costs over the
framework's own recommended path.

Usage: python textual_markdown_app.py BASE_URL
"""

from __future__ import annotations

import sys

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
        self.client = openai.AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)

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

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.value = ""
        self.stream_reply(event.value)

    @work(exclusive=True)
    async def stream_reply(self, prompt: str) -> None:
        markdown = self.query_one(Markdown)
        stream = Markdown.get_stream(markdown)
        try:
            response = await self.client.chat.completions.create(
                model="bench", messages=[{"role": "user", "content": prompt}], stream=True
            )
            async for chunk in response:
                if chunk.choices and chunk.choices[0].delta.content:
                    await stream.write(chunk.choices[0].delta.content)
        finally:
            await stream.stop()


if __name__ == "__main__":
    BareMarkdownApp(sys.argv[1]).run()

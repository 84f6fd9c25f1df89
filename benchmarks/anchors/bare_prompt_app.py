"""Anchor: the bare Textual app the startup goal is measured against (Header, Static, Input, Footer).

Nothing else: no model client, no store, no theme of its own. `benchmarks/startup.py` launches it in tmux
beside hermes-tui and times launch -> its Input placeholder on screen, and its CPU while idle at the prompt,
so hermes-tui's numbers read as ratios to what the framework itself costs on this machine, in this run.

Usage: python bare_prompt_app.py
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Footer, Header, Input, Static


class BarePromptApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("bare Textual: Header, Static, Input, Footer")
        yield Input(placeholder="Ask the bare app")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Input).focus()


if __name__ == "__main__":
    BarePromptApp().run()
